import Foundation
import GRDB

extension PersistentStore {
  /// Writes one save in one transaction: all of it or (on any error or unresolved conflict) none of it.
  ///
  /// Inserted objects get primary keys from `Z_PRIMARYKEY` and `Z_OPT = 1`; updates and deletes check
  /// the row version they read (`Z_OPT`): a mismatch is a conflict, which the merge policy resolves or
  /// reports (error 133020, listing every conflicting object and key).
  func save(_ request: StoreSaveRequest) throws -> StoreSaveResult {
    guard !options.readOnly else {
      throw ObjectGraphError(
        .persistentStoreSave,
        "The store at \(url?.path ?? "memory") was opened read-only; it cannot be saved to. Add it without the readOnly option to write.",
        url: url)
    }
    do {
      return try database.write { db in try self.write(request, in: db) }
    } catch let error as ObjectGraphError {
      throw error
    } catch let error as DatabaseError {
      throw ObjectGraphError.database(
        .persistentStoreSave, "Saving to the store at \(url?.path ?? "memory") failed and nothing was written", error, url: url)
    }
  }

  private func write(_ request: StoreSaveRequest, in db: Database) throws -> StoreSaveResult {
    var result = StoreSaveResult()
    let inserts = request.inserts
    // 1. Permanent IDs for every inserted object, per root table.
    var primaryKeys = [Int64](repeating: 0, count: inserts.count)
    var byRoot: [Int64: [Int]] = [:]
    result.insertedIDs = inserts.map(\.temporaryID)
    var lastEntity: (entity: EntityDescription, root: Int64)?
    for (index, insert) in inserts.enumerated() {
      if let reserved = insert.temporaryID.primaryKey {
        // Already given a permanent ID by obtainPermanentIDs(for:): its key is reserved.
        primaryKeys[index] = reserved
        continue
      }
      if lastEntity?.entity !== insert.entity {
        lastEntity = (insert.entity, try schema.mapping(for: insert.entity).rootNumber)
      }
      byRoot[lastEntity?.root ?? 0, default: []].append(index)
    }
    for (rootNumber, indexes) in byRoot.sorted(by: { $0.key < $1.key }) {
      let first = try reservePrimaryKeys(indexes.count, rootNumber: rootNumber, db: db)
      for (offset, index) in indexes.enumerated() {
        let primaryKey = first + Int64(offset)
        primaryKeys[index] = primaryKey
        result.insertedIDs[index] = makeID(entity: inserts[index].entity, table: rootNumber, primaryKey: primaryKey)
      }
    }
    /// The primary key a relationship value is written as; a temporary ID this save does not insert names an
    /// object that is not in the store, and writing NULL for it would lose the relationship silently.
    var replaced: [ManagedObjectID: ManagedObjectID]?
    func key(_ id: ManagedObjectID) throws -> Int64 {
      if let pk = id.primaryKey { return pk }
      if replaced == nil { replaced = request.replacedIDs(by: result) }
      if let pk = replaced?[id]?.primaryKey { return pk }
      throw ObjectGraphError(
        .managedObjectReferentialIntegrity,
        "A relationship points to \(id.entity.name) \(id), an object that is neither in the store nor inserted by this save. Insert it in the same context, or save the context that inserted it first. Nothing was written."
      )
    }

    // 2. Inserts: runs of one entity go in multi-row INSERT statements of up to `rowsPerStatement` rows,
    //    which spreads the per-statement cost (preparing, stepping) over many rows. Rows of one entity
    //    are written together, each entity's in insertion order.
    var order = Array(inserts.indices)
    if let first = inserts.first, inserts.contains(where: { $0.entity !== first.entity }) {
      var firstSeen: [ObjectIdentifier: Int] = [:]
      for (index, insert) in inserts.enumerated() where firstSeen[ObjectIdentifier(insert.entity)] == nil {
        firstSeen[ObjectIdentifier(insert.entity)] = index
      }
      order.sort { a, b in
        let (groupA, groupB) = (firstSeen[ObjectIdentifier(inserts[a].entity)] ?? 0, firstSeen[ObjectIdentifier(inserts[b].entity)] ?? 0)
        return groupA != groupB ? groupA < groupB : a < b
      }
    }
    var groupStart = 0
    while groupStart < order.count {
      let entity = inserts[order[groupStart]].entity
      var groupEnd = groupStart + 1
      while groupEnd < order.count && inserts[order[groupEnd]].entity === entity { groupEnd += 1 }
      guard let plan = plans.inserts[ObjectIdentifier(entity)] else {
        throw ObjectGraphError(
          .persistentStoreSave,
          "The store at \(url?.path ?? "memory") has no table for entity \(entity.name), so its new objects cannot be saved there. Nothing was written.",
          url: url)
      }
      var chunkStart = groupStart
      while chunkStart < groupEnd {
        let rows = min(plan.rowsPerStatement, groupEnd - chunkStart)
        let statement = RawStatement(try db.cachedStatement(sql: plan.sql(rows: rows)))
        try statement.reset()
        var parameter: Int32 = 1
        for position in chunkStart..<(chunkStart + rows) {
          let index = order[position]
          try bindInsertRow(plan, primaryKey: primaryKeys[index], values: inserts[index].values, key: key, to: statement, at: &parameter)
        }
        try statement.run()
        chunkStart += rows
      }
      if entity.layout.hasJoinTables {
        let mapping = try schema.mapping(for: entity)
        for position in groupStart..<groupEnd {
          let index = order[position]
          try writeJoins(
            for: result.insertedIDs[index], entity: entity, mapping: mapping, added: inserts[index].values, removed: nil, key: key,
            db: db)
        }
      }
      groupStart = groupEnd
    }

    // 3. Updates, with optimistic locking.
    var conflicts: [MergeConflict] = []
    for update in request.updates {
      guard let pk = update.id.primaryKey else { continue }
      let mapping = try schema.mapping(for: update.entity)
      var changed = update.changed
      var checkVersion = true
      let current = try currentVersion(pk: pk, table: mapping.table, db: db)
      let conflicting = current != nil && current != update.expectedVersion
      switch request.mergePolicy {
      case .error:
        break
      case .mergeByPropertyObjectTrump, .overwrite:
        checkVersion = false
        if request.mergePolicy == .overwrite {
          changed = [:]
          for slot in update.entity.layout.slots where slot.isPersistent { changed[slot.index] = update.allValues[slot.index] }
        }
        // The object takes in the store's other changes: the row is read again after the write (below).
        if conflicting { result.refreshed[update.id] = RowSnapshot(version: 0, values: []) }
      case .mergeByPropertyStoreTrump, .rollback:
        guard conflicting, var stored = try snapshots(for: [update.id], db: db)[update.id] else { break }
        // To-many members are not in the row: read the ones this object changed, to compare.
        for index in changed.keys where stored.values[index].isUnloadedToMany {
          let slot = update.entity.layout.slots[index]
          stored.values[index] = .objectIDs(try relatedIDs(of: [update.id], slot: slot, entity: update.entity, db: db)[update.id] ?? [])
        }
        if request.mergePolicy == .rollback {
          changed = [:]
        } else {
          // Keep only the changes to properties the store did not change since this context read them.
          changed = changed.filter { index, _ in
            StoredValueComparison.isEqual(stored.values[index], update.original[index] ?? nil)
          }
        }
        result.refreshed[update.id] = stored
        checkVersion = false
      }
      var columns: [String] = []
      var values: [DatabaseValue] = []
      try appendColumns(
        of: update.entity, mapping: mapping, slots: Set(changed.keys), values: fullValues(update, changed), key: key,
        into: &columns, &values)
      let assignments = (["Z_OPT = Z_OPT + 1"] + columns.map { "\($0) = ?" }).joined(separator: ", ")
      var sql = "UPDATE \(mapping.table) SET \(assignments) WHERE Z_PK = ?"
      values.append(pk.databaseValue)
      if checkVersion {
        sql += " AND Z_OPT = ?"
        values.append(update.expectedVersion.databaseValue)
      }
      try db.cachedStatement(sql: sql).execute(arguments: StatementArguments(values))
      if db.changesCount == 0 {
        let current = try currentVersion(pk: pk, table: mapping.table, db: db)
        let keys = update.changed.keys.sorted().map { update.entity.layout.slots[$0].name }
        conflicts.append(
          MergeConflict(objectID: update.id, conflictingKeys: keys, oldVersion: update.expectedVersion, newVersion: current ?? 0))
        continue
      }
      result.versions[update.id] = try currentVersion(pk: pk, table: mapping.table, db: db) ?? update.expectedVersion + 1
      if result.refreshed[update.id] != nil, let fresh = try snapshots(for: [update.id], db: db)[update.id] {
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
      }
      try writeJoins(for: update.id, entity: update.entity, mapping: mapping, added: added, removed: removed, key: key, db: db)
    }

    // 4. Deletes, with optimistic locking.
    for delete in request.deletes {
      guard let pk = delete.id.primaryKey else { continue }
      let mapping = try schema.mapping(for: delete.entity)
      // Only the two trump-by-object policies delete a row that changed elsewhere; the others keep it.
      let checksVersion = request.mergePolicy != .mergeByPropertyObjectTrump && request.mergePolicy != .overwrite
      var sql = "DELETE FROM \(mapping.table) WHERE Z_PK = ?"
      var arguments: [DatabaseValue] = [pk.databaseValue]
      if checksVersion {
        sql += " AND Z_OPT = ?"
        arguments.append(delete.expectedVersion.databaseValue)
      }
      try db.cachedStatement(sql: sql).execute(arguments: StatementArguments(arguments))
      if db.changesCount == 0, checksVersion {
        let current = try currentVersion(pk: pk, table: mapping.table, db: db)
        if current != nil {
          if request.mergePolicy == .error {
            conflicts.append(
              MergeConflict(objectID: delete.id, conflictingKeys: [], oldVersion: delete.expectedVersion, newVersion: current ?? 0))
          } else if let stored = try snapshots(for: [delete.id], db: db)[delete.id] {
            // Store trump and rollback: the row changed elsewhere wins; the object is kept, with its values.
            result.refreshed[delete.id] = stored
          }
          continue
        }
      }
      for storage in mapping.storage {
        if case .joinTable(let join, _) = storage, !join.name.isEmpty {
          try db.cachedStatement(sql: "DELETE FROM \(join.name) WHERE \(join.sourceColumn) = ?").execute(arguments: [pk])
        }
      }
    }

    if !conflicts.isEmpty {
      // Throwing rolls the whole transaction back: nothing of this save reaches the file.
      throw ObjectGraphError(
        .managedObjectMerge,
        "Could not save: \(conflicts.count) object(s) changed in the store since this context read them (merge policy: error). Nothing was written. Refresh the objects and try again, or choose another merge policy.\n"
          + conflicts.map { "  - \($0)" }.joined(separator: "\n"),
        conflicts: conflicts)
    }
    return result
  }

  private func fullValues(_ update: StoreSaveRequest.Update, _ changed: [Int: StoredValue]) -> [StoredValue] {
    var values = update.allValues
    for (index, value) in changed { values[index] = value }
    return values
  }

  private func currentVersion(pk: Int64, table: String, db: Database) throws -> Int64? {
    try Int64.fetchOne(db.cachedStatement(sql: "SELECT Z_OPT FROM \(table) WHERE Z_PK = ?"), arguments: [pk])
  }

  /// Appends the column names and values of the given slots (all persistent slots when `slots` is nil).
  private func appendColumns(
    of entity: EntityDescription, mapping: SQLiteSchema.EntityMapping, slots: Set<Int>?, values: [StoredValue],
    key: (ManagedObjectID) throws -> Int64, into columns: inout [String], _ sqlValues: inout [DatabaseValue]
  ) throws {
    for slot in entity.layout.slots where slots?.contains(slot.index) ?? true {
      switch mapping.storage[slot.index] {
      case .column(let column):
        guard case .attribute(let type) = slot.kind else { continue }
        columns.append(column)
        sqlValues.append(SQLiteValueCoding.encode(values[slot.index], as: type))
      case .toOne(let column, let entityColumn):
        let destination = values[slot.index].objectID
        columns.append(column)
        sqlValues.append(try destination.map(key)?.databaseValue ?? .null)
        if let entityColumn {
          columns.append(entityColumn)
          sqlValues.append(destination.flatMap { schema.byIdentity[ObjectIdentifier($0.entity)]?.number }?.databaseValue ?? .null)
        }
      case .foreignKeyOnDestination, .joinTable, .none:
        continue
      }
    }
  }

  /// Adds and removes join-table rows for many-to-many slots. Inverses are kept in step, so both sides of
  /// a pair are in the save; the row is written from the side that owns the join table only.
  private func writeJoins(
    for id: ManagedObjectID, entity: EntityDescription, mapping: SQLiteSchema.EntityMapping, added: [StoredValue],
    removed: [StoredValue]?, key: (ManagedObjectID) throws -> Int64, db: Database
  ) throws {
    let pk = try key(id)
    for slot in entity.layout.slots where slot.isToMany {
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
