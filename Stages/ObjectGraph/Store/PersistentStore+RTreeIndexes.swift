import Foundation
internal import GRDB

extension NSPersistentStore {
  /// Brings a store's R-tree fetch indexes (``SQLiteSchema/RTreeIndex``) in line with the model's, inside the
  /// caller's transaction: when a store is made, and when one is opened read-write (as the other fetch
  /// indexes, without a migration).
  ///
  /// - an index whose table is missing is created, its triggers too, and filled from the rows already there;
  /// - a table whose columns differ from the index's (an element added, removed, reordered, or renamed) is
  ///   dropped with its triggers and made again;
  /// - a table that is right but lacks one of its triggers (a migration rebuilt the entity's table, dropping
  ///   them) gets them back and is filled again, since rows may have changed meanwhile;
  /// - an R-tree table named for one of the model's entities (`Z_<Entity>_…`) that the model no longer wants
  ///   is dropped with its triggers: it would only slow every write down;
  /// - a table that is right with its three triggers is left as it is, whoever made it: Core Data's own
  ///   (whose update trigger fires on any change of a row, not only of the indexed columns) is kept.
  ///
  /// - Throws: `persistentStoreOpen` naming the index when the SQLite library has no R*Tree module, or when
  ///   the statements fail.
  static func reconcileRTreeIndexes(in db: Database, schema: SQLiteSchema, url: URL?) throws {
    let wanted = schema.rTreeIndexes
    let existing = try rTreeTables(in: db)
    let wantedNames = Set(wanted.map { $0.name.uppercased() })
    let prefixes = schema.entities.keys.map { ("Z_" + $0 + "_").uppercased() }
    var current: SQLiteSchema.RTreeIndex?
    do {
      for name in existing.sorted()
      where !wantedNames.contains(name.uppercased()) && prefixes.contains(where: { name.uppercased().hasPrefix($0) }) {
        try dropRTree(named: name, in: db)
      }
      for index in wanted {
        current = index
        let present = existing.contains { $0.uppercased() == index.name.uppercased() }
        if present {
          let columns = try Row.fetchAll(db, sql: "PRAGMA table_info(\(index.name.quotedDatabaseIdentifier))").map { row -> String in
            (String.fromDatabaseValue(row["name"]) ?? "").uppercased()
          }
          if columns == index.tableColumns.map({ $0.uppercased() }) {
            let triggers = Set(
              try String.fetchAll(
                db, sql: "SELECT upper(name) FROM sqlite_master WHERE type = 'trigger' AND upper(tbl_name) = ?",
                arguments: [index.table.uppercased()]))
            if index.triggerNames.allSatisfy({ triggers.contains($0.uppercased()) }) { continue }
            for statement in index.triggerStatements { try db.execute(sql: statement) }
            try db.execute(sql: "DELETE FROM \(index.name)")
            try db.execute(sql: index.fillStatement)
            continue
          }
          try dropRTree(named: index.name, in: db)
        }
        try db.execute(sql: index.createStatement)
        for statement in index.triggerStatements { try db.execute(sql: statement) }
        try db.execute(sql: index.fillStatement)
      }
    } catch let error as DatabaseError {
      let place = current.map { "the R-tree fetch index '\($0.indexName)' of entity '\($0.entityName)'" } ?? "an R-tree fetch index"
      if (error.message ?? "").contains("no such module") {
        throw ObjectGraphError(
          .persistentStoreOpen,
          "The store at \(url.storePath) cannot keep \(place): the SQLite library this program uses was built without its R*Tree module (SQLITE_ENABLE_RTREE). Use a SQLite library with R*Tree (Apple's and most Linux distributions' have it), or make the index's elements Binary ones.",
          underlyingError: error)
      }
      throw ObjectGraphError.database(
        .persistentStoreOpen, "Updating \(place) in the store at \(url.storePath) failed", error,
        advice: "The store was left as it was; check that the file is writable.", url: url)
    }
  }

  /// The names of the file's R*Tree virtual tables (their `_node`, `_rowid` and `_parent` tables are SQLite's).
  static func rTreeTables(in db: Database) throws -> [String] {
    try String.fetchAll(
      db,
      sql: "SELECT name FROM sqlite_master WHERE type = 'table' AND upper(sql) LIKE 'CREATE VIRTUAL TABLE%USING RTREE%'")
  }

  /// The names of the tables SQLite keeps for the file's R*Tree virtual tables (`<table>_node`, `_rowid`,
  /// `_parent`): dropped and made with their virtual table, never written directly.
  static func rTreeShadowTables(in db: Database, schema: String = "main") throws -> Set<String> {
    let tables = try String.fetchAll(
      db,
      sql:
        "SELECT name FROM \(schema).sqlite_master WHERE type = 'table' AND upper(sql) LIKE 'CREATE VIRTUAL TABLE%USING RTREE%'")
    return Set(tables.flatMap { name in ["_node", "_rowid", "_parent"].map { name + $0 } })
  }

  /// The statements that drop every R-tree fetch index of the file (tables and triggers) before a
  /// migration changes the entities' tables: a trigger naming a column would make SQLite refuse to drop or
  /// rename it. Opening the migrated store makes the model's R-tree indexes again
  /// (``reconcileRTreeIndexes(in:schema:url:)``), filled from the migrated rows.
  static func rTreeDropStatements(in db: Database) throws -> [String] {
    try rTreeTables(in: db).sorted().flatMap { name in
      ["_INSERT", "_UPDATE", "_DELETE"].map { "DROP TRIGGER IF EXISTS \((name + $0).quotedDatabaseIdentifier)" }
        + ["DROP TABLE IF EXISTS \(name.quotedDatabaseIdentifier)"]
    }
  }

  private static func dropRTree(named name: String, in db: Database) throws {
    for suffix in ["_INSERT", "_UPDATE", "_DELETE"] {
      try db.execute(sql: "DROP TRIGGER IF EXISTS \((name + suffix).quotedDatabaseIdentifier)")
    }
    try db.execute(sql: "DROP TABLE IF EXISTS \(name.quotedDatabaseIdentifier)")
  }
}
