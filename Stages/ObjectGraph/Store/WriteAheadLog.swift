import Foundation

/// A store's `-wal` file as SQLite reads it: its header, and the frames of the transactions it holds that
/// committed (SQLite's file format, "The WAL File Format").
///
/// A `-wal` is a list of page images, each frame carrying the page's number, checked by salts copied from the
/// log's header and by a checksum chained from frame to frame; a frame that ends a transaction says how
/// many pages the database has after it. Nothing in it names the database it belongs to: SQLite reads any
/// `-wal` beside a file as that file's, and the first writer to close folds its pages into the file. This
/// reads what is needed to tell whether the log can belong to a file (``NSPersistentStore/refuseForeignLog(url:)``):
/// which pages the committed transactions wrote, and how large they left the database. Only frames SQLite
/// itself would read count: the log is read up to the first frame whose salts or checksum do not match, and
/// frames after the last commit are left out.
struct WriteAheadLog: Sendable {
  /// The page size the log's header gives.
  let pageSize: Int
  /// The number of frames of committed transactions.
  let committedFrames: Int
  /// The pages those transactions wrote.
  let pages: Set<UInt32>
  /// The database's size in pages after the last committed transaction.
  let databasePages: UInt32

  /// SQLite's WAL magic numbers: checksums over little-endian words, or over big-endian ones.
  private static let magicLittleEndian: UInt32 = 0x377F_0682
  private static let magicBigEndian: UInt32 = 0x377F_0683

  /// Reads the log at `path`; `nil` when there is none, or when it holds no committed transaction (a header
  /// only, frames of an older generation, a transaction cut short): then there is nothing SQLite would read
  /// from it or fold into the file. Throws when the file cannot be read.
  static func read(path: String) throws -> WriteAheadLog? {
    guard FileManager.default.fileExists(atPath: path) else { return nil }
    let handle = try FileHandle(forReadingFrom: URL(fileURLWithPath: path))
    defer { try? handle.close() }
    guard let header = try handle.read(upToCount: 32), header.count == 32 else { return nil }
    let magic = header.bigEndianWord(at: 0)
    guard magic == magicLittleEndian || magic == magicBigEndian else { return nil }
    let bigEndianSums = magic == magicBigEndian
    let pageSize = Int(header.bigEndianWord(at: 8))
    // SQLite's page sizes: a power of two from 512 to 65,536 (written 1 in a header's 16-bit field).
    guard pageSize >= 512, pageSize <= 65_536, pageSize & (pageSize - 1) == 0 else { return nil }
    let salts = (header.bigEndianWord(at: 16), header.bigEndianWord(at: 20))
    var sums = checksum(header.prefix(24), bigEndian: bigEndianSums, from: (0, 0))
    guard sums == (header.bigEndianWord(at: 24), header.bigEndianWord(at: 28)) else { return nil }

    var pending: [UInt32] = []
    var pages = Set<UInt32>()
    var committed = 0
    var frames = 0
    var databasePages: UInt32 = 0
    let frameSize = 24 + pageSize
    while let frame = try handle.read(upToCount: frameSize), frame.count == frameSize {
      let page = frame.bigEndianWord(at: 0)
      guard page != 0, frame.bigEndianWord(at: 8) == salts.0, frame.bigEndianWord(at: 12) == salts.1 else { break }
      sums = checksum(frame.prefix(8), bigEndian: bigEndianSums, from: sums)
      sums = checksum(frame.dropFirst(24), bigEndian: bigEndianSums, from: sums)
      guard sums == (frame.bigEndianWord(at: 16), frame.bigEndianWord(at: 20)) else { break }
      frames += 1
      pending.append(page)
      let sizeAfterCommit = frame.bigEndianWord(at: 4)
      if sizeAfterCommit != 0 {
        pages.formUnion(pending)
        pending.removeAll(keepingCapacity: true)
        committed = frames
        databasePages = sizeAfterCommit
      }
    }
    guard committed > 0 else { return nil }
    return WriteAheadLog(pageSize: pageSize, committedFrames: committed, pages: pages, databasePages: databasePages)
  }

  /// The pages up to the database's size that the committed transactions did not write and that lie past
  /// the end of a file of `filePages` pages: pages a reader would look for in the file and not find. A log
  /// that belongs to the file has none (SQLite writes every page it adds to a database into the log, and
  /// shortens the file only to the size the log's last transaction left). Leaves out the page holding the
  /// lock byte of databases over a gigabyte, which SQLite never writes.
  func missingPages(filePages: UInt32) -> Int {
    guard databasePages > filePages else { return 0 }
    let lockPage = UInt32(0x4000_0000 / pageSize) + 1
    return (filePages + 1...databasePages).count(where: { !pages.contains($0) && $0 != lockPage })
  }

  /// SQLite's WAL checksum: over pairs of 32-bit words, in the byte order the magic number names, continued
  /// from `start`.
  private static func checksum(_ bytes: Data, bigEndian: Bool, from start: (UInt32, UInt32)) -> (UInt32, UInt32) {
    var (s1, s2) = start
    bytes.withUnsafeBytes { raw in
      let count = raw.count / 8
      for index in 0..<count {
        var first = raw.loadUnaligned(fromByteOffset: index * 8, as: UInt32.self)
        var second = raw.loadUnaligned(fromByteOffset: index * 8 + 4, as: UInt32.self)
        if bigEndian {
          first = UInt32(bigEndian: first)
          second = UInt32(bigEndian: second)
        } else {
          first = UInt32(littleEndian: first)
          second = UInt32(littleEndian: second)
        }
        s1 = s1 &+ first &+ s2
        s2 = s2 &+ second &+ s1
      }
    }
    return (s1, s2)
  }
}

extension Data {
  /// The big-endian 32-bit word at `offset` from the start of the data (not of its indices).
  fileprivate func bigEndianWord(at offset: Int) -> UInt32 {
    let start = startIndex + offset
    return self[start..<start + 4].reduce(0) { $0 << 8 | UInt32($1) }
  }
}
