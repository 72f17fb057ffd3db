import Foundation
internal import GRDB

/// What a process killed at the wrong moment leaves beside or in a store file, and how opening it read-write
/// recovers: SQLite's own recovery for an unfinished transaction, and finishing a store whose creation never
/// committed. A foreign file is never taken for either.
extension NSPersistentStore {
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
    } catch let error as DatabaseError where error.resultCode == .SQLITE_BUSY {
      // A live writer (another process in the middle of a save or a migration), not a killed one.
      throw ObjectGraphError.database(.persistentStoreOpen, "Cannot open \(url.path): another connection is writing it", error, url: url)
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
  /// its store leaves one: 0 bytes, or a file in rollback-journal mode without tables (the engine makes a store's
  /// tables in rollback mode and turns on WAL after they are committed). A WAL-mode file without tables is
  /// never taken for one: that is what a store looks like when it was moved or copied without its `-wal`
  /// (which holds its tables and rows), and writing a new store into it would make that `-wal` useless
  /// (``readMetadata(url:)`` refuses it, saying so). The file is read through SQLite only: opening and closing
  /// it any other way would drop the locks SQLite holds on it for this process's connections.
  static func isUnfinishedCreation(url: URL) throws -> Bool {
    guard let size = (try? FileManager.default.attributesOfItem(atPath: url.path))?[.size] as? Int else { return false }
    // A store with tables is not looked at twice: the engine's tables alone take more than this.
    guard size <= 1_048_576 else { return false }
    do {
      let look = try inspect(url: url) { db in
        (
          tables: try Int.fetchOne(db, sql: "SELECT count(*) FROM sqlite_master") ?? 0,
          mode: try String.fetchOne(db, sql: "PRAGMA journal_mode")?.lowercased() ?? ""
        )
      }
      return look.tables == 0 && (size == 0 || (look.mode != "wal" && !SideFiles.opensImmutable(url)))
    } catch {
      return false
    }
  }

  /// Creates the store's tables in a file that has none, inside one exclusive transaction that checks again
  /// that it has none (another process may have finished creating it meanwhile: then nothing is written).
  static func finishCreation(url: URL, options: StoreOptions, model: NSManagedObjectModel, entities: [NSEntityDescription]) throws {
    let schema = SQLiteSchema(entities: entities, layout: .coreData)
    let identifier = UUID().uuidString
    var metadata = StoreMetadata.make(type: .sqlite, identifier: identifier, model: model, entities: entities)
    metadata[ObjectGraphFetchIndexNamesKey] = try schema.fetchIndexNames
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

extension NSPersistentStore {
  /// Makes `Z_PRIMARYKEY` hand out keys past every row, when a store is opened read-write: a row missing for
  /// one of the model's entities is added, and a table's counter behind its highest `Z_PK` (the table emptied
  /// or edited by hand, a tool that inserted rows without counting them) is raised to it. Counters are never
  /// lowered; a store whose counters are right is only read (one `MAX(Z_PK)` per table).
  static func repairPrimaryKeys(in db: Database, schema: SQLiteSchema, url: URL?) throws {
    let rows = schema.primaryKeyRows()
    do {
      let needed = try { () throws -> [(number: Int64, name: String, superNumber: Int64, maximum: Int64?)] in
        // Read as SQLite values: a row edited by hand (text, NULL) is a counter to repair, never a trap.
        let stored = Dictionary(
          try Row.fetchAll(db, sql: "SELECT Z_ENT, Z_MAX FROM Z_PRIMARYKEY").compactMap { row -> (Int64, Int64)? in
            guard let number = Int64.fromDatabaseValue(row["Z_ENT"]) else { return nil }
            return (number, Int64.fromDatabaseValue(row["Z_MAX"]) ?? -1)
          },
          uniquingKeysWith: { first, _ in first })
        var repairs: [(number: Int64, name: String, superNumber: Int64, maximum: Int64?)] = []
        for row in rows {
          guard let entity = schema.entityByNumber[row.number], let mapping = schema.byIdentity[ObjectIdentifier(entity)] else { continue }
          let isRoot = mapping.rootNumber == row.number
          let highest = isRoot ? (try Int64.fetchOne(db, sql: "SELECT MAX(Z_PK) FROM \(mapping.table)") ?? 0) : 0
          switch stored[row.number] {
          case nil: repairs.append((row.number, row.name, row.superNumber, highest))
          case let counter? where isRoot && counter < highest: repairs.append((row.number, row.name, row.superNumber, highest))
          default: continue
          }
        }
        return repairs
      }()
      for repair in needed {
        try db.execute(
          sql:
            "INSERT INTO Z_PRIMARYKEY (Z_ENT, Z_NAME, Z_SUPER, Z_MAX) VALUES (?, ?, ?, ?) ON CONFLICT(Z_ENT) DO UPDATE SET Z_MAX = "
            // A counter that is not an integer (NULL, text, a blob: edited by hand) is replaced: SQLite's MAX
            // keeps text or NULL over any number, which would leave it unrepaired for good.
            + "CASE WHEN typeof(Z_MAX) = 'integer' THEN MAX(Z_MAX, excluded.Z_MAX) ELSE excluded.Z_MAX END",
          arguments: [repair.number, repair.name, repair.superNumber, repair.maximum ?? 0])
      }
    } catch let error as DatabaseError {
      throw ObjectGraphError.database(
        .persistentStoreOpen,
        "The store at \(url.storePath) lacks primary-key counters (Z_PRIMARYKEY) for some of its tables, and repairing them failed",
        error, advice: "Check that the file is writable; the rows themselves were not touched.", url: url)
    }
  }
}
