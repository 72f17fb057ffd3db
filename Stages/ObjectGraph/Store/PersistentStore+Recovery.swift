import Foundation
import GRDB

/// What a process killed at the wrong moment leaves beside or in a store file, and how opening it read-write
/// recovers: SQLite's own recovery for an unfinished transaction, and finishing a store whose creation never
/// committed. A foreign file is never taken for either.
extension PersistentStore {
  /// Whether a rollback journal beside the store holds an unfinished transaction (a "hot" journal: not
  /// empty). Only a connection that may write can roll it back; a read-only one cannot even read the file.
  static func hasHotJournal(url: URL) -> Bool {
    let journal = url.path + "-journal"
    guard let size = (try? FileManager.default.attributesOfItem(atPath: journal))?[.size] as? Int else { return false }
    return size > 0
  }

  /// Rolls back the unfinished transaction of a process that was killed mid-save or mid-migration in a
  /// rollback-journal store, as SQLite does for the first connection that may write: the file becomes what
  /// its last committed transaction left. Does nothing without a hot journal.
  static func rollBackHotJournal(url: URL) throws {
    guard hasHotJournal(url: url) else { return }
    var configuration = Configuration()
    configuration.label = "ObjectGraph.recover"
    configuration.busyMode = .timeout(10)
    do {
      let queue = try DatabaseQueue(path: url.path, configuration: configuration)
      defer { try? queue.close() }
      _ = try queue.read { try Int.fetchOne($0, sql: "SELECT count(*) FROM sqlite_master") }
    } catch let error as DatabaseError {
      throw ObjectGraphError.database(
        .persistentStoreOpen,
        "\(url.path) has an unfinished transaction of a process that stopped in the middle of a save (its -journal file), and rolling it back failed",
        error,
        advice: "Check that the file and its folder are writable; keep the -journal beside the file, it holds what the rollback needs.",
        url: url)
    }
  }

  /// Whether the file is a SQLite database without a single table, as a first launch killed while it created
  /// its store leaves one: 0 bytes, or one page (the journal mode in its header) with the creating
  /// connection's `-wal` or `-journal` still beside it. Looked at only when the file is that small: a store
  /// with tables has at least two pages.
  ///
  /// A one-page file *without* a `-wal` beside it is not taken for one: that is what a store in WAL mode looks
  /// like when it was moved or copied without its `-wal` (which holds its tables and rows), and writing a new
  /// store into it would make that `-wal` useless. It is refused, saying so (``readMetadata(url:)``).
  static func isUnfinishedCreation(url: URL) throws -> Bool {
    guard let size = (try? FileManager.default.attributesOfItem(atPath: url.path))?[.size] as? Int else { return false }
    if size > 0 {
      let journals = ["-wal", "-journal"].filter { FileManager.default.fileExists(atPath: url.path + $0) }
      guard !journals.isEmpty else { return false }
      guard let handle = FileHandle(forReadingAtPath: url.path) else { return false }
      defer { try? handle.close() }
      let header = (try? handle.read(upToCount: 18)) ?? Data()
      guard header.count == 18, header.starts(with: Data("SQLite format 3\u{0}".utf8)) else { return false }
      let raw = Int(header[16]) << 8 | Int(header[17])
      let pageSize = raw == 1 ? 65_536 : raw
      guard size <= pageSize else { return false }
    }
    do {
      return try inspect(url: url) { db in try Int.fetchOne(db, sql: "SELECT count(*) FROM sqlite_master") ?? 0 } == 0
    } catch {
      return false
    }
  }

  /// Creates the store's tables in a file that has none, inside one exclusive transaction that checks again
  /// that it has none (another process may have finished creating it meanwhile: then nothing is written).
  static func finishCreation(url: URL, options: StoreOptions, model: ManagedObjectModel, entities: [EntityDescription]) throws {
    let schema = SQLiteSchema(entities: entities, layout: .coreData)
    let identifier = UUID().uuidString
    var metadata = StoreMetadata.make(type: .sqlite, identifier: identifier, model: model, entities: entities)
    metadata[StoreMetadataKey.fetchIndexNames] = schema.fetchIndexNames
    let database = try makeDatabase(path: url.path, options: options, readOnly: false, url: url, isNewFile: true)
    defer { try? database.close() }
    do {
      try database.writeWithoutTransaction { db in
        try db.inTransaction(.immediate) {
          guard try Int.fetchOne(db, sql: "SELECT count(*) FROM sqlite_master") == 0 else { return .commit }
          try writeSchema(schema, metadata: metadata, identifier: identifier, model: StoreModelCache.contents(of: model), in: db)
          return .commit
        }
      }
    } catch let error as DatabaseError {
      throw ObjectGraphError.database(
        .persistentStoreOpen,
        "\(url.path) is a store whose creation was interrupted (a SQLite file without tables), and finishing it failed", error,
        advice: "Check that the file and its folder are writable.", url: url)
    }
  }
}
