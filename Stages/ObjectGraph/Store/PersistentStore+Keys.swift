import Foundation
import GRDB

extension PersistentStore {
  /// Reserves `count` primary keys of the table of root entity `rootNumber` in `Z_PRIMARYKEY`, inside
  /// the caller's transaction, and returns the first; the others follow it. Every key the store hands out
  /// (a save's inserts, `obtainPermanentIDs(for:)`) comes from here, so none is handed out twice.
  func reservePrimaryKeys(_ count: Int, rootNumber: Int64, db: Database) throws -> Int64 {
    let max = try Int64.fetchOne(db.cachedStatement(sql: "SELECT Z_MAX FROM Z_PRIMARYKEY WHERE Z_ENT = ?"), arguments: [rootNumber]) ?? 0
    try db.cachedStatement(sql: "UPDATE Z_PRIMARYKEY SET Z_MAX = ? WHERE Z_ENT = ?").execute(arguments: [max + Int64(count), rootNumber])
    return max + 1
  }

  /// Reserves the next primary key of `entity`'s table, in a transaction of its own, and returns the
  /// permanent ID it makes (for `obtainPermanentIDs(for:)`; a later save writes the row under it).
  func reservePrimaryKey(for entity: EntityDescription) throws -> ManagedObjectID {
    guard let rootNumber = schema.entities[entity.rootEntity.name]?.number else {
      throw ObjectGraphError(.noPersistentStore, "Store \(identifier) does not hold entity \(entity.name).")
    }
    do {
      let pk = try database.write { db in try reservePrimaryKeys(1, rootNumber: rootNumber, db: db) }
      return makeID(entity: entity, primaryKey: pk)
    } catch let error as DatabaseError {
      throw ObjectGraphError.database(.persistentStoreSave, "Could not reserve a permanent ID for \(entity.name)", error, url: url)
    }
  }

  /// Closes the store's connection (when its coordinator removes it). Later requests to it fail.
  func close() {
    try? database.close()
  }
}
