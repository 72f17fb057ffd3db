import Foundation
internal import GRDB
internal import GRDBSQLite

/// The journal files beside a store file (`-wal`, `-shm`), noted before a read-only look at it, so that the
/// look leaves no file that was not there.
///
/// SQLite opens a WAL-mode file read-only only with a `-shm` (and an empty `-wal`) beside it, and a read-only
/// connection cannot remove them when it closes. So after the look, when it created them, a read-write
/// connection opens the file, reads, and closes: closing the last connection to a WAL file, SQLite checkpoints
/// the (empty) log and deletes both files under the database's exclusive lock. When anyone else, in this
/// process or another, has the store open, SQLite cannot take that lock and leaves the files, as it must. This
/// runs only when neither file was there before the look, so the log holds nothing but what another process
/// may have committed since (then the close folds it into the file, as any last connection does).
struct SideFiles: Sendable {
  private static let suffixes = ["-wal", "-shm"]
  let url: URL
  private let existed: Set<String>

  init(of url: URL) {
    self.url = url
    existed = Set(Self.suffixes.filter { FileManager.default.fileExists(atPath: url.path + $0) })
  }

  /// Removes, through SQLite, the side files that appeared since ``init(of:)``; does nothing when none did, or
  /// when the file or its folder cannot be written (a read-only file in a writable folder keeps them: SQLite
  /// made them, and only a writer can remove them safely). When a `-wal` was there
  /// before (left by an app that was killed, its last transactions still in it), nothing is removed: only a
  /// checkpoint could remove it, and that would change the main file, which a look must not do.
  func removeNewOnes() {
    guard existed.isEmpty else { return }
    let appeared = Self.suffixes.filter { FileManager.default.fileExists(atPath: url.path + $0) }
    guard !appeared.isEmpty, FileManager.default.isWritableFile(atPath: url.path),
      FileManager.default.isWritableFile(atPath: url.deletingLastPathComponent().path)
    else { return }
    var configuration = Configuration()
    configuration.label = "ObjectGraph.tidy"
    // Never wait: a store busy elsewhere keeps its files.
    configuration.busyMode = .immediateError
    var unreadable = false
    do {
      let queue = try DatabaseQueue(path: url.path, configuration: configuration)
      defer { try? queue.close() }
      _ = try queue.read { try Int.fetchOne($0, sql: "SELECT count(*) FROM sqlite_master") }
    } catch let error as DatabaseError {
      // Not an I/O error: a healthy store open elsewhere can meet one (a full disk), and its files must stay.
      unreadable = error.resultCode == .SQLITE_NOTADB
    } catch {}
    // A file SQLite cannot read (damaged, not a database, its header saying WAL) never gets SQLite's own
    // clean-up: the files the look made are removed here when the log is still empty, as only the look can
    // have made it (no connection could write to a file it cannot read).
    guard unreadable else { return }
    let wal = url.path + "-wal"
    guard ((try? FileManager.default.attributesOfItem(atPath: wal))?[.size] as? Int ?? 0) == 0 else { return }
    for suffix in Self.suffixes { try? FileManager.default.removeItem(atPath: url.path + suffix) }
  }
}

extension SideFiles {
  /// The name to open a store file read-only under: its path, or, for a WAL file on a read-only file
  /// system (a read-only mount, a store shipped on one) with no `-wal`, `-shm` or `-journal` beside it, a
  /// `file:` URI with `immutable=1`.
  ///
  /// SQLite reads a WAL file only through a `-shm` beside it, which it cannot make there, so a plain read-only
  /// open fails (`SQLITE_READONLY_CANTINIT`). Without a `-wal` the file holds every committed transaction (the
  /// last connection to close folded the log in and removed it), and on a read-only file system no process
  /// can add a log or change the file, so reading it as immutable reads exactly the store. A folder that only
  /// this user cannot write is not enough (another user's process could write there while the immutable
  /// connection, which takes no locks, reads), nor is a file with a side file beside it: both keep the plain
  /// path, and the open says what to do. The URI form needs a SQLite built to read URIs (`SQLITE_USE_URI`, as
  /// Debian's and Ubuntu's are); with another build the plain path is used.
  static func readOnlyName(of url: URL) -> String {
    let path = url.path
    let resolved = url.resolvingSymlinksInPath().path
    guard isOnReadOnlyFileSystem(URL(fileURLWithPath: resolved).deletingLastPathComponent().path),
      !(suffixes + ["-journal"]).contains(where: { FileManager.default.fileExists(atPath: resolved + $0) }),
      sqlite3_compileoption_used("USE_URI") == 1,
      hasWALHeader(URL(fileURLWithPath: resolved)),
      let escaped = resolved.addingPercentEncoding(withAllowedCharacters: .urlPathAllowed)
    else { return path }
    return "file:\(escaped)?immutable=1"
  }

  /// Whether ``readOnlyName(of:)`` opens the file as immutable: then it is a WAL file, though
  /// `PRAGMA journal_mode` says `delete` on an immutable connection.
  static func opensImmutable(_ url: URL) -> Bool {
    readOnlyName(of: url) != url.path
  }

  /// Whether the file's SQLite header says WAL: bytes 18 and 19, the file format's write and read versions,
  /// are 2. Only for a file on a read-only file system: closing a descriptor of a file drops every POSIX
  /// lock this process holds on it, its SQLite connections' included, which only matters where a writer
  /// could exist.
  private static func hasWALHeader(_ url: URL) -> Bool {
    guard let handle = FileHandle(forReadingAtPath: url.path) else { return false }
    defer { try? handle.close() }
    let header = (try? handle.read(upToCount: 20)) ?? Data()
    return header.count == 20 && header.starts(with: Data("SQLite format 3\u{0}".utf8)) && header[18] == 2 && header[19] == 2
  }

  /// Whether `folder` is on a file system mounted read-only, where no process can write.
  private static func isOnReadOnlyFileSystem(_ folder: String) -> Bool {
    var info = statvfs()
    guard statvfs(folder, &info) == 0 else { return false }
    return info.f_flag & UInt(ST_RDONLY) != 0
  }
}
