import Foundation
internal import GRDB

extension NSPersistentStore {
  /// Refuses a write when the store's model changed since this store was opened: another process (or
  /// another coordinator of this one) migrated the file to another model version. Called first inside every
  /// write transaction, so nothing is written.
  ///
  /// A coordinator keeps the entity numbers, tables and columns of the model it opened the store with; after
  /// a migration those may name other things (the new model can renumber entities), and a save would file rows
  /// under another entity or reuse keys the migration handed out. Checking costs one `PRAGMA schema_version`
  /// (SQLite's counter of schema changes, which every migration moves) per write; only when it moved is the
  /// metadata read and its version hashes compared with this store's model. A change that keeps the hashes
  /// (an index another coordinator added) lets the write go on.
  func refuseWritesIfModelChanged(_ db: Database) throws {
    // A custom store's database is its own, in memory: no other process or coordinator migrates it.
    guard url != nil, !isCustom else { return }
    let version = try Int.fetchOne(db.cachedStatement(sql: "PRAGMA schema_version")) ?? 0
    if schemaVersion.withLock({ $0 }) == version { return }
    let metadata = try StoreMetadata.read(in: db)
    guard model.hashMatch(configuration: configurationName, metadata: metadata) != nil else {
      throw ObjectGraphError(
        .persistentStoreIncompatibleVersionHash,
        "The store at \(url.storePath) was migrated to another version of the model after this coordinator opened it (by another process or another coordinator): its entity version hashes no longer match this coordinator's model. Nothing was written. Restart with the model version the store now has (remove the store and add it again with that model).",
        url: url, userInfo: ["metadata": metadata as [String: Any]])
    }
    schemaVersion.withLock { $0 = version }
  }

  /// Notes the file's schema version once the store is open, for ``refuseWritesIfModelChanged(_:)``.
  /// The hashes are checked again in the same read: another process may have migrated the file between the
  /// open's first look and now, and a version noted then would let this coordinator write into it.
  func recordSchemaVersion() throws {
    guard url != nil else { return }
    let (version, metadata): (Int, [String: any Sendable])
    do {
      (version, metadata) = try database.read { db in
        (
          try Int.fetchOne(db, sql: "PRAGMA schema_version") ?? 0,
          try StoreMetadata.read(in: db)
        )
      }
    } catch let error as DatabaseError {
      throw ObjectGraphError.database(
        .persistentStoreOpen, "Reading back the store at \(url.storePath) after opening it failed", error, url: url)
    }
    guard model.hashMatch(configuration: configurationName, metadata: metadata) != nil else {
      throw ObjectGraphError(
        .persistentStoreIncompatibleVersionHash,
        "The store at \(url.storePath) was migrated to another version of the model by another process while this coordinator opened it. Nothing was written. Add the store again with the model version it now has.",
        url: url, userInfo: ["metadata": metadata as [String: Any]])
    }
    schemaVersion.withLock { $0 = version }
  }
}
