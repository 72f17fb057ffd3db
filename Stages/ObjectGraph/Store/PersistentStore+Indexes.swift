import Foundation
import GRDB

extension PersistentStore {
  /// Brings a store's fetch indexes in line with the model's, when the store is opened read-write.
  ///
  /// Fetch indexes are not part of an entity's version hash (Core Data documents this), so a model that
  /// only adds, removes or changes an index opens the store without a migration; Core Data then updates
  /// the store's indexes, and so does this: it creates the indexes the model has and the file lacks, drops
  /// the fetch indexes the model no longer has, and replaces one whose definition changed. A store whose
  /// indexes already match is only read.
  static func reconcileFetchIndexes(in database: DatabaseQueue, schema: SQLiteSchema, url: URL?) throws {
    let wanted = Dictionary(
      schema.fetchIndexStatements().compactMap { statement in SQLiteSchema.indexName(in: statement).map { ($0, statement) } },
      uniquingKeysWith: { first, _ in first })
    do {
      let existing = try database.read { db in
        try Row.fetchAll(db, sql: "SELECT name, sql FROM sqlite_master WHERE type = 'index' AND sql IS NOT NULL")
          .reduce(into: [String: String]()) { result, row in result[row["name"]] = row["sql"] }
      }
      let stale = existing.filter { SQLiteSchema.isFetchIndexName($0.key) && wanted[$0.key] != $0.value }.keys.sorted()
      let missing = wanted.filter { existing[$0.key] != $0.value }.sorted { $0.key < $1.key }
      guard !stale.isEmpty || !missing.isEmpty else { return }
      try database.write { db in
        for name in stale { try db.execute(sql: "DROP INDEX \(name)") }
        for (_, statement) in missing { try db.execute(sql: statement) }
      }
    } catch let error as DatabaseError {
      throw ObjectGraphError.database(
        .persistentStoreOpen, "Updating the fetch indexes of the store at \(url?.path ?? "memory") failed", error,
        advice: "The store was left as it was; check that the file is writable.", url: url)
    }
  }
}
