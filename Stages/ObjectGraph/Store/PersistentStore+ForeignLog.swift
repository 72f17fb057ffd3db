import Foundation
internal import GRDB
internal import GRDBSQLite

/// A `-wal` beside a store that is not the store's own: another store's (a backup copy put back without its
/// log, a store copied from another install or device), or the store's own from before the file was
/// replaced by an older copy. SQLite reads any `-wal` beside a file as that file's, and the first read-write
/// connection to close folds it into the file: another database's pages over the store's, which no later
/// step can undo. So before any connection that may write opens an existing store, the open checks that
/// the log can belong to the file, and refuses, naming the `-wal`, when it cannot.
///
/// SQLite ties a log to no file, so the check compares what the file says alone (read as an immutable file,
/// which SQLite reads without its log) with what it says read through the log ("Files a killed process
/// leaves" in Docs/ObjectGraph.md lists what each finding means):
/// - the log's page size is the file's;
/// - every page the log's database has is in the log or in the file (a log written for a larger database
///   than this file needs pages the file does not have);
/// - read through the log, the file is still a SQLite database whose pages hold together (`quick_check`);
/// - a store in the file is the same store read through the log (its `Z_UUID`: a store's UUID changes
///   only in a migration on open, which writes the old one into the metadata), and with the same model
///   version no key counter of `Z_PRIMARYKEY` went back (counters only grow).
///
/// A log that passes can still be another copy of the same store that wrote only pages this file has,
/// in a way that holds together; no test of the two files can tell that from a log that is the file's own.
extension NSPersistentStore {
  /// What a store file says of itself, read with or without its log.
  private struct Look {
    var uuid: String?
    var previousUUID: String?
    var hashes: [String: Data]?
    var counters: [Int64: Int64] = [:]
    /// Some rows of each entity table (`Z_PK`, `Z_OPT`, then the attribute columns), by table.
    var samples: [Sample] = []
  }

  /// Rows of one entity table read alone: the same rows read through the log must have the same values
  /// wherever their version (`Z_OPT`) is the same, since every change to a row counts its version up.
  private struct Sample {
    var table: String
    /// `SELECT <the compared columns> FROM <table>`, to read the same rows through the log.
    var select: String
    var rows: [[SQLValue]]
  }

  /// A value as SQLite stores it, for comparing rows read on two connections.
  private enum SQLValue: Hashable {
    case null
    case integer(Int64)
    case real(Double)
    case text(String)
    case blob(Data)
  }

  /// Refuses the store at `url` when the `-wal` beside it holds committed transactions that cannot belong
  /// to the file; does nothing without one. Reads only: nothing is written, and no side file is left that
  /// was not there.
  static func refuseForeignLog(url: URL) throws {
    // No connection at all for a store without a log, the usual case (a store closed cleanly).
    guard (size(url.path + "-wal") ?? 0) > 0 else { return }
    do {
      try inspect(url: url) { db in
        // The log and the file are read inside this read transaction, once it has begun: while it lasts, the
        // log is only appended to and the file only given pages of transactions older than its snapshot.
        _ = try Int.fetchOne(db, sql: "SELECT count(*) FROM sqlite_master")
        guard let log = try readLog(url: url) else { return }
        // The file alone: a store, a SQLite file that is not one (no look), or unreadable (nil).
        let alone = fileAlone(url: url)
        if let alone {
          if log.pageSize != alone.pageSize {
            throw foreignLog(
              url: url,
              "it was written for pages of \(log.pageSize) bytes, and this file has pages of \(alone.pageSize) bytes")
          }
          let missing = log.missingPages(filePages: alone.pageCount)
          if missing > 0 {
            throw foreignLog(
              url: url,
              "it was written for a database of \(log.databasePages) pages, and \(missing) of them are in neither the -wal nor this file of \(alone.pageCount) pages"
            )
          }
        }
        guard try String.fetchOne(db, sql: "PRAGMA quick_check(1)") == "ok" else {
          // Read through the log, the pages do not hold together: the log's or the file's fault.
          guard alone != nil, holdsTogetherAlone(url: url) else { return }
          throw foreignLog(
            url: url, "read together with it, this file's pages do not hold together (PRAGMA quick_check), and read alone they do")
        }
        guard let before = alone?.look, let after = try look(in: db) else { return }
        if let old = before.uuid, let new = after.uuid, old != new, after.previousUUID != old {
          throw foreignLog(url: url, "it holds the store \(new), and this file is the store \(old)")
        }
        if before.hashes == after.hashes,
          let behind = before.counters.first(where: { entity, counter in after.counters[entity].map { $0 < counter } ?? false })
        {
          throw foreignLog(
            url: url,
            "it is older than this file: its key counter for entity \(behind.key) is \(after.counters[behind.key] ?? 0), and the file's is \(behind.value) (a -wal left from before the store was copied or restored)"
          )
        }
        if before.hashes == after.hashes, let handle = db.sqliteConnection, let row = differingRow(before.samples, handle) {
          throw foreignLog(
            url: url,
            "read with it, row \(row.key) of \(row.table) holds other values at the same version (Z_OPT), which no change to a row does")
        }
      }
    } catch let error as ObjectGraphError {
      throw error
    } catch let error as DatabaseError where error.resultCode == .SQLITE_NOTADB || error.resultCode == .SQLITE_CORRUPT {
      // Read through the log, the file is not a database: the log is damaged or another's when the file alone is one.
      guard (try? readLog(url: url)) != nil, fileAlone(url: url) != nil, holdsTogetherAlone(url: url) else { return }
      throw foreignLog(
        url: url,
        "read together with it, this file is not a database SQLite can read (\(error.message ?? "\(error.resultCode)")), and read alone it is"
      )
    } catch {
      // Anything else (a locked or unreadable file) is for the open's own first look to report.
      return
    }
  }

  /// The committed transactions of the store's `-wal`, or nil when it holds none.
  private static func readLog(url: URL) throws -> WriteAheadLog? {
    do {
      return try WriteAheadLog.read(path: url.path + "-wal")
    } catch {
      throw ObjectGraphError(
        .persistentStoreOpen,
        "Cannot read \(url.path)-wal, the log of the store at \(url.path): \(error.localizedDescription). Both files were left untouched. Make the -wal readable, or move it away if it is not this store's.",
        url: url)
    }
  }

  private static func foreignLog(url: URL, _ finding: String) -> ObjectGraphError {
    ObjectGraphError(
      .persistentStoreInvalidType,
      "The -wal beside the store at \(url.path) (\(url.path)-wal) is not this store's: \(finding). SQLite would read it as the store's and fold it into the file, so the store was not opened; both files were left untouched. If the store file is the one you want, move that -wal (and the -shm) away and open the store again: it opens as it was when its log was last folded in. If the -wal holds the saves you want, put the store file it came with back beside it instead.",
      url: url)
  }

  /// What a store's file says read through the connection `db` (with its log); nil when it is not a store.
  private static func look(in db: Database) throws -> Look? {
    let tables = Set(try String.fetchAll(db, sql: "SELECT name FROM sqlite_master WHERE type = 'table'"))
    guard tables.contains("Z_METADATA") else { return nil }
    var look = Look()
    let metadata = try StoreMetadata.read(in: db)
    look.uuid = metadata[NSStoreUUIDKey] as? String
    look.previousUUID = metadata[ObjectGraphMigratedFromStoreUUIDKey] as? String
    look.hashes = metadata[NSStoreModelVersionHashesKey] as? [String: Data]
    if tables.contains("Z_PRIMARYKEY") {
      for row in try Row.fetchAll(db, sql: "SELECT Z_ENT, Z_MAX FROM Z_PRIMARYKEY") {
        guard let entity = Int64.fromDatabaseValue(row["Z_ENT"]), let counter = Int64.fromDatabaseValue(row["Z_MAX"]) else {
          continue
        }
        look.counters[entity] = counter
      }
    }
    return look
  }

  /// A store file read alone, without its `-wal`.
  private struct FileAlone {
    var pageSize: Int
    var pageCount: UInt32
    var look: Look?
  }

  /// Reads the file at `url` alone, as SQLite reads an immutable file (`immutable=1`: no log, no locks, no
  /// side file), through SQLite's own file layer, so that the locks this process's other connections hold
  /// on the file are kept. Nil when SQLite cannot read it.
  private static func fileAlone(url: URL) -> FileAlone? {
    withFileAlone(url: url) { handle in fileAlone(handle) } ?? nil
  }

  /// Whether the file at `url`, read alone, passes SQLite's `quick_check` (which reads every page).
  private static func holdsTogetherAlone(url: URL) -> Bool {
    withFileAlone(url: url) { rows($0, "PRAGMA quick_check(1)")?.first?.first == .text("ok") } ?? false
  }

  /// Runs `body` on a raw read-only connection to the file at `url` alone; nil when SQLite cannot open it.
  private static func withFileAlone<T>(url: URL, _ body: (OpaquePointer) -> T) -> T? {
    guard let escaped = url.path.addingPercentEncoding(withAllowedCharacters: .urlPathAllowed) else { return nil }
    var handle: OpaquePointer?
    defer { sqlite3_close_v2(handle) }
    guard sqlite3_open_v2("file:\(escaped)?immutable=1", &handle, SQLITE_OPEN_READONLY | SQLITE_OPEN_URI, nil) == SQLITE_OK,
      let handle
    else { return nil }
    return body(handle)
  }

  private static func fileAlone(_ handle: OpaquePointer) -> FileAlone? {
    guard case .integer(let pageSize)? = rows(handle, "PRAGMA page_size")?.first?.first,
      case .integer(let pageCount)? = rows(handle, "PRAGMA page_count")?.first?.first
    else { return nil }
    var alone = FileAlone(pageSize: Int(pageSize), pageCount: UInt32(clamping: pageCount), look: nil)
    guard let metadata = rows(handle, "SELECT Z_UUID, Z_PLIST FROM Z_METADATA ORDER BY Z_VERSION LIMIT 1")?.first else { return alone }
    var look = Look()
    if case .text(let uuid) = metadata[0], !uuid.isEmpty { look.uuid = uuid }
    if case .blob(let plist) = metadata[1] {
      look.hashes = StoreMetadata.decode(plist)?[NSStoreModelVersionHashesKey] as? [String: Data]
    }
    for row in rows(handle, "SELECT Z_ENT, Z_MAX FROM Z_PRIMARYKEY") ?? [] {
      guard case .integer(let entity) = row[0], case .integer(let counter) = row[1] else { continue }
      look.counters[entity] = counter
    }
    look.samples = samples(handle)
    alone.look = look
    return alone
  }

  /// The rows of `sql` on a raw connection; nil when the statement fails.
  private static func rows(_ handle: OpaquePointer, _ sql: String) -> [[SQLValue]]? {
    var statement: OpaquePointer?
    guard sqlite3_prepare_v2(handle, sql, -1, &statement, nil) == SQLITE_OK, let statement else { return nil }
    defer { sqlite3_finalize(statement) }
    var result: [[SQLValue]] = []
    while true {
      let code = sqlite3_step(statement)
      if code == SQLITE_DONE { return result }
      guard code == SQLITE_ROW else { return nil }
      result.append(
        (0..<sqlite3_column_count(statement)).map { column -> SQLValue in
          switch sqlite3_column_type(statement, column) {
          case SQLITE_INTEGER: return .integer(sqlite3_column_int64(statement, column))
          case SQLITE_FLOAT: return .real(sqlite3_column_double(statement, column))
          case SQLITE_TEXT: return .text(sqlite3_column_text(statement, column).map { String(cString: $0) } ?? "")
          case SQLITE_BLOB:
            let count = Int(sqlite3_column_bytes(statement, column))
            guard count > 0, let bytes = sqlite3_column_blob(statement, column) else { return .blob(Data()) }
            return .blob(Data(bytes: bytes, count: count))
          default: return .null
          }
        })
    }
  }

  /// The rows sampled from the file alone in each entity table: the 32 with the lowest keys and the 32 with
  /// the highest. Only the attribute columns are compared: Core Data's own columns (`Z_…`, and `Z<n>…` for an
  /// owner's entity number or key) change as other rows change.
  private static func samples(_ handle: OpaquePointer) -> [Sample] {
    let tables = rows(handle, "SELECT name FROM sqlite_master WHERE type = 'table' AND name LIKE 'Z%'") ?? []
    var samples: [Sample] = []
    for case .text(let table) in tables.compactMap(\.first) {
      let names = (rows(handle, "PRAGMA table_info(\(table.quotedDatabaseIdentifier))") ?? []).compactMap { row -> String? in
        guard row.count > 1, case .text(let name) = row[1] else { return nil }
        return name
      }
      guard names.contains("Z_PK"), names.contains("Z_OPT") else { continue }
      let attributes = names.filter { name in
        !name.hasPrefix("Z_") && !(name.dropFirst().first?.isNumber ?? false)
      }
      let select =
        "SELECT \((["Z_PK", "Z_OPT"] + attributes).map(\.quotedDatabaseIdentifier).joined(separator: ", ")) FROM \(table.quotedDatabaseIdentifier)"
      let sampled =
        (rows(handle, "\(select) ORDER BY Z_PK LIMIT 32") ?? []) + (rows(handle, "\(select) ORDER BY Z_PK DESC LIMIT 32") ?? [])
      samples.append(Sample(table: table, select: select, rows: sampled))
    }
    return samples
  }

  /// The first sampled row that, read through the log, has the version it has alone but other values.
  private static func differingRow(_ samples: [Sample], _ handle: OpaquePointer) -> (table: String, key: Int64)? {
    for sample in samples {
      for row in sample.rows {
        guard case .integer(let key) = row[0],
          let now = rows(handle, "\(sample.select) WHERE Z_PK = \(key)")?.first,
          now[1] == row[1], now != row
        else { continue }
        return (sample.table, key)
      }
    }
    return nil
  }
}
