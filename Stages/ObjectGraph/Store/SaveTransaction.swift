import Foundation
internal import GRDB

/// One save, written in one SQLite transaction, in the steps `run()` takes, numbered as the comments
/// below number them:
///
/// 1. check uniqueness constraints (`SaveTransaction+Constraints.swift`), before anything is written;
/// 2. reserve primary keys for the inserts;
/// 3. give inserts that constraints merged into another object that object's ID;
/// 4. delete, then 5. update (resolving conflicts by the merge policy): deletes and updates go first so a
///    row that gives up a constrained value in this save frees it for a new row;
/// 6. insert;
/// 7. write the inserts merged into stored rows (upserts, `SaveTransaction+Constraints.swift`);
/// 8. write the positions of ordered to-many members, once every row is in place;
/// 9. refuse the whole save if conflicts remain under the `error` policy;
/// 10. record the save's changes for persistent history, when the store tracks it.
///
/// Throwing from any step rolls the transaction back.
final class SaveTransaction {
  let store: NSPersistentStore
  let request: StoreSaveRequest
  let db: Database
  var result = StoreSaveResult()
  /// The primary key of each insert, in the request's order.
  var primaryKeys: [Int64]
  /// Conflicts left for the `error` policy to report.
  var conflicts: [StoreMergeConflict] = []
  /// Inserts that get no row of their own (uniqueness constraints merged them into another object's row).
  var skippedInserts: Set<Int> = []
  /// Temporary ID -> the permanent ID this save gave it, made the first time a relationship needs it.
  private var replaced: [NSManagedObjectID: NSManagedObjectID]?
  /// Ordered to-many slots whose members' positions this save writes, once every row is in place.
  private var orders: [(id: NSManagedObjectID, entity: NSEntityDescription, slot: Int, members: [NSManagedObjectID])] = []
  /// The tombstones of the rows this save deletes, read before they go (``HistoryTombstone``).
  private var tombstones: [NSManagedObjectID: Data] = [:]
  /// Members of inverse-less to-manys kept in a column of the destination's row (a Core Data store's
  /// `Z<n><NAME>`), written once every row of the save is there: removals first, then additions.
  private var ownerColumnWrites: [(table: String, column: String, member: NSManagedObjectID, owner: Int64, adds: Bool)] = []

  init(store: NSPersistentStore, request: StoreSaveRequest, db: Database) {
    self.store = store
    self.request = request
    self.db = db
    primaryKeys = [Int64](repeating: 0, count: request.inserts.count)
    result.insertedIDs = request.inserts.map(\.temporaryID)
  }

  func run() throws -> StoreSaveResult {
    let merges = try resolveUniquenessConstraints()  // 1
    try reservePrimaryKeys()  // 2
    merges?.assignIDs(to: self)  // 3
    try readTombstones()  // 3b
    for delete in request.deletes { try write(delete) }  // 4
    for update in request.updates { try write(update) }  // 5
    try writeInserts()  // 6
    if let merges { try writeUpserts(merges) }  // 7
    try writeOwnerColumns()  // 7b
    try writeOrders()  // 8
    try refuseUnresolvedConflicts()  // 9
    if store.storeOptions.persistentHistoryTracking {  // 10
      try store.recordHistory(historyEntries(), author: request.author, contextName: request.contextName, db: db)
    }
    return result
  }

  /// Step 3b: with history tracked, the values each deleted row leaves behind (its entity's attributes marked
  /// `preservesValueInHistoryOnDeletion`), read from the rows before step 4 deletes them.
  private func readTombstones() throws {
    guard store.storeOptions.persistentHistoryTracking, !request.deletes.isEmpty else { return }
    // Each entity's preserved attributes are looked up once, not once per deleted object.
    for deletes in Dictionary(grouping: request.deletes, by: { ObjectIdentifier($0.entity) }).values {
      guard let entity = deletes.first?.entity else { continue }
      tombstones.merge(try HistoryTombstone.read(deletes.map(\.id), of: entity, from: store, db: db)) { $1 }
    }
  }

  /// Step 10: what this save changed, for persistent history: each row inserted, updated (with the properties it
  /// changed) or deleted. A delete a merge policy undid is left out.
  private func historyEntries() -> [StoreHistoryEntry] {
    func number(_ entity: NSEntityDescription) -> Int64 { store.schema.byIdentity[ObjectIdentifier(entity)]?.number ?? 0 }
    var entries: [StoreHistoryEntry] = []
    for (index, insert) in request.inserts.enumerated() where !skippedInserts.contains(index) {
      entries.append(StoreHistoryEntry(kind: .insert, entityNumber: number(insert.entity), primaryKey: primaryKeys[index], properties: nil))
    }
    for update in request.updates {
      guard let pk = update.id.primaryKey else { continue }
      let names = update.changed.keys.sorted().map { update.entity.layout.slots[$0].name }
      entries.append(StoreHistoryEntry(kind: .update, entityNumber: number(update.entity), primaryKey: pk, properties: names))
    }
    for delete in request.deletes where result.refreshed[delete.id] == nil {
      guard let pk = delete.id.primaryKey else { continue }
      entries.append(
        StoreHistoryEntry(
          kind: .delete, entityNumber: number(delete.entity), primaryKey: pk, properties: nil, tombstone: tombstones[delete.id]))
    }
    return entries
  }

  /// The primary key a relationship value is written as. A temporary ID this save does not insert names
  /// an object that is not in the store, and writing NULL for it would lose the relationship silently.
  func key(_ id: NSManagedObjectID) throws -> Int64 {
    if let pk = id.primaryKey { return pk }
    if replaced == nil { replaced = request.replacedIDs(by: result) }
    if let pk = replaced?[id]?.primaryKey { return pk }
    throw ObjectGraphError(
      .managedObjectReferentialIntegrity,
      "A relationship points to \(id.entity.entityName) \(id), an object that is neither in the store nor inserted by this save. Insert it in the same context, or save the context that inserted it first. Nothing was written."
    )
  }

  // MARK: - 2. Primary keys

  /// Step 2: a permanent ID for every inserted object, reserved per root table in one statement pair.
  private func reservePrimaryKeys() throws {
    let inserts = request.inserts
    var pending: [Int] = []
    for (index, insert) in inserts.enumerated() where skippedInserts.isEmpty || !skippedInserts.contains(index) {
      if let reserved = insert.temporaryID.primaryKey {
        // Already given a permanent ID by obtainPermanentIDs(for:): its key is reserved.
        primaryKeys[index] = reserved
      } else {
        pending.append(index)
      }
    }
    let ids = try store.reservePermanentIDs(for: pending.lazy.map { inserts[$0].entity }, db: db)
    for (index, id) in zip(pending, ids) {
      primaryKeys[index] = id.primaryKey ?? 0
      result.insertedIDs[index] = id
    }
  }

  // MARK: - 4. Deletes

  /// Step 4: one deleted row (and its join-table rows), with optimistic locking.
  private func write(_ delete: StoreSaveRequest.Delete) throws {
    guard let pk = delete.id.primaryKey else { return }
    let mapping = try store.schema.mapping(for: delete.entity)
    // Only the two trump-by-object policies delete a row that changed elsewhere; the others keep it.
    let checksVersion =
      request.mergePolicy != .mergeByPropertyObjectTrumpMergePolicyType && request.mergePolicy != .overwriteMergePolicyType
    var sql = "DELETE FROM \(mapping.table) WHERE Z_PK = ?"
    var arguments: [DatabaseValue] = [pk.databaseValue]
    if checksVersion {
      sql += " AND Z_OPT = ?"
      arguments.append(delete.expectedVersion.databaseValue)
    }
    try db.cachedStatement(sql: sql).execute(arguments: StatementArguments(arguments))
    if db.changesCount == 0, checksVersion, let current = try currentVersion(pk: pk, table: mapping.table) {
      if request.mergePolicy == .errorMergePolicyType {
        conflicts.append(
          StoreMergeConflict(objectID: delete.id, conflictingKeys: [], oldVersion: delete.expectedVersion, newVersion: current))
      } else if let stored = try store.snapshots(for: [delete.id], db: db)[delete.id] {
        // Store trump and rollback: the row changed elsewhere wins; the object is kept, with its values.
        result.refreshed[delete.id] = stored
      }
      return
    }
    for (slot, storage) in zip(mapping.entity.layout.slots, mapping.storage) {
      switch storage {
      case .joinTable(let join, _) where !join.name.isEmpty:
        try db.cachedStatement(sql: "DELETE FROM \(join.name) WHERE \(join.sourceColumn) = ?").execute(arguments: [pk])
      case .foreignKeyOnDestination(let column, _) where slot.relationship?.inverseRelationship == nil:
        guard let destination = slot.relationship?.destinationEntity else { continue }
        let table = try store.schema.mapping(for: destination).table
        try db.cachedStatement(sql: "UPDATE \(table) SET \(column) = NULL WHERE \(column) = ?").execute(arguments: [pk])
      default:
        continue
      }
    }
  }

  // MARK: - 5. Updates

  /// Step 5: one updated row, with optimistic locking: the row is written only at the version the context
  /// read, unless the merge policy decided otherwise.
  private func write(_ update: StoreSaveRequest.Update) throws {
    guard let pk = update.id.primaryKey else { return }
    let mapping = try store.schema.mapping(for: update.entity)
    let current = try currentVersion(pk: pk, table: mapping.table)
    let (changed, checkVersion) = try resolve(update, conflicting: current != nil && current != update.expectedVersion)
    var columns: [String] = []
    var values: [DatabaseValue] = []
    try appendColumns(
      of: update.entity, mapping: mapping, slots: Set(changed.keys), values: fullValues(update, changed), into: &columns, &values)
    let assignments = ([SQLiteSchema.nextVersion] + columns.map { "\($0) = ?" }).joined(separator: ", ")
    var sql = "UPDATE \(mapping.table) SET \(assignments) WHERE Z_PK = ?"
    values.append(pk.databaseValue)
    if checkVersion {
      sql += " AND Z_OPT = ?"
      values.append(update.expectedVersion.databaseValue)
    }
    try db.cachedStatement(sql: sql).execute(arguments: StatementArguments(values))
    if db.changesCount == 0 {
      let current = try currentVersion(pk: pk, table: mapping.table)
      let keys = update.changed.keys.sorted().map { update.entity.layout.slots[$0].name }
      conflicts.append(
        StoreMergeConflict(objectID: update.id, conflictingKeys: keys, oldVersion: update.expectedVersion, newVersion: current ?? 0))
      return
    }
    result.versions[update.id] =
      try currentVersion(pk: pk, table: mapping.table) ?? (update.expectedVersion < Int64.max ? update.expectedVersion + 1 : 1)
    if result.refreshed[update.id] != nil, let fresh = try store.snapshots(for: [update.id], db: db)[update.id] {
      result.refreshed[update.id] = fresh
    }
    var added: [StoredValue] = update.allValues
    var removed: [StoredValue] = Array(repeating: nil, count: added.count)
    for slot in update.entity.layout.slots where slot.isToMany {
      guard changed[slot.index] != nil else {
        added[slot.index] = nil
        continue
      }
      let now = update.allValues[slot.index].objectIDs ?? []
      let before = (update.original[slot.index] ?? nil).objectIDs ?? []
      added[slot.index] = .objectIDs(now.subtracting(before))
      removed[slot.index] = .objectIDs(before.subtracting(now))
      if slot.isOrdered, slot.isPersistent, let members = update.allValues[slot.index].memberList {
        orders.append((update.id, update.entity, slot.index, members))
      }
    }
    try writeJoins(for: update.id, entity: update.entity, mapping: mapping, added: added, removed: removed)
  }

  /// What the merge policy makes of an update: the slots to write, and whether the write still checks
  /// the row version. Under `error` nothing changes (a changed row is reported as a conflict); the other
  /// policies write without the check, and record the rows whose stored values the object must take.
  private func resolve(_ update: StoreSaveRequest.Update, conflicting: Bool) throws -> (changed: [Int: StoredValue], checkVersion: Bool) {
    var changed = update.changed
    switch request.mergePolicy {
    case .errorMergePolicyType:
      return (changed, true)
    case .mergeByPropertyObjectTrumpMergePolicyType, .overwriteMergePolicyType:
      if request.mergePolicy == .overwriteMergePolicyType {
        changed = [:]
        for slot in update.entity.layout.slots where slot.isPersistent { changed[slot.index] = update.allValues[slot.index] }
      }
      // The object takes in the store's other changes: the row is read again after the write.
      if conflicting { result.refreshed[update.id] = RowSnapshot(version: 0, values: []) }
      return (changed, false)
    case .mergeByPropertyStoreTrumpMergePolicyType, .rollbackMergePolicyType:
      guard conflicting, var stored = try store.snapshots(for: [update.id], db: db)[update.id] else { return (changed, false) }
      // To-many members are not in the row: read the ones this object changed, to compare.
      for index in changed.keys where stored.values[index].isUnloadedToMany {
        let slot = update.entity.layout.slots[index]
        stored.values[index] = slot.toManyValue(
          try store.relatedIDs(of: [update.id], slot: slot, entity: update.entity, db: db)[update.id] ?? [])
      }
      if request.mergePolicy == .rollbackMergePolicyType {
        changed = [:]
      } else {
        // Keep only the changes to properties the store did not change since this context read them.
        changed = changed.filter { index, _ in
          StoredValueComparison.isEqual(stored.values[index], update.original[index] ?? nil)
        }
      }
      result.refreshed[update.id] = stored
      return (changed, false)
    }
  }

  // MARK: - 6. Inserts

  /// Step 6: the inserted rows. Runs of one entity go in multi-row INSERT statements of up to
  /// `rowsPerStatement` rows, which spreads the per-statement cost (preparing, stepping) over many rows.
  /// Rows of one entity are written together, each entity's in insertion order.
  private func writeInserts() throws {
    let inserts = request.inserts
    let order = insertOrder()
    var groupStart = 0
    while groupStart < order.count {
      let entity = inserts[order[groupStart]].entity
      var groupEnd = groupStart + 1
      while groupEnd < order.count && inserts[order[groupEnd]].entity === entity { groupEnd += 1 }
      guard let plan = store.plans.inserts[ObjectIdentifier(entity)] else {
        throw ObjectGraphError(
          .persistentStoreSave,
          "The store at \(store.url.storePath) has no table for entity \(entity.entityName), so its new objects cannot be saved there. Nothing was written.",
          url: store.url)
      }
      try store.insertRows(plan, count: groupEnd - groupStart, db: db, key: key) { offset in
        let index = order[groupStart + offset]
        return (primaryKeys[index], inserts[index].values)
      }
      if entity.layout.hasJoinTables {
        let mapping = try store.schema.mapping(for: entity)
        for position in groupStart..<groupEnd {
          let index = order[position]
          try writeJoins(for: result.insertedIDs[index], entity: entity, mapping: mapping, added: inserts[index].values, removed: nil)
        }
      }
      for slot in entity.layout.orderedIndexes {
        for position in groupStart..<groupEnd {
          let index = order[position]
          guard let members = inserts[index].values[slot].memberList, !members.isEmpty else { continue }
          orders.append((result.insertedIDs[index], entity, slot, members))
        }
      }
      groupStart = groupEnd
    }
  }

  /// The inserts' indexes grouped by entity (in the order each entity first appears), each group in
  /// insertion order. A save of one entity keeps the request's order as it is.
  private func insertOrder() -> [Int] {
    let inserts = request.inserts
    var order = Array(inserts.indices)
    if !skippedInserts.isEmpty { order.removeAll { skippedInserts.contains($0) } }
    guard let first = order.first.map({ inserts[$0] }), order.contains(where: { inserts[$0].entity !== first.entity }) else {
      return order
    }
    var firstSeen: [ObjectIdentifier: Int] = [:]
    for index in order where firstSeen[ObjectIdentifier(inserts[index].entity)] == nil {
      firstSeen[ObjectIdentifier(inserts[index].entity)] = index
    }
    order.sort { a, b in
      let (groupA, groupB) = (firstSeen[ObjectIdentifier(inserts[a].entity)] ?? 0, firstSeen[ObjectIdentifier(inserts[b].entity)] ?? 0)
      return groupA != groupB ? groupA < groupB : a < b
    }
    return order
  }

  /// Step 7b: the owners of inverse-less to-manys that a Core Data store keeps on the destination's row
  /// (`Z<n><NAME>`, "Files Core Data wrote"): a member removed is cleared where this owner still holds it,
  /// then each member added gets its owner. A member belongs to one owner at a time, as in Core Data.
  private func writeOwnerColumns() throws {
    for write in ownerColumnWrites.filter({ !$0.adds }) {
      guard let member = try? key(write.member) else { continue }
      try db.cachedStatement(sql: "UPDATE \(write.table) SET \(write.column) = NULL WHERE Z_PK = ? AND \(write.column) = ?")
        .execute(arguments: [member, write.owner])
    }
    for write in ownerColumnWrites where write.adds {
      try db.cachedStatement(sql: "UPDATE \(write.table) SET \(write.column) = ? WHERE Z_PK = ?").execute(arguments: [
        write.owner, try key(write.member),
      ])
    }
  }

  // MARK: - 8. Ordered to-many relationships

  /// Step 8: the positions of the members of each ordered to-many this save wrote, 1024, 2048, … in
  /// order, in the ordering column (`Z_FOK_…`) of the destination's row or of the join-table row. Every
  /// member is written again: a reorder or an insertion in the middle rewrites the list, as the positions
  /// carry no gaps to fill. A member's row that another owner holds by now (it moved) is left alone.
  private func writeOrders() throws {
    for order in orders {
      let mapping = try store.schema.mapping(for: order.entity)
      let slot = order.entity.layout.slots[order.slot]
      let pk = try key(order.id)
      let sql: String
      switch mapping.storage[order.slot] {
      case .foreignKeyOnDestination(let column, let orderColumn?):
        guard let destination = slot.relationship?.destinationEntity else { continue }
        let table = try store.schema.mapping(for: destination).table
        sql = "UPDATE \(table) SET \(orderColumn) = ? WHERE Z_PK = ? AND \(column) = ?"
      case .joinTable(let join, _) where !join.name.isEmpty:
        guard let orderColumn = join.destinationOrderColumn else { continue }
        sql = "UPDATE \(join.name) SET \(orderColumn) = ? WHERE \(join.destinationColumn) = ? AND \(join.sourceColumn) = ?"
      default:
        continue
      }
      let statement = try db.cachedStatement(sql: sql)
      for (position, member) in order.members.enumerated() {
        try statement.execute(arguments: [Int64(position + 1) * 1024, try key(member), pk])
      }
    }
  }

  // MARK: - 9. Conflicts

  /// Step 9: under the `error` policy, any conflict refuses the whole save. Throwing rolls the
  /// transaction back: nothing of this save reaches the file.
  private func refuseUnresolvedConflicts() throws {
    guard !conflicts.isEmpty else { return }
    throw ObjectGraphError.optimisticLockingFailure(conflicts)
  }

  // MARK: - Rows and columns

  func fullValues(_ update: StoreSaveRequest.Update, _ changed: [Int: StoredValue]) -> [StoredValue] {
    var values = update.allValues
    for (index, value) in changed { values[index] = value }
    return values
  }

  func currentVersion(pk: Int64, table: String) throws -> Int64? {
    try Int64.fetchOne(db.cachedStatement(sql: "SELECT Z_OPT FROM \(table) WHERE Z_PK = ?"), arguments: [pk])
  }

  /// Appends the column names and values of the given slots (all persistent slots when `slots` is nil).
  func appendColumns(
    of entity: NSEntityDescription, mapping: SQLiteSchema.EntityTable, slots: Set<Int>?, values: [StoredValue],
    into columns: inout [String], _ sqlValues: inout [DatabaseValue]
  ) throws {
    for slot in entity.layout.slots where slots?.contains(slot.index) ?? true {
      switch mapping.storage[slot.index] {
      case .column(let column):
        guard case .attribute(let type) = slot.kind else { continue }
        columns.append(column)
        sqlValues.append(store.schema.columnValue(values[slot.index], of: slot, type: type))
      case .toOne(let column, let entityColumn):
        let destination = values[slot.index].objectID
        columns.append(column)
        sqlValues.append(try destination.map(key)?.databaseValue ?? .null)
        if let entityColumn {
          columns.append(entityColumn)
          sqlValues.append(destination.flatMap { store.schema.byIdentity[ObjectIdentifier($0.entity)]?.number }?.databaseValue ?? .null)
        }
      case .foreignKeyOnDestination, .joinTable, .none:
        continue
      }
    }
  }

  /// Adds and removes join-table rows for many-to-many slots. Inverses are kept in step, so both sides of
  /// a pair are in the save; the row is written from the side that owns the join table only.
  func writeJoins(
    for id: NSManagedObjectID, entity: NSEntityDescription, mapping: SQLiteSchema.EntityTable, added: [StoredValue],
    removed: [StoredValue]?
  ) throws {
    let pk = try key(id)
    for slot in entity.layout.slots where slot.isToMany {
      if case .foreignKeyOnDestination(let column, _) = mapping.storage[slot.index], slot.relationship?.inverseRelationship == nil,
        let destination = slot.relationship?.destinationEntity
      {
        // No inverse to-one writes this column: the owner's side does, once every row is there.
        let table = try store.schema.mapping(for: destination).table
        for member in (removed?[slot.index] ?? nil).objectIDs ?? [] {
          ownerColumnWrites.append((table, column, member, pk, false))
        }
        for member in added[slot.index].objectIDs ?? [] { ownerColumnWrites.append((table, column, member, pk, true)) }
        continue
      }
      guard case .joinTable(let join, let isOwner) = mapping.storage[slot.index], isOwner, !join.name.isEmpty else {
        continue
      }
      for member in added[slot.index].objectIDs ?? [] {
        let memberPK = try key(member)
        try db.cachedStatement(sql: "INSERT OR IGNORE INTO \(join.name) (\(join.sourceColumn), \(join.destinationColumn)) VALUES (?, ?)")
          .execute(arguments: [pk, memberPK])
      }
      for member in (removed?[slot.index] ?? nil).objectIDs ?? [] {
        guard let memberPK = try? key(member) else { continue }
        try db.cachedStatement(sql: "DELETE FROM \(join.name) WHERE \(join.sourceColumn) = ? AND \(join.destinationColumn) = ?")
          .execute(arguments: [pk, memberPK])
      }
    }
  }
}
