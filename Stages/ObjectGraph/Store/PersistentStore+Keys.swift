import Foundation
import GRDB

extension PersistentStore {
  /// Reserves `count` primary keys of the table of root entity `rootNumber` in `Z_PRIMARYKEY`, inside
  /// the caller's transaction, and returns the first; the others follow it. Every key the store hands out
  /// (a save's inserts, `obtainPermanentIDs(for:)`) comes from here, so none is handed out twice.
  func reservePrimaryKeys(_ count: Int, rootNumber: Int64, db: Database) throws -> Int64 {
    let max = try Int64.fetchOne(db.cachedStatement(sql: "SELECT Z_MAX FROM Z_PRIMARYKEY WHERE Z_ENT = ?"), arguments: [rootNumber]) ?? 0
    let (last, overflow) = max.addingReportingOverflow(Int64(count))
    guard !overflow, max >= 0 else {
      let table = schema.entityByNumber[rootNumber].map { "Z" + SQLiteSchema.sqlName($0.name) } ?? "entity \(rootNumber)"
      throw ObjectGraphError(
        .persistentStoreSave,
        "The store at \(url.storePath) cannot hand out \(count) more primary key(s) for \(table): its counter (Z_PRIMARYKEY.Z_MAX) is \(max), at the end of SQLite's 64-bit range. Nothing was written. The counter was set outside Core Data; copy the objects into a new store.",
        url: url)
    }
    try db.cachedStatement(sql: "UPDATE Z_PRIMARYKEY SET Z_MAX = ? WHERE Z_ENT = ?").execute(arguments: [last, rootNumber])
    return max + 1
  }

  /// Permanent IDs for new objects of `entities`, in the same order, inside the caller's transaction:
  /// one block of keys per root table, so a save of 100,000 objects runs one statement pair per table.
  func reservePermanentIDs(for entities: some Collection<EntityDescription>, db: Database) throws -> [ManagedObjectID] {
    var roots: [Int64] = []
    roots.reserveCapacity(entities.count)
    var counts: [Int64: Int] = [:]
    var last: (entity: EntityDescription, root: Int64)?
    for entity in entities {
      if last?.entity !== entity { last = (entity, try schema.mapping(for: entity).rootNumber) }
      let root = last?.root ?? 0
      roots.append(root)
      counts[root, default: 0] += 1
    }
    var next: [Int64: Int64] = [:]
    for (root, count) in counts.sorted(by: { $0.key < $1.key }) {
      next[root] = try reservePrimaryKeys(count, rootNumber: root, db: db)
    }
    var ids: [ManagedObjectID] = []
    ids.reserveCapacity(roots.count)
    for (entity, root) in zip(entities, roots) {
      let key = next[root] ?? 0
      next[root] = key + 1
      ids.append(makeID(entity: entity, table: root, primaryKey: key))
    }
    return ids
  }

  /// The same in a transaction of its own, for `obtainPermanentIDs(for:)`: a later save writes each row
  /// under its ID.
  func reservePermanentIDs(for entities: [EntityDescription]) throws -> [ManagedObjectID] {
    do {
      return try database.write { db in
        try refuseWritesIfModelChanged(db)
        return try reservePermanentIDs(for: entities, db: db)
      }
    } catch let error as DatabaseError {
      throw ObjectGraphError.database(
        .persistentStoreSave, "Could not reserve permanent IDs for \(Set(entities.map(\.name)).sorted().joined(separator: ", "))",
        error, url: url)
    }
  }

  /// Closes the store's connection (when its coordinator removes it). Later requests to it fail. A store
  /// opened read-only then removes the journal files its connection made (``SideFiles``).
  func close() {
    try? database.close()
    sideFiles?.removeNewOnes()
  }
}
