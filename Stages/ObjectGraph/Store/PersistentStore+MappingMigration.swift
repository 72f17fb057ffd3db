import Foundation
internal import GRDB

extension NSPersistentStore {
  /// Migrates the store at `url` with the mapping model `migration` finds, or returns `false` when it finds
  /// none (the file untouched).
  ///
  /// The store's write lock (`BEGIN IMMEDIATE`) is held from the first look at its version hashes until the
  /// migrated contents are committed in their place, so no other connection, in this process or another,
  /// writes between the read the migration starts from and the replacement: a second coordinator opening
  /// the same store waits, then finds it migrated; a writer with the old model waits (and is then refused,
  /// its model no longer matching). The migration writes a new file beside the store, which is copied into
  /// the store table by table inside that same transaction and then removed; a failure anywhere rolls the
  /// transaction back and leaves the store byte for byte as it was.
  static func migrateWithMappingModel(
    _ migration: MappingModelMigration, url: URL, options: StoreOptions, configuration: String?, model: NSManagedObjectModel,
    source found: MigrationSource.Found, sourceHashes: [String: Data]?
  ) throws -> Bool {
    found.model.freeze()
    let migratedURL = url.deletingLastPathComponent().appendingPathComponent(
      ".\(url.lastPathComponent).migrating-\(UUID().uuidString).sqlite")
    defer { for file in files(of: migratedURL) { try? FileManager.default.removeItem(at: file) } }
    // As in an inferred migration, a read-only connection open throughout keeps the writing one from being
    // the last to close, which would fold a `-wal` left by a killed app into the main file on failure.
    let keeper = try inspector(url: url)
    defer { try? keeper.close() }
    let database = try makeDatabase(path: url.path, options: options, readOnly: false, url: url, setsJournalMode: false)
    defer { try? database.close() }
    // Whether the store holds the destination model's contents when this returns, and whether the new
    // file is attached to the connection (to detach once the transaction has ended).
    var migrated = false
    var attached = false
    do {
      try database.writeWithoutTransaction { db in
        defer { if attached { try? db.execute(sql: "DETACH DATABASE migrated") } }
        try db.inMigrationTransaction(.immediate) {
          let current = try StoreMetadata.read(in: db)
          // Another connection migrated the file while this one waited for the lock: nothing left to do.
          if model.hashMatch(configuration: configuration, metadata: current) != nil {
            migrated = true
            return .rollback
          }
          guard current[NSStoreModelVersionHashesKey] as? [String: Data] == sourceHashes else {
            throw migratedElsewhere(url: url, from: found.origin)
          }
          // Under the write lock no other migration of this store runs: a file of one is a killed one's.
          removeStaleMigrationFiles(of: url, keeping: migratedURL)
          let request = MappingModelMigration.Request(
            storeURL: url, migratedStoreURL: migratedURL, sourceModel: found.model, destinationModel: model,
            sourceDescription: found.origin)
          guard try migration.migrate(request) else { return .rollback }
          guard FileManager.default.fileExists(atPath: migratedURL.path) else {
            throw ObjectGraphError(
              .migration,
              "The migration on open of the store at \(url.path) said it migrated the store but wrote nothing at \(migratedURL.path). A MappingModelMigration writes the migrated store at its request's migratedStoreURL. The store was left untouched.",
              url: url)
          }
          try db.execute(sql: "ATTACH DATABASE ? AS migrated", arguments: [migratedURL.path])
          attached = true
          try replaceContents(db, withSchema: "migrated")
          if let previous = current[NSStoreUUIDKey] as? String {
            try StoreMetadata.update(in: db, with: [ObjectGraphMigratedFromStoreUUIDKey: previous], url: url)
          }
          migrated = true
          return .commit
        }
      }
    } catch let error as DatabaseError {
      throw ObjectGraphError.database(
        .migration, "Migrating the store at \(url.path) from \(found.origin) with a mapping model failed", error,
        advice:
          "The migration's result is put in place in one transaction, so the store was left as it was; free disk space (SQLITE_FULL) or fix the cause and open it again.",
        url: url)
    }
    return migrated
  }

  /// Removes what migrations on open of the store at `url` that were killed left beside it (their migrated
  /// files, `.<store>.migrating-<UUID>.sqlite` and its side files), but `keeping`. Called with the store's
  /// write lock held, which every migration on open holds from its first look until its file is removed, so
  /// none of them belongs to a live one.
  private static func removeStaleMigrationFiles(of url: URL, keeping: URL) {
    let folder = url.deletingLastPathComponent()
    let prefix = ".\(url.lastPathComponent).migrating-"
    guard let names = try? FileManager.default.contentsOfDirectory(atPath: folder.path) else { return }
    for name in names where name.hasPrefix(prefix) && !name.hasPrefix(keeping.lastPathComponent) {
      let rest = name.dropFirst(prefix.count)
      guard ["", "-wal", "-shm", "-journal"].contains(where: { rest.hasSuffix(".sqlite" + $0) }) else { continue }
      try? FileManager.default.removeItem(at: folder.appendingPathComponent(name))
    }
  }

  /// Replaces every table, index, trigger and view of the main database of `db` with those of the attached
  /// database `schema`, rows included, inside the caller's transaction.
  private static func replaceContents(_ db: Database, withSchema schema: String) throws {
    let old = try Row.fetchAll(
      db, sql: "SELECT type, name FROM main.sqlite_master WHERE type IN ('table', 'view') AND name NOT LIKE 'sqlite\\_%' ESCAPE '\\'")
    for row in old {
      let type: String = row["type"]
      let name: String = row["name"]
      // IF EXISTS: an R-tree's own tables (`…_node`) went with it.
      try db.execute(sql: "DROP \(type == "view" ? "VIEW" : "TABLE") IF EXISTS main.\(name.quotedDatabaseIdentifier)")
    }
    let new = try Row.fetchAll(
      db,
      sql: """
        SELECT type, name, sql FROM \(schema).sqlite_master
        WHERE sql IS NOT NULL AND name NOT LIKE 'sqlite\\_%' ESCAPE '\\'
        ORDER BY CASE type WHEN 'table' THEN 0 WHEN 'index' THEN 1 WHEN 'view' THEN 2 ELSE 3 END, rowid
        """)
    // Tables and their rows first, then the indexes (built once over all rows), views and triggers.
    let shadows = try rTreeShadowTables(in: db, schema: schema)
    for row in new {
      let type: String = row["type"]
      let name: String = row["name"]
      if shadows.contains(name) { continue }  // made (and filled) with its R-tree
      let sql: String = row["sql"]
      try db.execute(sql: sql)
      if type == "table" {
        try db.execute(sql: "INSERT INTO main.\(name.quotedDatabaseIdentifier) SELECT * FROM \(schema).\(name.quotedDatabaseIdentifier)")
      }
    }
    let hasSequence = { (database: String) in
      try Bool.fetchOne(db, sql: "SELECT COUNT(*) > 0 FROM \(database).sqlite_master WHERE name = 'sqlite_sequence'") ?? false
    }
    if try hasSequence("main"), try hasSequence(schema) {
      try db.execute(sql: "DELETE FROM main.sqlite_sequence")
      try db.execute(sql: "INSERT INTO main.sqlite_sequence SELECT * FROM \(schema).sqlite_sequence")
    }
    for pragma in ["user_version", "application_id"] {
      let value = try Int.fetchOne(db, sql: "PRAGMA \(schema).\(pragma)") ?? 0
      try db.execute(sql: "PRAGMA main.\(pragma) = \(value)")
    }
  }
}
