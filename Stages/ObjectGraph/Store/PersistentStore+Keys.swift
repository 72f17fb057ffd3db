import Foundation
internal import GRDB

extension NSPersistentStore {
  /// Reserves `count` primary keys of the table of root entity `rootNumber` in `Z_PRIMARYKEY`, inside
  /// the caller's transaction, and returns the first; the others follow it. Every key the store hands out
  /// (a save's inserts, `obtainPermanentIDs(for:)`) comes from here, so none is handed out twice.
  func reservePrimaryKeys(_ count: Int, rootNumber: Int64, db: Database) throws -> Int64 {
    let max = try Int64.fetchOne(db.cachedStatement(sql: "SELECT Z_MAX FROM Z_PRIMARYKEY WHERE Z_ENT = ?"), arguments: [rootNumber]) ?? 0
    let (last, overflow) = max.addingReportingOverflow(Int64(count))
    guard !overflow, max >= 0 else {
      let table = schema.entityByNumber[rootNumber].map { "Z" + SQLiteSchema.sqlName($0.entityName) } ?? "entity \(rootNumber)"
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
  ///
  /// The entities are taken in runs of one entity (a save's inserts usually come entity by entity): the
  /// table is found once per run, and the keys are counted per table without a dictionary per object.
  func reservePermanentIDs(for entities: some Collection<NSEntityDescription>, db: Database) throws -> [NSManagedObjectID] {
    // Runs of one entity, in order, and how many keys each root table needs.
    var runs: [(entity: NSEntityDescription, root: Int64, count: Int)] = []
    var counts: [(root: Int64, count: Int)] = []
    for entity in entities {
      if let last = runs.last, last.entity === entity {
        runs[runs.count - 1].count += 1
        continue
      }
      let root = try schema.mapping(for: entity).rootNumber
      runs.append((entity, root, 1))
    }
    for run in runs {
      if let index = counts.firstIndex(where: { $0.root == run.root }) {
        counts[index].count += run.count
      } else {
        counts.append((run.root, run.count))
      }
    }
    // Reserved table by table in the order of their numbers, as before: the same keys for the same save.
    counts.sort { $0.root < $1.root }
    var next: [(root: Int64, key: Int64)] = []
    next.reserveCapacity(counts.count)
    for (root, count) in counts { next.append((root, try reservePrimaryKeys(count, rootNumber: root, db: db))) }
    var ids: [NSManagedObjectID] = []
    ids.reserveCapacity(entities.count)
    for run in runs {
      guard let index = next.firstIndex(where: { $0.root == run.root }) else { continue }
      let first = next[index].key
      for offset in 0..<Int64(run.count) {
        ids.append(makeID(entity: run.entity, table: run.root, primaryKey: first + offset))
      }
      // Wrapping: the key after the last one reserved is never used, and is past Int64.max when the last is it.
      next[index].key = first &+ Int64(run.count)
    }
    return ids
  }

  /// The same in a transaction of its own, for `obtainPermanentIDs(for:)`: a later save writes each row
  /// under its ID.
  func reservePermanentIDs(for entities: some Collection<NSEntityDescription>) throws -> [NSManagedObjectID] {
    do {
      return try database.write { db in
        try refuseWritesIfModelChanged(db)
        return try reservePermanentIDs(for: entities, db: db)
      }
    } catch let error as DatabaseError {
      throw ObjectGraphError.database(
        .persistentStoreSave, "Could not reserve permanent IDs for \(Set(entities.map(\.entityName)).sorted().joined(separator: ", "))",
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
