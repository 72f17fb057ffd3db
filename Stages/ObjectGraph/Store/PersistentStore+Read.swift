import Foundation
internal import GRDB

extension NSPersistentStore {
  /// The columns read for an entity's table, in `SELECT` order, and where each slot's value sits.
  struct RowReader {
    /// The table's columns after the three every table has (`, t0.ZNAME, …`, or empty).
    let columnList: String
    let columnIndexByName: [String: Int]

    /// `Z_PK, Z_ENT, Z_OPT` and then the columns.
    var selectList: String { "t0.Z_PK, t0.Z_ENT, t0.Z_OPT" + columnList }

    /// The same with the entity number given as the constant `entityNumber`, for a table that holds one
    /// entity only: SQLite then computes it once per statement instead of reading it from every row.
    func selectList(entityNumber: Int64) -> String { "t0.Z_PK, \(entityNumber) AS Z_ENT, t0.Z_OPT" + columnList }
  }

  func rowReader(table: String) -> RowReader {
    plans.readers[table] ?? RowReader(columnList: "", columnIndexByName: [:])
  }

  /// Makes the ID of the row `pk` of an entity numbered `entityNumber`.
  func objectID(pk: Int64, entityNumber: Int64) -> NSManagedObjectID? {
    guard let plan = plans.decodePlan(entityNumber: entityNumber) else { return nil }
    return makeID(entity: plan.entity, table: plan.rootNumber, primaryKey: pk)
  }

  /// Reads objects matching a fetch plan. Here and below, `snapshot` is the query generation's view of the
  /// store to read (``StoreSnapshot``); `nil` reads the store as it is now.
  func fetch(_ plan: StoreFetchPlan, in snapshot: StoreSnapshot? = nil) throws -> [FetchedRow] {
    var rows: [FetchedRow] = []
    try fetch(plan, in: snapshot) { rows.append($0) }
    return rows
  }

  /// Reads objects matching a fetch plan, handing each row to `body` as it is read.
  func fetch(_ plan: StoreFetchPlan, in snapshot: StoreSnapshot? = nil, each body: (FetchedRow) -> Void) throws {
    if isCustom, let rows = try answeredFetch(plan) {
      for row in rows { body(row) }
      return
    }
    let mapping = try schema.mapping(for: plan.entity)
    var compiler = SQLPredicateCompiler(schema: schema, mapping: mapping)
    var conditions = entityConditions(mapping, includesSubentities: plan.includesSubentities)
    if let predicate = plan.predicate { conditions.append(try compiler.compile(predicate)) }
    let order = try compiler.orderBy(plan.sortDescriptors)
    let reader = rowReader(table: mapping.table)
    let columns = plan.idsOnly ? RowReader(columnList: "", columnIndexByName: [:]) : reader
    let selectList =
      plans.tablesOfOneEntity.contains(mapping.table) ? columns.selectList(entityNumber: mapping.number) : columns.selectList
    var sql = "SELECT \(selectList) FROM \(mapping.table) t0"
    sql += compiler.joinClause + Self.whereClause(conditions)
    sql += " ORDER BY " + (order.isEmpty ? "t0.Z_PK" : order + ", t0.Z_PK")
    sql += Self.limitClause(plan)
    let arguments = compiler.arguments
    try read(in: snapshot) { db in
      if plan.idsOnly {
        try forEachRow(db, sql: sql, arguments: arguments) { row in
          guard let id = objectID(pk: row.int64(0), entityNumber: row.int64(1)) else { return }
          body(FetchedRow(id: id, snapshot: RowSnapshot(version: row.int64(2), values: [])))
        }
      } else {
        try forEachRow(db, sql: sql, arguments: arguments) { row in
          if let fetched = decodeRow(row) { body(fetched) }
        }
      }
    }
  }

  /// Counts objects matching a fetch plan.
  func count(_ plan: StoreFetchPlan, in snapshot: StoreSnapshot? = nil) throws -> Int {
    if isCustom, let count = try answeredCount(plan) { return count }
    let mapping = try schema.mapping(for: plan.entity)
    var compiler = SQLPredicateCompiler(schema: schema, mapping: mapping)
    var conditions = entityConditions(mapping, includesSubentities: plan.includesSubentities)
    if let predicate = plan.predicate { conditions.append(try compiler.compile(predicate)) }
    var sql = "SELECT t0.Z_PK FROM \(mapping.table) t0"
    sql += compiler.joinClause + Self.whereClause(conditions)
    sql += Self.limitClause(plan)
    let arguments = compiler.arguments
    return try read(in: snapshot) { db in
      var count = 0
      try forEachRow(db, sql: "SELECT COUNT(*) FROM (\(sql))", arguments: arguments) { row in count = Int(row.int64(0)) }
      return count
    }
  }

  /// The rows for the given IDs (all of one root table), by ID; missing rows are absent.
  func snapshots(for ids: [NSManagedObjectID], in snapshot: StoreSnapshot? = nil) throws -> [NSManagedObjectID: RowSnapshot] {
    if isCustom, let answered = try answeredSnapshots(for: ids) { return answered }
    return try read(in: snapshot) { db in try snapshots(for: ids, db: db) }
  }

  /// The same, on a connection already in use (a save resolving a conflict reads inside its transaction).
  func snapshots(for ids: [NSManagedObjectID], db: Database) throws -> [NSManagedObjectID: RowSnapshot] {
    guard let first = ids.first, let mapping = schema.entities[first.entity.entityName] else { return [:] }
    let reader = rowReader(table: mapping.table)
    var result: [NSManagedObjectID: RowSnapshot] = [:]
    let keys = ids.compactMap(\.primaryKey)
    for chunk in stride(from: 0, to: keys.count, by: 500) {
      let slice = keys[chunk..<min(chunk + 500, keys.count)]
      let placeholders = Array(repeating: "?", count: slice.count).joined(separator: ", ")
      let sql = "SELECT \(reader.selectList) FROM \(mapping.table) t0 WHERE t0.Z_PK IN (\(placeholders))"
      try forEachRow(db, sql: sql, arguments: slice.map(\.databaseValue)) { row in
        if let fetched = decodeRow(row) { result[fetched.id] = fetched.snapshot }
      }
    }
    return result
  }

  /// The members of a to-many relationship of each object, read in one query; an ordered to-many's in
  /// their order (by the ordering column, then by primary key for rows without a position).
  func relatedIDs(
    of ids: [NSManagedObjectID], slot: EntityLayout.Slot, entity: NSEntityDescription, in snapshot: StoreSnapshot? = nil
  ) throws -> [NSManagedObjectID: [NSManagedObjectID]] {
    if isCustom, let answered = try answeredRelatedIDs(of: ids, slot: slot) { return answered }
    return try read(in: snapshot) { db in try relatedIDs(of: ids, slot: slot, entity: entity, db: db) }
  }

  /// The same, on a connection already in use (a save resolving a conflict reads inside its transaction).
  func relatedIDs(of ids: [NSManagedObjectID], slot: EntityLayout.Slot, entity: NSEntityDescription, db: Database) throws
    -> [NSManagedObjectID: [NSManagedObjectID]]
  {
    guard let mapping = schema.byIdentity[ObjectIdentifier(entity)], let destination = slot.relationship?.destinationEntity,
      let destinationMapping = schema.byIdentity[ObjectIdentifier(destination)]
    else { return [:] }
    let sql: String
    let order: String
    switch mapping.storage[slot.index] {
    case .foreignKeyOnDestination(let column, let orderColumn):
      sql = "SELECT d.\(column), d.Z_PK, d.Z_ENT FROM \(destinationMapping.table) d WHERE d.\(column) IN "
      order = orderColumn.map { " ORDER BY d.\($0), d.Z_PK" } ?? ""
    case .joinTable(let join, _):
      sql =
        "SELECT j.\(join.sourceColumn), d.Z_PK, d.Z_ENT FROM \(join.name) j JOIN \(destinationMapping.table) d ON d.Z_PK = j.\(join.destinationColumn) WHERE j.\(join.sourceColumn) IN "
      order = join.destinationOrderColumn.map { " ORDER BY j.\($0), d.Z_PK" } ?? ""
    default:
      return [:]
    }
    var byKey: [Int64: NSManagedObjectID] = [:]
    for id in ids { if let pk = id.primaryKey { byKey[pk] = id } }
    var result: [NSManagedObjectID: [NSManagedObjectID]] = [:]
    for id in ids { result[id] = [] }
    let keys = Array(byKey.keys)
    for chunk in stride(from: 0, to: keys.count, by: 500) {
      let slice = Array(keys[chunk..<min(chunk + 500, keys.count)])
      let placeholders = Array(repeating: "?", count: slice.count).joined(separator: ", ")
      let cursor = try Row.fetchCursor(db, sql: sql + "(\(placeholders))" + order, arguments: StatementArguments(slice))
      while let row = try cursor.next() {
        let owner: Int64 = row[0]
        let pk: Int64 = row[1]
        let number: Int64 = row[2]
        guard let ownerID = byKey[owner], let member = objectID(pk: pk, entityNumber: number) else { continue }
        result[ownerID, default: []].append(member)
      }
    }
    return result
  }

  /// The conditions that choose an entity's rows (`t0`) in its table: its own rows only, or with
  /// `includesSubentities` its subentities' too (no condition when they are all the table holds).
  func entityConditions(_ mapping: SQLiteSchema.EntityTable, includesSubentities: Bool) -> [String] {
    if !includesSubentities { return ["t0.Z_ENT = \(mapping.number)"] }
    return entityFilter(mapping).map { [$0] } ?? []
  }

  /// ` WHERE a AND b`, or nothing for no conditions.
  static func whereClause(_ conditions: [String]) -> String {
    conditions.isEmpty ? "" : " WHERE " + conditions.joined(separator: " AND ")
  }

  /// ` LIMIT n OFFSET m` for a plan's limit and offset, or nothing when it has neither.
  static func limitClause(_ plan: StoreFetchPlan) -> String {
    guard plan.fetchLimit > 0 || plan.fetchOffset > 0 else { return "" }
    return " LIMIT \(plan.fetchLimit > 0 ? plan.fetchLimit : -1) OFFSET \(plan.fetchOffset)"
  }

  /// `Z_ENT IN (...)` when the fetched entity shares its table with entities outside its subtree.
  func entityFilter(_ mapping: SQLiteSchema.EntityTable, alias: String = "t0") -> String? {
    let tableEntities = schema.entities.values.filter { $0.table == mapping.table }.count
    guard mapping.numbersIncludingSubentities.count != tableEntities else { return nil }
    return "\(alias).Z_ENT IN (\(mapping.numbersIncludingSubentities.map(String.init).joined(separator: ", ")))"
  }

  /// Runs a read in a deferred transaction, turning SQLite failures into ObjectGraph errors.
  ///
  /// Not GRDB's `DatabaseQueue.read`: it sets `PRAGMA query_only` before each read and clears it after,
  /// and SQLite expires every prepared statement of the connection whenever a flag pragma changes. Each
  /// cached statement would then be compiled again at its next step, which cost a small fetch or a fault
  /// half its time. The store's reads run only SQL the engine writes itself, so they need the
  /// transaction (one consistent view of the file for every statement of the read), not the guard.
  /// `BEGIN` and `COMMIT` are cached statements too (GRDB's `inTransaction` compiles both for each read).
  func read<T>(_ body: (Database) throws -> T) throws -> T {
    do {
      return try database.inDatabase { db in
        try db.cachedStatement(sql: "BEGIN DEFERRED TRANSACTION").execute()
        do {
          let result = try body(db)
          try db.cachedStatement(sql: "COMMIT TRANSACTION").execute()
          return result
        } catch {
          // A read changed nothing, so the first error is the one to report; `rollback()` does nothing when
          // SQLite has already ended the transaction.
          try? db.rollback()
          throw error
        }
      }
    } catch let error as DatabaseError {
      throw ObjectGraphError.database(.coreData, "Reading the store at \(url.storePath) failed", error, url: url)
    }
  }
}
