import Foundation
internal import GRDB

extension NSPersistentStore {
  /// Throws ``NSPersistentStoreSaveError`` when the store was opened read-only, saying
  /// what could not be done (`consequence`, as in "a batch request cannot change it").
  func refuseWritesIfReadOnly(_ consequence: String) throws {
    guard storeOptions.readOnly else {
      guard markedReadOnly.withLock({ $0 }) else { return }
      throw ObjectGraphError(
        .persistentStoreSave,
        "The store at \(url.storePath) was made read-only (isReadOnly = true); \(consequence). Set isReadOnly back to false to write.",
        url: url)
    }
    if let readOnlyReason {
      throw ObjectGraphError(
        .persistentStoreSave, "The store at \(url.storePath) was opened read-only: \(readOnlyReason); \(consequence).", url: url)
    }
    throw ObjectGraphError(
      .persistentStoreSave,
      "The store at \(url.storePath) was opened read-only; \(consequence). Add it without the readOnly option to write.",
      url: url)
  }

  /// Runs a batch update or delete in one transaction: the rows are chosen (by predicate or ID), then
  /// changed or deleted in SQL, without reading their values.
  ///
  /// A request by predicate is one statement, `UPDATE … WHERE …` (with `RETURNING` the
  /// rows' keys only when the caller wants IDs or the store records history), as is a delete by predicate
  /// of rows whose entities have no relationships (no delete rule to apply; a delete of every row of a
  /// table then has no `WHERE` at all, which SQLite carries out without visiting the rows). Requests by
  /// ID, and deletes that must apply delete rules, choose the rows first and then change them.
  ///
  /// - Throws: ``NSPersistentStoreSaveError`` for a read-only store or a failed write,
  ///   ``NSValidationRelationshipDeniedDeleteError`` when a Deny rule refuses a delete,
  ///   the predicate's errors. Nothing is changed when it throws.
  func executeBatch(_ request: StoreBatchRequest) throws -> StoreBatchResult {
    try refuseWritesIfReadOnly("a batch request cannot change it")
    try refuseBatchIfAtomic()
    do {
      return try database.write { db in
        try refuseWritesIfModelChanged(db)
        let mapping = try schema.mapping(for: request.entity)
        let needsRows = request.needsIDs || storeOptions.persistentHistoryTracking
        func result(_ count: Int, _ rows: [(pk: Int64, entity: Int64)]) -> StoreBatchResult {
          StoreBatchResult(count: count, ids: request.needsIDs ? rows.compactMap { objectID(pk: $0.pk, entityNumber: $0.entity) } : [])
        }
        switch request.action {
        case .update(let values):
          let assignments = try batchAssignments(values, computed: request.computed, mapping: mapping)
          let count: Int
          let targets: [(pk: Int64, entity: Int64)]
          if request.ids == nil {
            (count, targets) = try changeRows(
              "UPDATE \(mapping.table) AS t0 SET \(assignments.sql)", assignments.arguments, request, mapping: mapping,
              returning: needsRows, db: db)
          } else {
            targets = try batchTargets(request, mapping: mapping, db: db)
            try batchUpdate(targets.map(\.pk), assignments: assignments, mapping: mapping, db: db)
            count = targets.count
          }
          if storeOptions.persistentHistoryTracking {
            let names = Set(values.keys).union(request.computed.keys).sorted().map { mapping.entity.layout.slots[$0].name }
            try recordHistory(
              targets.map { StoreHistoryEntry(kind: .update, entityNumber: $0.entity, primaryKey: $0.pk, properties: names) },
              author: request.author, contextName: request.contextName, db: db)
          }
          return result(count, targets)
        case .delete
        where request.ids == nil && !hasRelationships(mapping, includesSubentities: request.includesSubentities)
          && !(storeOptions.persistentHistoryTracking && hasTombstones(mapping, includesSubentities: request.includesSubentities)):
          let (count, targets) = try changeRows(
            "DELETE FROM \(mapping.table) AS t0", [], request, mapping: mapping, returning: needsRows, db: db)
          try recordHistory(
            targets.map { StoreHistoryEntry(kind: .delete, entityNumber: $0.entity, primaryKey: $0.pk, properties: nil) },
            author: request.author, contextName: request.contextName, db: db)
          return result(count, targets)
        case .delete:
          var deletion = BatchDeletion(store: self, db: db)
          deletion.readsTombstones = storeOptions.persistentHistoryTracking
          try deletion.delete(try batchTargets(request, mapping: mapping, db: db))
          try recordHistory(
            deletion.deleted.compactMap { id in
              id.primaryKey.map {
                StoreHistoryEntry(
                  kind: .delete, entityNumber: schema.byIdentity[ObjectIdentifier(id.entity)]?.number ?? 0, primaryKey: $0,
                  properties: nil, tombstone: deletion.tombstones[id])
              }
            }, author: request.author, contextName: request.contextName, db: db)
          return StoreBatchResult(ids: deletion.deleted)
        }
      }
    } catch let error as ObjectGraphError {
      throw error
    } catch let error as DatabaseError {
      throw ObjectGraphError.database(
        .persistentStoreSave, "A batch request on the store at \(url.storePath) failed and nothing was changed", error,
        url: url)
    }
  }

  /// A batch insert of rows of one entity that has no uniqueness constraint (the save path checks
  /// those): one block of primary keys, then multi-row INSERTs, in one transaction. Returns the rows' IDs
  /// when `makeIDs`, in the rows' order.
  func batchInsert(
    _ entity: NSEntityDescription, rows: [[StoredValue]], makeIDs: Bool, author: String? = nil, contextName: String? = nil
  ) throws -> [NSManagedObjectID] {
    try refuseWritesIfReadOnly("a batch request cannot change it")
    let mapping = try schema.mapping(for: entity)
    guard let plan = plans.inserts[ObjectIdentifier(entity)] else {
      throw ObjectGraphError(
        .persistentStoreSave, "The store at \(url.storePath) has no table for entity \(entity.entityName). Nothing was inserted.",
        url: url)
    }
    let first: Int64
    do {
      first = try database.write { db in
        try refuseWritesIfModelChanged(db)
        let first = try reservePrimaryKeys(rows.count, rootNumber: mapping.rootNumber, db: db)
        try insertRows(plan, count: rows.count, db: db, key: { $0.primaryKey ?? 0 }) { (first + Int64($0), rows[$0]) }
        if storeOptions.persistentHistoryTracking {
          try recordHistory(
            (0..<rows.count).map {
              StoreHistoryEntry(kind: .insert, entityNumber: mapping.number, primaryKey: first + Int64($0), properties: nil)
            }, author: author, contextName: contextName, db: db)
        }
        return first
      }
    } catch let error as ObjectGraphError {
      throw error
    } catch let error as DatabaseError {
      throw ObjectGraphError.database(
        .persistentStoreSave, "A batch insert into the store at \(url.storePath) failed and nothing was inserted", error,
        url: url)
    }
    guard makeIDs else { return [] }
    return (0..<rows.count).map { makeID(entity: entity, table: mapping.rootNumber, primaryKey: first + Int64($0)) }
  }

  /// Whether rows of `entity` must be checked against uniqueness constraints.
  func hasUniquenessConstraints(_ entity: NSEntityDescription) -> Bool {
    !schema.uniqueConstraints(for: entity).isEmpty
  }

  /// Whether a row a batch delete may reach has a stored relationship, whose delete rule (or join-table
  /// rows) the delete must apply.
  private func hasRelationships(_ mapping: SQLiteSchema.EntityTable, includesSubentities: Bool) -> Bool {
    reached(mapping, includesSubentities).contains { entity in entity.layout.slots.contains { $0.isRelationship && !$0.isTransient } }
  }

  /// Whether a row a batch delete may reach keeps values in its tombstone (attributes marked
  /// `preservesValueInHistoryOnDeletion`), which must be read before the row goes.
  private func hasTombstones(_ mapping: SQLiteSchema.EntityTable, includesSubentities: Bool) -> Bool {
    reached(mapping, includesSubentities).contains { !HistoryTombstone.preservedAttributes(of: $0).isEmpty }
  }

  /// The entities whose rows a batch request on `mapping`'s table may reach.
  private func reached(_ mapping: SQLiteSchema.EntityTable, _ includesSubentities: Bool) -> [NSEntityDescription] {
    includesSubentities ? mapping.entity.selfAndDescendants : [mapping.entity]
  }

  /// Runs `statement` (an `UPDATE … AS t0 SET …` or a `DELETE FROM … AS t0` of the entity's table) on the
  /// rows a batch request's predicate chooses, in one statement; returns how many rows it changed and, when
  /// `returning`, which (in key order).
  ///
  /// A predicate that needs no join (key paths through to-ones do) becomes the statement's own `WHERE`, so
  /// SQLite changes the rows as it finds them, with any index the condition can use; one with joins chooses
  /// the keys in a subquery (`WHERE Z_PK IN (SELECT …)`), as `UPDATE` and `DELETE` take no join.
  private func changeRows(
    _ statement: String, _ arguments: [DatabaseValue], _ request: StoreBatchRequest, mapping: SQLiteSchema.EntityTable,
    returning: Bool, db: Database
  ) throws -> (count: Int, rows: [(pk: Int64, entity: Int64)]) {
    var conditions = entityConditions(mapping, includesSubentities: request.includesSubentities)
    var compiler = SQLPredicateCompiler(schema: schema, mapping: mapping)
    if let predicate = request.predicate { conditions.append(try compiler.compile(predicate)) }
    var sql = statement
    if compiler.joinClause.isEmpty {
      sql += Self.whereClause(conditions)
    } else {
      sql += " WHERE t0.Z_PK IN (SELECT t0.Z_PK FROM \(mapping.table) t0\(compiler.joinClause)\(Self.whereClause(conditions)))"
    }
    let allArguments = StatementArguments(arguments + compiler.arguments)
    guard returning else {
      try db.execute(sql: sql, arguments: allArguments)
      return (db.changesCount, [])
    }
    var rows: [(pk: Int64, entity: Int64)] = []
    let cursor = try Row.fetchCursor(db, sql: sql + " RETURNING Z_PK, Z_ENT", arguments: allArguments)
    while let row = try cursor.next() { rows.append((row[0], row[1])) }
    rows.sort { $0.pk < $1.pk }
    return (rows.count, rows)
  }

  /// The rows a batch request names: its IDs (those of this store and entity), or the rows its predicate
  /// matches.
  private func batchTargets(_ request: StoreBatchRequest, mapping: SQLiteSchema.EntityTable, db: Database) throws
    -> [(pk: Int64, entity: Int64)]
  {
    var conditions = entityConditions(mapping, includesSubentities: request.includesSubentities)
    var targets: [(pk: Int64, entity: Int64)] = []
    if let ids = request.ids {
      let keys = ids.compactMap(\.primaryKey)
      for chunk in stride(from: 0, to: keys.count, by: 500) {
        let slice = Array(keys[chunk..<min(chunk + 500, keys.count)])
        let placeholders = Array(repeating: "?", count: slice.count).joined(separator: ", ")
        let sql =
          "SELECT t0.Z_PK, t0.Z_ENT FROM \(mapping.table) t0" + Self.whereClause(conditions + ["t0.Z_PK IN (\(placeholders))"])
        let rows = try Row.fetchCursor(db, sql: sql, arguments: StatementArguments(slice))
        while let row = try rows.next() { targets.append((row[0], row[1])) }
      }
      return targets
    }
    var compiler = SQLPredicateCompiler(schema: schema, mapping: mapping)
    if let predicate = request.predicate { conditions.append(try compiler.compile(predicate)) }
    let sql = "SELECT t0.Z_PK, t0.Z_ENT FROM \(mapping.table) t0" + compiler.joinClause + Self.whereClause(conditions)
    let rows = try Row.fetchCursor(db, sql: sql + " ORDER BY t0.Z_PK", arguments: StatementArguments(compiler.arguments))
    while let row = try rows.next() { targets.append((row[0], row[1])) }
    return targets
  }

  /// `column = ?, …` and the version's count up (``SQLiteSchema/nextVersion``) for the given attribute slots, and
  /// their values: a batch update's assignments, raising each row's version. A computed slot's SQL reads the row
  /// (as `t0`) before the update, as every right-hand side of one `UPDATE` does.
  /// - Throws: ``ObjectGraphUnsupportedFeatureError`` for an expression that reads through a relationship,
  ///   ``ObjectGraphInvalidValueError`` for one whose result the attribute cannot hold, the predicate
  ///   compiler's errors for the rest.
  private func batchAssignments(
    _ values: [Int: StoredValue], computed: [Int: PredicateExpression], mapping: SQLiteSchema.EntityTable
  ) throws -> (sql: String, arguments: [DatabaseValue]) {
    var assignments: [String] = []
    var arguments: [DatabaseValue] = []
    for (slot, value) in values.sorted(by: { $0.key < $1.key }) {
      guard case .column(let column) = mapping.storage[slot], let type = mapping.entity.layout.slots[slot].attribute?.attributeType
      else { continue }
      assignments.append("\(column) = ?")
      arguments.append(schema.columnValue(value, of: mapping.entity.layout.slots[slot], type: type))
    }
    if !computed.isEmpty {
      var compiler = SQLPredicateCompiler(schema: schema, mapping: mapping)
      for (slot, expression) in computed.sorted(by: { $0.key < $1.key }) {
        let attribute = mapping.entity.layout.slots[slot]
        guard case .column(let column) = mapping.storage[slot], let type = attribute.attribute?.attributeType else { continue }
        let sql = try compiler.computedValue(expression, for: attribute.name, of: type)
        guard compiler.joinClause.isEmpty else {
          throw ObjectGraphError(
            .unsupportedFeature,
            "The batch update computes \(mapping.entity.entityName).\(attribute.name) with an expression that reads through a relationship; an UPDATE reads the row itself only. Use the row's own attributes, or fetch the objects and set the values. Nothing was changed."
          )
        }
        assignments.append("\(column) = \(sql)")
      }
      arguments += compiler.arguments
    }
    assignments.append(SQLiteSchema.nextVersion)
    return (assignments.joined(separator: ", "), arguments)
  }

  /// Applies a batch update's assignments to the rows with the given keys.
  private func batchUpdate(
    _ keys: [Int64], assignments: (sql: String, arguments: [DatabaseValue]), mapping: SQLiteSchema.EntityTable, db: Database
  ) throws {
    for chunk in stride(from: 0, to: keys.count, by: 500) {
      let slice = keys[chunk..<min(chunk + 500, keys.count)]
      let placeholders = Array(repeating: "?", count: slice.count).joined(separator: ", ")
      try db.execute(
        sql: "UPDATE \(mapping.table) AS t0 SET \(assignments.sql) WHERE Z_PK IN (\(placeholders))",
        arguments: StatementArguments(assignments.arguments + slice.map(\.databaseValue)))
    }
  }
}
