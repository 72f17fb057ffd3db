import Foundation
internal import GRDB

extension SaveTransaction {
  /// The values of one constraint, as they are stored, for one object.
  private struct Key: Hashable {
    let declaring: ObjectIdentifier
    let position: Int
    let values: [DatabaseValue]
  }

  /// A row an update of this save gives new values for one constraint.
  private struct MovedRow: Hashable {
    let id: NSManagedObjectID
    let declaring: ObjectIdentifier
    let position: Int
  }

  // MARK: - 1. Uniqueness constraints

  /// Step 1: checks the save against the model's uniqueness constraints, before anything is written: among the
  /// objects being saved (inserted, and updated in a constrained attribute), then against the rows
  /// stored. Under the `error` policy any conflict throws 133021; under the others, an inserted object
  /// whose values another object of the save or a stored row already holds is merged into that one.
  /// Returns `nil` at once (no query, no grouping) when no saved entity has a constraint.
  func resolveUniquenessConstraints() throws -> ConstraintMerges? {
    var byEntity: [ObjectIdentifier: [SQLiteSchema.UniqueConstraint]] = [:]
    func constraints(_ entity: NSEntityDescription) -> [SQLiteSchema.UniqueConstraint] {
      if let known = byEntity[ObjectIdentifier(entity)] { return known }
      let found = store.schema.uniqueConstraints(for: entity)
      byEntity[ObjectIdentifier(entity)] = found
      return found
    }
    var constrained = false
    var last: NSEntityDescription?
    for insert in request.inserts where insert.entity !== last {
      last = insert.entity
      if !constraints(insert.entity).isEmpty { constrained = true }
    }
    last = nil
    for update in request.updates where update.entity !== last {
      last = update.entity
      if !constraints(update.entity).isEmpty { constrained = true }
    }
    guard constrained else { return nil }

    // 1. Group the saved objects by the values of each constraint.
    typealias Member = ConstraintMerges.Survivor
    var groups: [Key: [Member]] = [:]
    var order: [(Key, SQLiteSchema.UniqueConstraint)] = []
    func add(_ member: Member, _ key: Key, _ constraint: SQLiteSchema.UniqueConstraint) {
      if groups[key] == nil { order.append((key, constraint)) }
      groups[key, default: []].append(member)
    }
    for (index, insert) in request.inserts.enumerated() {
      for constraint in constraints(insert.entity) {
        if let key = key(of: insert.values, constraint) { add(.insert(index), key, constraint) }
      }
    }
    // An updated object counts when it changed a constrained attribute; its new values replace its row's.
    var movedRows: [MovedRow: Key?] = [:]
    for (index, update) in request.updates.enumerated() {
      for constraint in constraints(update.entity) where constraint.slots.contains(where: { update.changed[$0] != nil }) {
        let key = key(of: fullValues(update, update.changed), constraint)
        movedRows[MovedRow(id: update.id, declaring: ObjectIdentifier(constraint.declaring), position: constraint.position)] = key
        if let key { add(.update(index), key, constraint) }
      }
    }
    let deletedRows = Set(request.deletes.map(\.id))
    let policy = request.constraintMergePolicy
    let objectWins = policy == .mergeByPropertyObjectTrumpMergePolicyType || policy == .overwriteMergePolicyType
    var merges = ConstraintMerges()
    merges.writesValues = objectWins
    var conflicts: [StoreConstraintConflict] = []

    for (key, constraint) in order {
      let members = groups[key] ?? []
      // 2. Conflicts among the objects being saved.
      var survivor = members[0]
      if members.count > 1 {
        let updates = members.filter { if case .update = $0 { true } else { false } }
        let entities = Set(members.map { ObjectIdentifier(entity(of: $0)) })
        guard policy != .errorMergePolicyType, updates.count <= 1, entities.count == 1 else {
          conflicts.append(try conflict(constraint, key, members, row: nil))
          continue
        }
        survivor = updates.first ?? (objectWins ? members[members.count - 1] : members[0])
        for member in members where member != survivor {
          if case .insert(let index) = member {
            merges.duplicates.append((index, survivor))
            skippedInserts.insert(index)
          }
        }
      }
      // 3. Conflicts with the store.
      let own: NSManagedObjectID? = if case .update(let index) = survivor { request.updates[index].id } else { nil }
      let ignored = { (id: NSManagedObjectID) -> Bool in
        guard id != own, !deletedRows.contains(id) else { return true }
        // A row this save gives other values no longer holds these.
        let moved = movedRows[MovedRow(id: id, declaring: key.declaring, position: key.position)]
        return moved.map { $0 != key } ?? false
      }
      guard let row = try storedRow(constraint, key, ignoring: ignored) else { continue }
      guard policy != .errorMergePolicyType, case .insert(let index) = survivor, row.entity === request.inserts[index].entity else {
        conflicts.append(try conflict(constraint, key, members, row: row))
        continue
      }
      merges.intoRows.append((index, row))
      skippedInserts.insert(index)
    }
    if !conflicts.isEmpty { throw Self.constraintError(conflicts, policy: policy) }
    return merges
  }

  // MARK: - 7. Inserts merged into stored rows

  /// Step 7: writes the inserts merged into stored rows, once every other row is written: under object trump and
  /// overwrite the row takes the inserted object's values (attributes, to-one relationships) and its
  /// to-many members are added; under store trump and rollback the row is left as it is. Either way the
  /// object takes the row as it now stands.
  func writeUpserts(_ merges: ConstraintMerges) throws {
    for (index, row) in merges.intoRows {
      let insert = request.inserts[index]
      guard let pk = row.primaryKey else { continue }
      let mapping = try store.schema.mapping(for: insert.entity)
      if merges.writesValues {
        var columns: [String] = []
        var values: [DatabaseValue] = []
        try appendColumns(of: insert.entity, mapping: mapping, slots: nil, values: insert.values, into: &columns, &values)
        let assignments = ([SQLiteSchema.nextVersion] + columns.map { "\($0) = ?" }).joined(separator: ", ")
        try db.cachedStatement(sql: "UPDATE \(mapping.table) SET \(assignments) WHERE Z_PK = ?")
          .execute(arguments: StatementArguments(values + [pk.databaseValue]))
        if insert.entity.layout.hasJoinTables {
          try writeJoins(for: row, entity: insert.entity, mapping: mapping, added: insert.values, removed: nil)
        }
      }
      if let snapshot = try store.snapshots(for: [row], db: db)[row] { result.refreshed[row] = snapshot }
    }
  }

  // MARK: - Helpers

  private func entity(of member: ConstraintMerges.Survivor) -> NSEntityDescription {
    switch member {
    case .insert(let index): request.inserts[index].entity
    case .update(let index): request.updates[index].entity
    }
  }

  /// The constraint's values as stored; `nil` when one of them is `nil` (SQL's NULLs never repeat). A to-one's
  /// value is its destination's primary key, or, for a destination this save inserts, its ID's URI: text,
  /// which no stored row's key column holds, so such a value repeats only among the saved objects.
  private func key(of values: [StoredValue], _ constraint: SQLiteSchema.UniqueConstraint) -> Key? {
    var encoded: [DatabaseValue] = []
    for (slot, element) in zip(constraint.slots, constraint.elements) {
      let value: DatabaseValue
      switch element {
      case .attribute(let type): value = SQLiteValueCoding.encode(values[slot], as: type)
      case .toOne:
        guard let destination = values[slot].objectID else { return nil }
        value = destination.primaryKey?.databaseValue ?? destination.uriRepresentation().absoluteString.databaseValue
      }
      if value.isNull { return nil }
      encoded.append(value)
    }
    return Key(declaring: ObjectIdentifier(constraint.declaring), position: constraint.position, values: encoded)
  }

  /// A stored row holding the constraint's values, other than the rows `ignoring` names.
  private func storedRow(
    _ constraint: SQLiteSchema.UniqueConstraint, _ key: Key, ignoring: (NSManagedObjectID) -> Bool
  ) throws -> NSManagedObjectID? {
    var sql = "SELECT Z_PK, Z_ENT FROM \(constraint.table) WHERE "
    sql += constraint.columns.map { "\($0) = ?" }.joined(separator: " AND ")
    if let numbers = constraint.entityNumbers { sql += " AND Z_ENT IN (\(numbers.map(String.init).joined(separator: ", ")))" }
    let rows = try Row.fetchAll(db.cachedStatement(sql: sql), arguments: StatementArguments(key.values))
    for row in rows {
      guard let id = store.objectID(pk: row[0], entityNumber: row[1]), !ignoring(id) else { continue }
      return id
    }
    return nil
  }

  private func conflict(
    _ constraint: SQLiteSchema.UniqueConstraint, _ key: Key, _ members: [ConstraintMerges.Survivor], row: NSManagedObjectID?
  ) throws -> StoreConstraintConflict {
    var shared: [String: any Sendable] = [:]
    var ids: [NSManagedObjectID] = []
    var snapshots: [[String: any Sendable]] = []
    for member in members {
      switch member {
      case .insert(let index):
        let insert = request.inserts[index]
        for (name, slot) in zip(constraint.names, constraint.slots) { shared[name] = insert.values[slot]?.swiftValue }
        ids.append(insert.temporaryID)
        snapshots.append([:])
      case .update(let index):
        let update = request.updates[index]
        let values = fullValues(update, update.changed)
        for (name, slot) in zip(constraint.names, constraint.slots) { shared[name] = values[slot]?.swiftValue }
        ids.append(update.id)
        var original = update.allValues
        for (slot, value) in update.original { original[slot] = value }
        snapshots.append(Self.attributes(original, of: update.entity))
      }
    }
    let stored = try row.flatMap { try store.snapshots(for: [$0], db: db)[$0] }
    return StoreConstraintConflict(
      entityName: constraint.declaring.entityName, constraint: constraint.names, constraintValues: shared, databaseObjectID: row,
      databaseSnapshot: row.map { Self.attributes(stored?.values ?? [], of: $0.entity) }, conflictingObjectIDs: ids,
      conflictingSnapshots: snapshots)
  }

  /// An object's attribute values by name (those with a value).
  private static func attributes(_ values: [StoredValue], of entity: NSEntityDescription) -> [String: any Sendable] {
    var result: [String: any Sendable] = [:]
    for slot in entity.layout.slots where slot.index < values.count {
      guard case .attribute = slot.kind, let value = values[slot.index]?.swiftValue else { continue }
      result[slot.name] = value
    }
    return result
  }

  private static func constraintError(_ conflicts: [StoreConstraintConflict], policy: NSMergePolicyType) -> ObjectGraphError {
    let first = conflicts[0]
    let advice =
      policy == .errorMergePolicyType
      ? "Give the objects different values, or set the context's mergePolicy: mergeByPropertyObjectTrump makes the save update the row that has these values with the new ones (an upsert), mergeByPropertyStoreTrump keeps the stored values."
      : "Under merge policy \(policy), objects of different entities, two objects that were already saved, or an object already saved and another stored row are never merged: give them different values."
    return ObjectGraphError(
      .managedObjectConstraintMerge,
      "Could not save: \(conflicts.count) uniqueness constraint conflict(s) (merge policy: \(policy)); the first: entity \(first.entityName), constraint [\(first.constraint.joined(separator: ", "))], values \(first.valuesDescription). Nothing was written. \(advice)\n"
        + conflicts.map { "  - \($0)" }.joined(separator: "\n"),
      constraintConflicts: conflicts)
  }
}
