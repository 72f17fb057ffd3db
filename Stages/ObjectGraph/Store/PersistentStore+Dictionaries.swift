import Foundation
internal import GRDB

extension NSPersistentStore {
  /// Reads the rows a dictionary plan describes: one `SELECT` of the columns (key paths through to-one
  /// relationships become joins, expressions the predicate compiler's SQL, aggregates SQL aggregates), with
  /// `WHERE`, `GROUP BY`, `HAVING`, `ORDER BY`, `LIMIT` and `DISTINCT` as asked.
  ///
  /// - Throws: ``ObjectGraphUnknownKeyError`` for an unknown key, ``ObjectGraphInvalidValueError``
  ///   for a to-many column, a column neither grouped nor aggregated, or a `HAVING` without grouping,
  ///   ``ObjectGraphUnsupportedFeatureError`` for an expression the store cannot compute.
  /// `snapshot`: the query generation's view of the store to read (`nil`: the store as it is now).
  func fetchDictionaries(_ plan: StoreDictionaryPlan, in snapshot: StoreSnapshot? = nil) throws -> StoreDictionaryRows {
    if isCustom, let answered = try answeredDictionaries(plan) { return answered }
    let mapping = try schema.mapping(for: plan.rows.entity)
    var compiler = SQLPredicateCompiler(schema: schema, mapping: mapping)
    compiler.storeURL = url
    var selects: [String] = []
    var readers: [(name: String, read: (RawStatement, inout Int32) -> StoredValue)] = []
    var named: [String: SQLPredicateCompiler.ResultColumn] = [:]
    var aggregates: Set<String> = []
    let makeID = { [self] (key: Int64, entityNumber: Int64) in objectID(pk: key, entityNumber: entityNumber) }
    var constants: Set<String> = []
    for column in plan.columns {
      let compiled = try compiler.dictionaryColumn(column, makeID: makeID)
      readers.append((column.name, compiled.read))
      if case .expression = column.kind, compiled.sql.count == 1 {
        // An expression's column is named, so that `HAVING` reads it by its name rather than computing its SQL
        // (and binding its arguments) again.
        let alias = "og_c\(selects.count)"
        selects.append("\(compiled.sql[0]) AS \(alias)")
        named[column.name] = SQLPredicateCompiler.ResultColumn(sql: alias, type: compiled.type)
      } else {
        selects.append(contentsOf: compiled.sql)
        named[column.name] = SQLPredicateCompiler.ResultColumn(sql: compiled.sql[0], type: compiled.type)
      }
      if compiled.isAggregate { aggregates.insert(column.name) }
      if compiled.isConstant { constants.insert(column.name) }
    }
    var conditions = entityConditions(mapping, includesSubentities: plan.rows.includesSubentities)
    if let predicate = plan.rows.predicate { conditions.append(try compiler.compile(predicate)) }

    var groups: [String] = []
    for column in plan.groupBy {
      let compiled = try compiler.dictionaryColumn(column, makeID: makeID)
      guard !compiled.isAggregate else {
        throw ObjectGraphError(
          .invalidValue, "'\(column.name)' is an aggregate expression; propertiesToGroupBy takes properties and key paths.")
      }
      groups.append(compiled.sql[0])
    }
    let grouped = Set(plan.groupBy.map(\.name))
    if !groups.isEmpty {
      for column in plan.columns
      where !aggregates.contains(column.name) && !grouped.contains(column.name) && !constants.contains(column.name) {
        throw ObjectGraphError(
          .invalidValue,
          "'\(column.name)' is fetched but neither grouped nor an aggregate. With propertiesToGroupBy, every property to fetch must be in propertiesToGroupBy or be an expression such as count: or sum:."
        )
      }
    }
    var having = ""
    if let predicate = plan.having {
      guard !groups.isEmpty else {
        throw ObjectGraphError(.invalidValue, "havingPredicate filters groups; set propertiesToGroupBy too.")
      }
      compiler.resultColumns = named
      having = " HAVING " + (try compiler.compile(predicate))
    }
    let order = try compiler.orderBy(plan.rows.sortDescriptors)

    var sql = "SELECT \(plan.distinct ? "DISTINCT " : "")\(selects.joined(separator: ", ")) FROM \(mapping.table) t0"
    sql += compiler.joinClause + Self.whereClause(conditions)
    if !groups.isEmpty { sql += " GROUP BY " + groups.joined(separator: ", ") + having }
    if !order.isEmpty { sql += " ORDER BY " + order }
    sql += Self.limitClause(plan.rows)
    let arguments = compiler.arguments
    let names = readers.map(\.name)
    let read = readers.map(\.read)
    return try self.read(in: snapshot) { db in
      // One flat array for every row's values, read straight from the statement: no row object or array
      // per row (see ``StoreDictionaryRows``).
      var values: [StoredValue] = []
      try forEachRow(db, sql: sql, arguments: arguments) { row in
        var column: Int32 = 0
        for reader in read { values.append(reader(row, &column)) }
      }
      return StoreDictionaryRows(names: names, values: values)
    }
  }
}

extension SQLPredicateCompiler {
  /// A dictionary column compiled: its SQL (two expressions for a to-one: the key and the entity number),
  /// how to read its value from a result row (advancing the column index), its type, and whether it is
  /// an aggregate.
  struct DictionaryColumnSQL {
    let sql: [String]
    let type: NSAttributeType?
    let isAggregate: Bool
    /// Whether the column's value is the same for every row (a constant, `now()`): it may stand beside groups.
    var isConstant = false
    let read: (RawStatement, inout Int32) -> StoredValue
  }

  mutating func dictionaryColumn(
    _ column: FetchColumn, makeID: @escaping (Int64, Int64) -> NSManagedObjectID?
  ) throws -> DictionaryColumnSQL {
    switch column.kind {
    case .keyPath(let keyPath):
      return try keyPathColumn(keyPath, makeID: makeID)
    case .expression(let name, let computed, let declaredType):
      guard let expression = try computed.get() else {
        throw ObjectGraphError(.invalidValue, "Expression description '\(name)' has no expression to fetch.")
      }
      guard !name.isEmpty else {
        throw ObjectGraphError(
          .invalidValue, "An expression description to fetch (\(expression)) has no name; its name is its key in each dictionary.")
      }
      switch expression.kind {
      case .keyPath(let keyPath):
        return try keyPathColumn(keyPath, declaredType: declaredType, makeID: makeID)
      case .evaluatedObject:
        return DictionaryColumnSQL(sql: ["\(alias).Z_PK", "\(alias).Z_ENT"], type: .objectIDAttributeType, isAggregate: false) {
          row, index in
          defer { index += 2 }
          guard let key = row.int64OrNil(index), let entityNumber = row.int64OrNil(index + 1) else { return nil }
          return makeID(key, entityNumber).map { .objectID($0) }
        }
      case .computed(let value, let aggregates):
        return try computedColumn(name, expression, value, aggregates, declaredType: declaredType)
      }
    }
  }

  /// An expression of each row (or of each group, when it holds aggregates), compiled by the predicate
  /// compiler, its value read as `declaredType` (unless undefined: then as the type the expression has, or as
  /// SQLite gives it when that is not known, for a constant).
  /// - Throws: ``ObjectGraphInvalidValueError`` for an aggregate beside values of single rows
  ///   (`sum:(price) + price`), and what the compiler throws.
  private mutating func computedColumn(
    _ name: String, _ expression: FetchExpression, _ value: PredicateExpression, _ aggregates: [FetchExpression.Aggregate],
    declaredType: NSAttributeType
  ) throws -> DictionaryColumnSQL {
    if !aggregates.isEmpty, FetchExpression.readsRow(value) {
      throw ObjectGraphError(
        .invalidValue,
        "Expression '\(name)' (\(expression)) mixes aggregates of the rows with values of a single row. Put each key path inside an aggregate (sum:(price) / count:(price)), or fetch the aggregate and the values separately."
      )
    }
    let saved = rowAggregates
    defer { rowAggregates = saved }
    for (index, aggregate) in aggregates.enumerated() { rowAggregates[FetchExpression.aggregateVariable(index)] = aggregate }
    let compiled = try self.expression(value, against: nil)
    if compiled.type == .objectIDAttributeType && declaredType == .undefinedAttributeType {
      throw ObjectGraphError(
        .invalidValue,
        "Expression '\(name)' (\(expression)) computes an object. Fetch a to-one relationship by its key path, or the object itself with NSExpression.expressionForEvaluatedObject()."
      )
    }
    let type: NSAttributeType? =
      declaredType != .undefinedAttributeType ? declaredType : compiled.type ?? Self.constantType(value)
    return DictionaryColumnSQL(
      sql: [compiled.sql], type: type, isAggregate: !aggregates.isEmpty,
      isConstant: aggregates.isEmpty && !FetchExpression.readsRow(value)
    ) { row, index in
      defer { index += 1 }
      guard let type else { return row.valueAsStored(index) }
      return row.storedValue(index, as: type)
    }
  }

  /// Whether the key path `path` (through to-ones) ends at an attribute whose column holds tagged values.
  private func isTaggedExternalRecord(_ path: [String]) -> Bool {
    var entity = mapping.entity
    for name in path.dropLast() {
      guard let destination = entity.relationshipsByName[name]?.destinationEntity else { return false }
      entity = destination
    }
    guard let last = path.last, let index = entity.layout.indexByName[last] else { return false }
    return schema.tagsExternalRecord(entity.layout.slots[index])
  }

  /// The type of a constant's value, which the compiler binds without one.
  private static func constantType(_ value: PredicateExpression) -> NSAttributeType? {
    guard case .constant(let constant) = value else { return nil }
    switch constant {
    case .string: return .stringAttributeType
    case .integer: return .integer64AttributeType
    case .double: return .doubleAttributeType
    case .bool: return .booleanAttributeType
    case .date: return .dateAttributeType
    case .data: return .binaryDataAttributeType
    case .uuid: return .UUIDAttributeType
    case .url: return .URIAttributeType
    case .decimal: return .decimalAttributeType
    default: return nil
    }
  }

  private mutating func keyPathColumn(
    _ keyPath: String, declaredType: NSAttributeType = .undefinedAttributeType, makeID: @escaping (Int64, Int64) -> NSManagedObjectID?
  ) throws -> DictionaryColumnSQL {
    let path = keyPath.split(separator: ".", omittingEmptySubsequences: false).map(String.init)
    switch try resolve(path) {
    case .column(let column, let type):
      if isTaggedExternalRecord(path) {
        // A tagged value (``ExternalBinaryRecord``): its bytes, from the row or the file the row names.
        let storeURL = storeURL
        return DictionaryColumnSQL(sql: [column], type: type, isAggregate: false) { row, index in
          defer { index += 1 }
          return row.externalRecord(index, storeURL: storeURL)
        }
      }
      let readType = declaredType == .undefinedAttributeType ? type : declaredType
      return DictionaryColumnSQL(sql: [column], type: type, isAggregate: false) { row, index in
        defer { index += 1 }
        return row.storedValue(index, as: readType)
      }
    case .toOne(let column, let destination):
      guard let destinationMapping = schema.entities[destination.entityName] else {
        throw ObjectGraphError(.unknownKey, "'\(keyPath)' cannot be fetched.")
      }
      let sharesTable = schema.entities.values.filter { $0.table == destinationMapping.table }.count > 1
      let number =
        sharesTable ? "(SELECT Z_ENT FROM \(destinationMapping.table) WHERE Z_PK = \(column))" : String(destinationMapping.number)
      return DictionaryColumnSQL(sql: [column, number], type: .objectIDAttributeType, isAggregate: false) { row, index in
        defer { index += 2 }
        guard let key = row.int64OrNil(index), let entityNumber = row.int64OrNil(index + 1) else { return nil }
        return makeID(key, entityNumber).map { .objectID($0) }
      }
    case .object, .toMany, .entity:
      throw ObjectGraphError(
        .invalidValue,
        "'\(keyPath)' cannot be fetched into a dictionary: only attributes and to-one relationships can (Core Data refuses to-many relationships too)."
      )
    }
  }
}
