import Foundation
internal import GRDB

/// Compiles a parsed predicate and sort descriptors into SQL over a store's schema.
///
/// Key paths through to-one relationships become `LEFT JOIN`s; paths through to-many relationships
/// (under `ANY`, `ALL`, `NONE`, or `@count`) become correlated subqueries. `== nil` and `!= nil` are
/// `IS NULL` and `IS NOT NULL`; `!=` against a value is SQL's `<>`, as Core Data's SQLite store writes it, so
/// a row whose value is nil does not match, though the in-memory evaluator (Core Data's too) says
/// `nil != "x"` is true: the difference Core Data has between a fetch and `evaluate(with:)`.
struct SQLPredicateCompiler {
  let schema: SQLiteSchema
  let mapping: SQLiteSchema.EntityTable
  let alias: String
  private(set) var joins: [String] = []
  private var joinAliases: [String: String] = [:]
  var arguments: [DatabaseValue] = []
  var aliasCounter: AliasCounter
  /// The iteration variables of the subqueries this compiler is inside: each name to the alias and
  /// entity of the member row it stands for.
  var variables: [String: Origin] = [:]
  /// Set while a comparison of a transformable attribute with `nil` resolves its key path: the only use of
  /// a transformable a fetch makes (see `nullComparison`).
  private var allowsTransformable = false

  /// The store file a dictionary fetch reads, whose external data folder holds the values of attributes that
  /// allow external storage that Core Data kept in files (``ExternalBinaryRecord``).
  var storeURL: URL?

  /// The named columns of a grouped dictionary fetch, which its `HAVING` predicate names as `$name`.
  var resultColumns: [String: ResultColumn] = [:]

  /// The aggregates over the rows that a dictionary fetch's computed column holds, by the variable standing for
  /// each in its expression (``FetchExpression/aggregateVariable(_:)``): compiled where the variable is met,
  /// so that their arguments are bound in the order the statement's text has them.
  var rowAggregates: [String: FetchExpression.Aggregate] = [:]

  /// A named column of a dictionary fetch: its SQL and type.
  struct ResultColumn {
    let sql: String
    let type: NSAttributeType?
  }

  /// Where a key path starts: a table alias and the entity whose row it names.
  struct Origin {
    let alias: String
    let mapping: SQLiteSchema.EntityTable
  }

  /// Shared between a compiler and the nested compilers of its subqueries so aliases stay unique.
  final class AliasCounter {
    var next = 1
    func make() -> String {
      defer { next += 1 }
      return "t\(next)"
    }
  }

  init(schema: SQLiteSchema, mapping: SQLiteSchema.EntityTable, alias: String = "t0", counter: AliasCounter = AliasCounter()) {
    self.schema = schema
    self.mapping = mapping
    self.alias = alias
    aliasCounter = counter
  }

  // MARK: - Key paths

  /// What a key path names, seen from the SQL side.
  enum Resolved {
    /// An attribute column.
    case column(String, NSAttributeType)
    /// A to-one relationship: the foreign key column and the destination entity.
    case toOne(String, NSEntityDescription)
    /// The object itself (`SELF`, or a to-one's destination row).
    case object(alias: String, NSEntityDescription)
    /// A to-many relationship at `index` of the path, seen from `alias`.
    case toMany(alias: String, SQLiteSchema.EntityTable, slot: EntityLayout.Slot, rest: [String])
    /// The entity of the row at `alias` (the key `entity`): its `Z_ENT` column, which only an entity
    /// comparison reads (`entity == %@`).
    case entity(alias: String, SQLiteSchema.EntityTable)
  }

  mutating func resolve(_ path: [String]) throws -> Resolved {
    try resolve(path, from: Origin(alias: alias, mapping: mapping))
  }

  /// What a key path names, starting from `origin` (the object, or a subquery variable's member).
  mutating func resolve(_ path: [String], from origin: Origin) throws -> Resolved {
    var currentAlias = origin.alias
    var currentMapping = origin.mapping
    var traversed: [String] = []
    guard !path.isEmpty else { return .object(alias: origin.alias, origin.mapping.entity) }
    for (position, key) in path.enumerated() {
      let entity = currentMapping.entity
      let isLast = position == path.count - 1
      if key == "SELF" && position == 0 { continue }
      if key == PredicateEntityKey.entity, entity.layout.indexByName[key] == nil {
        return try entityKey(path, at: position, alias: currentAlias, mapping: currentMapping)
      }
      guard let index = entity.layout.indexByName[key] else {
        throw ObjectGraphError(
          .unknownKey,
          "Entity \(entity.entityName) has no property '\(key)' (in key path '\(path.joined(separator: "."))'). Its properties: \(entity.layout.slots.map(\.name).joined(separator: ", "))."
        )
      }
      let slot = entity.layout.slots[index]
      if slot.isComposite {
        // `location.latitude`: the element's own column, its slot named by the rest of the key path.
        let joined = path[position...].joined(separator: ".")
        guard let element = entity.layout.indexByName[joined], !entity.layout.slots[element].isComposite,
          case .column(let column) = currentMapping.storage[element], let type = entity.layout.slots[element].attribute?.attributeType
        else {
          throw ObjectGraphError.compositeInPredicate(entity: entity.entityName, keyPath: path.joined(separator: "."))
        }
        return .column("\(currentAlias).\(column)", type)
      }
      if let attribute = slot.attribute {
        if attribute.attributeType == .transformableAttributeType, !allowsTransformable {
          throw ObjectGraphError.transformableInFetch(entity: entity.entityName, key: key)
        }
        if let reason = attribute.unsupportedReason {
          throw ObjectGraphError(.unsupportedFeature, "\(entity.entityName).\(key) \(reason), so it cannot be used in a fetch.")
        }
        guard !slot.isTransient else {
          throw ObjectGraphError(
            .unknownKey, "\(entity.entityName).\(key) is transient: it is not in the store, so a fetch cannot filter or sort on it.")
        }
        guard isLast else {
          throw ObjectGraphError(
            .unknownKey,
            "Key path '\(path.joined(separator: "."))' goes through attribute \(entity.entityName).\(key), which has no properties of its own."
          )
        }
        guard case .column(let column) = currentMapping.storage[index] else {
          throw ObjectGraphError(.unknownKey, "\(entity.entityName).\(key) is not stored.")
        }
        return .column("\(currentAlias).\(column)", attribute.attributeType)
      }
      guard let relationship = slot.relationship, let destination = relationship.destinationEntity,
        let destinationMapping = schema.entities[destination.entityName]
      else {
        throw ObjectGraphError(.unknownKey, "\(entity.entityName).\(key) cannot be used in a fetch.")
      }
      if slot.isToMany {
        return .toMany(alias: currentAlias, currentMapping, slot: slot, rest: Array(path[(position + 1)...]))
      }
      guard case .toOne(let column, _) = currentMapping.storage[index] else {
        throw ObjectGraphError(.unknownKey, "\(entity.entityName).\(key) is transient and cannot be used in a fetch.")
      }
      if isLast { return .toOne("\(currentAlias).\(column)", destination) }
      traversed.append(key)
      let joinKey = origin.alias + ":" + traversed.joined(separator: ".")
      if let existing = joinAliases[joinKey] {
        currentAlias = existing
      } else {
        let next = aliasCounter.make()
        joins.append("LEFT JOIN \(destinationMapping.table) \(next) ON \(next).Z_PK = \(currentAlias).\(column)")
        joinAliases[joinKey] = next
        currentAlias = next
      }
      currentMapping = destinationMapping
    }
    return .object(alias: currentAlias, currentMapping.entity)
  }

  /// `entity` (the row's `Z_ENT`) or `entity.name` (a string chosen by `Z_ENT` among the entities that
  /// share the row's table), at `position` of `path`.
  private func entityKey(_ path: [String], at position: Int, alias rowAlias: String, mapping rowMapping: SQLiteSchema.EntityTable)
    throws -> Resolved
  {
    let rest = path[(position + 1)...]
    if rest.isEmpty { return .entity(alias: rowAlias, rowMapping) }
    guard Array(rest) == [PredicateEntityKey.name] else {
      throw ObjectGraphError(
        .unknownKey,
        "Key path '\(path.joined(separator: "."))' goes through an object's entity; only 'entity' and 'entity.name' can be used in a predicate."
      )
    }
    let sharing = schema.entities.values.filter { $0.table == rowMapping.table }.sorted { $0.number < $1.number }
    let cases = sharing.map { "WHEN \($0.number) THEN '\($0.entity.entityName.replacingOccurrences(of: "'", with: "''"))'" }
    return .column("(CASE \(rowAlias).Z_ENT \(cases.joined(separator: " ")) END)", .stringAttributeType)
  }

  /// `entity == %@`, `entity != %@`, `entity IN %@` (and `== nil`, and two entity key paths compared), as
  /// `Z_ENT` comparisons: an entity matches its own number only, so a subentity's instance is not
  /// `entity == <its parent>`, as two different entity descriptions are not equal in Core Data. `nil`
  /// when neither side is an entity key path.
  /// - Throws: ``ObjectGraphInvalidValueError`` when an entity meets something else than an entity,
  ///   ``ObjectGraphPredicateSyntaxError`` for another operator.
  private mutating func entityComparison(_ comparison: PredicateComparison) throws -> String? {
    func entitySide(_ expression: PredicateExpression) throws -> String? {
      guard let (path, origin) = try keyPathParts(expression), path.last == PredicateEntityKey.entity,
        case .entity(let rowAlias, _) = try resolve(path, from: origin)
      else { return nil }
      return "\(rowAlias).Z_ENT"
    }
    let left = try entitySide(comparison.lhs)
    let right = try entitySide(comparison.rhs)
    guard let column = left ?? right else { return nil }
    let other = left == nil ? comparison.lhs : comparison.rhs
    if let left, let right {
      switch comparison.op {
      case .equal: return "(\(left) IS \(right))"
      case .notEqual: return "(\(left) IS NOT \(right))"
      default: break
      }
    }
    func number(_ value: PredicateValue) throws -> String {
      guard case .entity(let name) = value else {
        throw ObjectGraphError(
          .invalidValue,
          "A predicate compares an object's entity with \(value.predicateFormat). Compare 'entity' with an NSEntityDescription (or 'entity.name' with a string)."
        )
      }
      // An entity this store does not have matches no row.
      return schema.entities[name].map { String($0.number) } ?? "-1"
    }
    func constants(_ expression: PredicateExpression) throws -> [PredicateValue] {
      switch expression {
      case .constant(.collection(let items)): return items
      case .constant(let value): return [value]
      case .aggregate(let items):
        return try items.flatMap { try constants($0) }
      default:
        throw ObjectGraphError(
          .invalidValue,
          "A predicate compares an object's entity with \(expression.predicateFormat). Compare it with an NSEntityDescription.")
      }
    }
    switch comparison.op {
    case .equal, .notEqual:
      guard case .constant(let value) = other else {
        throw ObjectGraphError(
          .invalidValue,
          "A predicate compares an object's entity with \(other.predicateFormat). Compare it with an NSEntityDescription.")
      }
      let sql = value == .null ? "NULL" : try number(value)
      return "(\(column) \(comparison.op == .equal ? "IS" : "IS NOT") \(sql))"
    case .in where left != nil:
      let numbers = try constants(comparison.rhs).map { try number($0) }
      return numbers.isEmpty ? "0" : "(\(column) IN (\(numbers.joined(separator: ", "))))"
    default:
      throw ObjectGraphError(
        .predicateSyntax,
        "An object's entity can only be compared with ==, != or IN (in '\(comparison.lhs.predicateFormat) \(comparison.op.rawValue) \(comparison.rhs.predicateFormat)')."
      )
    }
  }

  // MARK: - Predicates

  /// The SQL of a predicate: an expression whose value is 1, 0 or NULL (false).
  ///
  /// SQLite's parser takes about 100 levels of nesting, and the expression tree it builds 1,000. So what
  /// is written nests as little as it can: `NOT` is `(x) IS NOT 1` (true for 0 and NULL, one level where
  /// `NOT COALESCE((x), 0)` took five), a compound puts its deepest operand first (SQLite's parser holds
  /// what precedes a nested part while it reads it, not what follows), and a long compound is written in
  /// groups (see ``compound(_:_:)``). A tree ``PredicateNode/maximumDepth`` deep compiles to SQL SQLite
  /// takes, unless it nests subqueries about ten deep (each takes about ten of SQLite's levels) or `-` and
  /// `/` about thirty deep on their right side (three levels each); SQLite's refusal is then the error.
  /// - Throws: ``ObjectGraphPredicateSyntaxError`` for ``PredicateNode/tooDeep``, and what the
  ///   parts throw (an unknown key, a value of the wrong type, ...).
  mutating func compile(_ node: PredicateNode) throws -> String {
    switch node {
    case .constant(let value): return value ? "1" : "0"
    case .not(let inner): return "(\(try compile(inner))) IS NOT 1"
    case .and(let nodes):
      // No subpredicates: AND of none is true, OR of none is false (as NSCompoundPredicate evaluates them).
      guard !nodes.isEmpty else { return "1" }
      return try compound(nodes, "AND")
    case .or(let nodes):
      guard !nodes.isEmpty else { return "0" }
      return try compound(nodes, "OR")
    case .comparison(let comparison): return try compile(comparison)
    case .tooDeep: throw PredicateNode.tooDeepError
    }
  }

  /// How many operands a compound joins in one run without parentheses: SQLite nests `a OR b OR c …` one
  /// level per operand, up to 1,000 levels, so longer compounds are written as runs of runs (ten thousand
  /// operands are three levels of runs of 32).
  static let compoundRun = 32

  /// The operands joined by `op` (`AND` or `OR`): the deepest first, in parenthesized runs of at most
  /// ``compoundRun``, runs of runs as many levels as it takes.
  private mutating func compound(_ nodes: [PredicateNode], _ op: String) throws -> String {
    var ordered = nodes
    let depths = nodes.map(\.depth)
    if let deepest = depths.indices.max(by: { depths[$0] < depths[$1] }), depths[deepest] > depths[0] {
      ordered.insert(ordered.remove(at: deepest), at: 0)
    }
    // Compiled in the order they are written: each appends its arguments for its `?`s.
    var parts: [String] = []
    for node in ordered { parts.append(try compile(node)) }
    repeat {
      parts = stride(from: 0, to: parts.count, by: Self.compoundRun).map { start in
        "(" + parts[start..<min(start + Self.compoundRun, parts.count)].joined(separator: " \(op) ") + ")"
      }
    } while parts.count > 1
    return parts[0]
  }

  /// Where a key path or variable expression starts, and its keys; `nil` for other expressions and for
  /// a named column of a grouped dictionary fetch.
  func keyPathParts(_ expression: PredicateExpression) throws -> (path: [String], origin: Origin)? {
    switch expression {
    case .keyPath(let path): return (path, Origin(alias: alias, mapping: mapping))
    case .variable(let name, let path):
      if resultColumn(expression) != nil || rowAggregate(expression) != nil { return nil }
      guard let origin = variables[name] else { throw ObjectGraphError.unboundVariable(name) }
      return (path, origin)
    default: return nil
    }
  }

  /// The named column of a grouped dictionary fetch that `$name` stands for, in its `HAVING` predicate
  /// (a subquery's own variable of the same name hides it).
  private func rowAggregate(_ expression: PredicateExpression) -> FetchExpression.Aggregate? {
    guard case .variable(let name, let path) = expression, path.isEmpty, variables[name] == nil else { return nil }
    return rowAggregates[name]
  }

  /// `sum:(price * quantity)` of a dictionary fetch's rows: the SQL aggregate of its argument's SQL.
  /// - Throws: ``ObjectGraphInvalidValueError`` for a function of numbers given something else, and what the
  ///   argument throws.
  private mutating func rowAggregateCall(_ aggregate: FetchExpression.Aggregate) throws -> (
    sql: String, type: NSAttributeType?, isNull: Bool
  ) {
    let argument = try expression(aggregate.argument, against: nil)
    if aggregate.function.takesNumbers, let type = argument.type, !type.isNumeric {
      let what = type == .objectIDAttributeType ? "an object" : "a \(type.xcodeName) attribute"
      throw ObjectGraphError.notANumber(aggregate.function.rawValue, "\(aggregate.argument.predicateFormat) is \(what)")
    }
    return ("\(aggregate.function.sql)(\(argument.sql))", rowAggregateType(aggregate), false)
  }

  /// The type of an aggregate's value: an integer for `count:`, a double for `average:`, `median:` and
  /// `stddev:`, the argument's type for `min:` and `max:`, and for `sum:` (a double for a float's).
  private func rowAggregateType(_ aggregate: FetchExpression.Aggregate) -> NSAttributeType? {
    switch aggregate.function {
    case .count: return .integer64AttributeType
    case .average, .median, .stddev: return .doubleAttributeType
    case .min, .max: return staticType(aggregate.argument)
    case .sum:
      switch staticType(aggregate.argument) {
      case .floatAttributeType: return .doubleAttributeType
      case .booleanAttributeType: return .integer64AttributeType
      case let type: return type
      }
    }
  }

  private func resultColumn(_ expression: PredicateExpression) -> ResultColumn? {
    guard case .variable(let name, let path) = expression, path.isEmpty, variables[name] == nil else { return nil }
    return resultColumns[name]
  }

  /// ` LEFT JOIN …` for the joins this compiler's key paths made, or nothing.
  var joinClause: String {
    joins.isEmpty ? "" : " " + joins.joined(separator: " ")
  }

  private mutating func compile(_ comparison: PredicateComparison) throws -> String {
    if let sql = try transformableComparison(comparison) { return sql }
    // `indexed:by:(x, "index") BETWEEN {…}`: the rows the R-tree names, then the comparison of the column itself.
    if let lookup = try rTreeLookup(comparison) {
      var plain = comparison
      plain.lhs = lookup.keyPath
      return "(\(lookup.sql) AND \(try compile(plain)))"
    }
    // `noindex:` around a collection has no index to keep the store from: the collection is compared.
    var comparison = comparison
    comparison.lhs = collectionWithoutIndexHint(comparison.lhs)
    comparison.rhs = collectionWithoutIndexHint(comparison.rhs)
    // `mode:(…)` on the left: a comparison of each of its values, as for a to-many's.
    if case .function(let function, let operands) = comparison.lhs, function.givesCollection, operands.count == 1 {
      return try valuesComparison(comparison, function, operands[0])
    }
    if comparison.op == .in, case .function(let function, let operands) = comparison.rhs, function.givesCollection, operands.count == 1 {
      return try inValues(comparison, function, operands[0])
    }
    // A to-many on the left turns the comparison into a subquery (unless a collection operator reduces
    // it to one value: then it is a scalar subquery, compiled as an expression).
    if let (path, origin) = try keyPathParts(comparison.lhs),
      case .toMany(let owner, let ownerMapping, let slot, let rest) = try resolve(path, from: origin),
      Self.isQuantifiable(rest)
    {
      return try quantified(comparison, ownerAlias: owner, ownerMapping: ownerMapping, slot: slot, rest: rest)
    }
    if comparison.op == .in, case .keyPath(let path) = comparison.rhs,
      case .toMany(let owner, let ownerMapping, let slot, let rest) = try resolve(path)
    {
      // `value IN tags.name` reads as `ANY tags.name == value`.
      let flipped = PredicateComparison(
        modifier: .any, lhs: .keyPath(rest), op: .equal, rhs: comparison.lhs, options: comparison.options)
      return try quantified(flipped, ownerAlias: owner, ownerMapping: ownerMapping, slot: slot, rest: rest)
    }
    if comparison.modifier == .direct, let sql = try entityComparison(comparison) { return sql }
    return try compileScalar(comparison)
  }

  /// A transformable attribute compared with nil or with values: `IS NULL`, or its column compared as a blob
  /// with the bytes its transformer makes of each value, as Core Data's SQLite store compares it
  /// (``PredicateTransformableComparison``, which the in-memory evaluator uses too).
  private mutating func transformableComparison(_ comparison: PredicateComparison) throws -> String? {
    let entity = mapping.entity
    guard
      let transformable = try PredicateTransformableComparison(
        comparison, attribute: { entity.transformableAttribute(atKeyPath: $0) })
    else { return nil }
    allowsTransformable = true
    defer { allowsTransformable = false }
    guard
      case .column(let column, .transformableAttributeType) = try resolve(transformable.path, from: Origin(alias: alias, mapping: mapping))
    else { return nil }
    guard let operands = transformable.operands else {
      return "(\(column) IS \(transformable.op == .equal ? "" : "NOT ")NULL)"
    }
    for bytes in operands { arguments.append(bytes.databaseValue) }
    let marks = Array(repeating: "?", count: operands.count).joined(separator: ", ")
    switch transformable.op {
    case .in: return operands.isEmpty ? "0" : "(\(column) IN (\(marks)))"
    case .between: return operands.count == 2 ? "(\(column) BETWEEN ? AND ?)" : "0"
    case .notEqual: return "(\(column) <> ?)"
    case .equal: return "(\(column) = ?)"
    default: return "(\(column) \(transformable.op.rawValue) ?)"
    }
  }

  mutating func linkSubquery(
    ownerAlias: String, ownerMapping: SQLiteSchema.EntityTable, slot: EntityLayout.Slot, subAlias: String
  ) throws -> (from: String, condition: String, destination: SQLiteSchema.EntityTable, position: String?) {
    guard let destination = slot.relationship?.destinationEntity, let destinationMapping = schema.entities[destination.entityName]
    else {
      throw ObjectGraphError(.unknownKey, "\(ownerMapping.entity.entityName).\(slot.name) cannot be used in a fetch.")
    }
    var entityFilter = ""
    if destinationMapping.numbersIncludingSubentities.count != schema.entities.values.filter({ $0.table == destinationMapping.table }).count
    {
      entityFilter =
        " AND \(subAlias).Z_ENT IN (\(destinationMapping.numbersIncludingSubentities.map(String.init).joined(separator: ", ")))"
    }
    switch ownerMapping.storage[slot.index] {
    case .foreignKeyOnDestination(let column, let orderColumn):
      return (
        "\(destinationMapping.table) \(subAlias)", "\(subAlias).\(column) = \(ownerAlias).Z_PK" + entityFilter, destinationMapping,
        orderColumn.map { "\(subAlias).\($0)" }
      )
    case .joinTable(let join, _):
      let joinAlias = aliasCounter.make()
      return (
        "\(join.name) \(joinAlias) JOIN \(destinationMapping.table) \(subAlias) ON \(subAlias).Z_PK = \(joinAlias).\(join.destinationColumn)",
        "\(joinAlias).\(join.sourceColumn) = \(ownerAlias).Z_PK" + entityFilter, destinationMapping,
        join.destinationOrderColumn.map { "\(joinAlias).\($0)" }
      )
    default:
      throw ObjectGraphError(.unknownKey, "\(ownerMapping.entity.entityName).\(slot.name) is transient and cannot be used in a fetch.")
    }
  }

  /// A compiler for a subquery over `mapping`'s rows under `alias`, seeing this one's variables.
  func nested(mapping: SQLiteSchema.EntityTable, alias: String) -> SQLPredicateCompiler {
    var inner = SQLPredicateCompiler(schema: schema, mapping: mapping, alias: alias, counter: aliasCounter)
    inner.variables = variables
    return inner
  }

  private mutating func countSubquery(ownerAlias: String, ownerMapping: SQLiteSchema.EntityTable, slot: EntityLayout.Slot)
    throws -> String
  {
    let sub = aliasCounter.make()
    let link = try linkSubquery(ownerAlias: ownerAlias, ownerMapping: ownerMapping, slot: slot, subAlias: sub)
    return "(SELECT COUNT(*) FROM \(link.from) WHERE \(link.condition))"
  }

  /// `notes.@sum.wordCount`: the to-many's values reduced in a scalar subquery (`TOTAL`, `AVG`, `MIN`,
  /// `MAX`, which skip nulls as the evaluator does), with the type of its result.
  private mutating func reducingSubquery(
    _ collectionOperator: PredicateCollectionOperator, keyPath: [String], ownerAlias: String,
    ownerMapping: SQLiteSchema.EntityTable, slot: EntityLayout.Slot, rest: [String]
  ) throws -> (sql: String, type: NSAttributeType) {
    if collectionOperator == .count {
      guard rest.count == 1 else {
        throw ObjectGraphError(.predicateSyntax, "'@count' must end the key path '\(keyPath.joined(separator: "."))'.")
      }
      return (try countSubquery(ownerAlias: ownerAlias, ownerMapping: ownerMapping, slot: slot), .integer64AttributeType)
    }
    if collectionOperator.isUnion {
      return (try unionCount(keyPath, ownerAlias: ownerAlias, ownerMapping: ownerMapping, slot: slot, rest: rest), .integer64AttributeType)
    }
    let sub = aliasCounter.make()
    let link = try linkSubquery(ownerAlias: ownerAlias, ownerMapping: ownerMapping, slot: slot, subAlias: sub)
    var inner = nested(mapping: link.destination, alias: sub)
    guard case .column(let column, let columnType) = try inner.resolve(Array(rest.dropFirst())) else {
      throw ObjectGraphError(
        .predicateSyntax,
        "'\(collectionOperator.rawValue)' in '\(keyPath.joined(separator: "."))' must be followed by an attribute of the to-many's entity, as in notes.\(collectionOperator.rawValue).wordCount."
      )
    }
    let function: String
    let type: NSAttributeType
    switch collectionOperator {
    case .sum, .avg:
      guard columnType.isNumeric else {
        throw ObjectGraphError.notANumber(
          collectionOperator.rawValue,
          "'\(keyPath.joined(separator: "."))' reaches a \(columnType.xcodeName) attribute (@min, @max and @count take any)")
      }
      function = collectionOperator == .sum ? "TOTAL" : "AVG"
      type = .doubleAttributeType
    default:
      function = collectionOperator == .min ? "MIN" : "MAX"
      type = columnType
    }
    let value = columnType == .decimalAttributeType ? "CAST(\(column) AS REAL)" : column
    let joins = inner.joinClause
    arguments.append(contentsOf: inner.arguments)
    return ("(SELECT \(function)(\(value)) FROM \(link.from)\(joins) WHERE \(link.condition))", type)
  }

  /// `SUBQUERY(collection, $x, predicate).@count`: a count of the members that match, in a scalar
  /// subquery whose rows `$x` (and bare key paths) name.
  private mutating func subqueryCount(_ subquery: PredicateSubquery) throws -> String {
    guard let (path, origin) = try keyPathParts(subquery.collection),
      case .toMany(let owner, let ownerMapping, let slot, let rest) = try resolve(path, from: origin), rest.isEmpty
    else {
      throw ObjectGraphError(
        .predicateSyntax,
        "SUBQUERY ranges over a to-many relationship, and \(subquery.collection.predicateFormat) is not one.")
    }
    let sub = aliasCounter.make()
    let link = try linkSubquery(ownerAlias: owner, ownerMapping: ownerMapping, slot: slot, subAlias: sub)
    var inner = nested(mapping: link.destination, alias: sub)
    inner.variables[subquery.variable] = Origin(alias: sub, mapping: link.destination)
    let condition = try inner.compile(subquery.predicate)
    arguments.append(contentsOf: inner.arguments)
    let joins = inner.joinClause
    return "(SELECT COUNT(*) FROM \(link.from)\(joins) WHERE \(link.condition) AND (\(condition)))"
  }

  private mutating func quantified(
    _ comparison: PredicateComparison, ownerAlias: String, ownerMapping: SQLiteSchema.EntityTable,
    slot: EntityLayout.Slot, rest: [String]
  ) throws -> String {
    let sub = aliasCounter.make()
    let link = try linkSubquery(ownerAlias: ownerAlias, ownerMapping: ownerMapping, slot: slot, subAlias: sub)
    var inner = nested(mapping: link.destination, alias: sub)
    var rest = rest
    // `notes.@distinctUnionOfObjects.title`: the members' titles without the nils (repeats change no
    // ANY, ALL, NONE or IN), so a nil is left out of the range rather than tested.
    var gathered = ""
    if rest.first.flatMap(PredicateCollectionOperator.init(element:))?.isUnion == true {
      rest.removeFirst()
      gathered = " AND " + (try inner.compile(.comparison(PredicateComparison(lhs: .keyPath(rest), op: .notEqual, rhs: .constant(.null)))))
    }
    var memberComparison = comparison
    memberComparison.modifier = .direct
    memberComparison.lhs = .keyPath(rest)
    // `tags.name CONTAINS x` without a modifier asks whether x is a member, not a substring of one.
    if comparison.modifier == .direct && comparison.op == .contains { memberComparison.op = .equal }
    let condition = try inner.compile(.comparison(memberComparison))
    arguments.append(contentsOf: inner.arguments)
    let joins = inner.joinClause
    let from = "FROM \(link.from)\(joins) WHERE \(link.condition)\(gathered)"
    switch comparison.modifier {
    case .direct, .any: return "EXISTS (SELECT 1 \(from) AND (\(condition)))"
    case .all: return "NOT EXISTS (SELECT 1 \(from) AND NOT COALESCE((\(condition)), 0))"
    case .none: return "NOT EXISTS (SELECT 1 \(from) AND (\(condition)))"
    }
  }

  /// The SQL computing a batch update's value for the attribute `name` of `type` from the row `t0`: the
  /// expression, cast to the attribute's storage class (an integer attribute keeps whole numbers).
  /// - Throws: ``ObjectGraphInvalidValueError`` when the result is of a kind the attribute cannot hold (text for
  ///   a number, a number for a string), ``ObjectGraphUnsupportedFeatureError`` for a decimal attribute, and
  ///   what a predicate's expression throws.
  mutating func computedValue(_ computed: PredicateExpression, for name: String, of type: NSAttributeType) throws -> String {
    guard type != .decimalAttributeType else {
      throw ObjectGraphError(
        .unsupportedFeature,
        "The batch update computes \(mapping.entity.entityName).\(name), a decimal, with an expression: decimals are not computed in SQL here. Set a value instead. Nothing was changed."
      )
    }
    let (sql, resultType, isNull) = try expression(computed, against: type)
    if isNull { return "NULL" }
    let integers: Set<NSAttributeType> = [.integer16AttributeType, .integer32AttributeType, .integer64AttributeType, .booleanAttributeType]
    let numbers = integers.union([.doubleAttributeType, .floatAttributeType])
    let fits = resultType.map { numbers.contains(type) ? numbers.contains($0) : $0 == type } ?? true
    guard fits else {
      throw ObjectGraphError(
        .invalidValue,
        "The batch update computes \(mapping.entity.entityName).\(name) (\(type.xcodeName)) with an expression whose result is \(resultType.map { $0.xcodeName } ?? "of another kind"); the attribute cannot hold it. Nothing was changed."
      )
    }
    if integers.contains(type) { return "CAST(\(sql) AS INTEGER)" }
    if numbers.contains(type) { return "CAST(\(sql) AS REAL)" }
    return sql
  }

  /// An SQL expression for one side, with the attribute type it has when it is a column.
  mutating func expression(_ expression: PredicateExpression, against otherType: NSAttributeType?) throws
    -> (sql: String, type: NSAttributeType?, isNull: Bool)
  {
    if let column = resultColumn(expression) { return (column.sql, column.type, false) }
    if let aggregate = rowAggregate(expression) { return try rowAggregateCall(aggregate) }
    switch expression {
    case .keyPath, .variable:
      guard let (path, origin) = try keyPathParts(expression) else { return ("NULL", nil, true) }
      switch try resolve(path, from: origin) {
      case .column(let column, let type):
        return (type == .decimalAttributeType ? "CAST(\(column) AS REAL)" : column, type, false)
      case .toOne(let column, _):
        return (column, .objectIDAttributeType, false)
      case .object(let objectAlias, _):
        return ("\(objectAlias).Z_PK", .objectIDAttributeType, false)
      case .entity:
        throw ObjectGraphError(
          .predicateSyntax,
          "'\(path.joined(separator: "."))' is an object's entity: compare it with ==, != or IN and an NSEntityDescription, or use 'entity.name'."
        )
      case .toMany(let owner, let ownerMapping, let slot, let rest):
        guard let collectionOperator = rest.first.flatMap(PredicateCollectionOperator.init(element:)) else {
          throw ObjectGraphError(
            .predicateSyntax,
            "Key path '\(path.joined(separator: "."))' goes through a to-many relationship; use ANY, ALL, NONE, @count, @sum, @avg, @min or @max with it."
          )
        }
        let reduced = try reducingSubquery(
          collectionOperator, keyPath: path, ownerAlias: owner, ownerMapping: ownerMapping, slot: slot, rest: rest)
        return (reduced.sql, reduced.type, false)
      }
    case .arithmetic(let op, let lhs, let rhs):
      // `+` and `*` take their deeper operand first, which SQLite's parser nests less (see `compile`).
      let swapped = (op == .add || op == .multiply) && rhs.depth > lhs.depth
      let first = try arithmeticOperand(swapped ? rhs : lhs, op)
      let second = try arithmeticOperand(swapped ? lhs : rhs, op)
      let (left, right) = swapped ? (second, first) : (first, second)
      // `x * 1.0 / y` divides as doubles, as CAST(x AS REAL) / y does, without nesting x in a call.
      let sql =
        op == .divide
        ? "(\(left.sql) * 1.0 / \(right.sql))"
        : swapped ? "(\(right.sql) \(op.rawValue) \(left.sql))" : "(\(left.sql) \(op.rawValue) \(right.sql))"
      return (sql, staticType(expression), false)
    case .subqueryCount(let subquery):
      return (try subqueryCount(subquery), .integer64AttributeType, false)
    case .function(.indexedBy, let operands) where operands.count == 2:
      // Outside a comparison an R-tree lookup serves (`rTreeLookup`), the hint is its key path.
      return try self.expression(operands[0], against: otherType)
    case .function(.noindex, let operands) where operands.count == 1:
      // SQLite's own way to keep a column's index out of a query: the unary `+`, which changes no value.
      let inner = try self.expression(operands[0], against: otherType)
      return inner.isNull ? inner : ("(+\(inner.sql))", inner.type, false)
    case .function(let function, let operands) where function.isBitwise:
      return (try bitwiseCall(function, operands), .integer64AttributeType, false)
    case .function(let function, let operands) where function.takesCollection && operands.count == 1:
      guard !function.givesCollection else { throw ObjectGraphError.collectionWhereValueNeeded(expression.predicateFormat) }
      return (try collectionFunctionCall(function, operands[0]), .doubleAttributeType, false)
    case .function(let function, let operands):
      return (try functionCall(function, operands), staticType(expression), false)
    case .index(.function(let function, let operands), let index) where function.givesCollection && operands.count == 1:
      return (try pickValue(function, operands[0], index), index == .size ? .integer64AttributeType : .doubleAttributeType, false)
    case .index(let collection, let index):
      if let member = try orderedMember(collection, index) { return (member.sql, member.type, false) }
      if let counted = try collection.indexedKeyPath(index) { return try self.expression(counted, against: otherType) }
      switch collection {
      case .aggregate(let items):
        return try self.expression(Self.picked(items, index), against: otherType)
      case .constant(.collection(let members)):
        return try self.expression(.constant(index.pick(members)), against: otherType)
      case .constant(.null):
        return ("NULL", nil, true)
      default:
        throw ObjectGraphError.indexOnValue(collection, index)
      }
    case .constant(.null):
      return ("NULL", nil, true)
    case .constant(let value):
      try check(value, against: otherType)
      arguments.append(encode(value, as: otherType))
      return ("?", nil, false)
    case .aggregate(let items):
      var parts: [String] = []
      for item in items { parts.append(try self.expression(item, against: otherType).sql) }
      return ("(" + parts.joined(separator: ", ") + ")", nil, false)
    }
  }

  /// The item of an aggregate an index names (`{a, b}[LAST]` is `b`), or its size; `nil` past either end.
  private static func picked(_ items: [PredicateExpression], _ index: PredicateIndex) -> PredicateExpression {
    switch index {
    case .size: .constant(.integer(Int64(items.count)))
    case .first: items.first ?? .constant(.null)
    case .last: items.last ?? .constant(.null)
    case .position(let position): position >= 0 && position < items.count ? items[Int(position)] : .constant(.null)
    }
  }

  /// `sqrt:(x)`, `lowercase:(title)`, `now()`: a call of `og_function`, which runs the evaluator's own code
  /// (see ``SQLFunctions/function``); `now()` is the date when the statement is compiled, bound once.
  /// - Throws: ``ObjectGraphInvalidValueError`` for an argument of the wrong kind, as the evaluator does.
  private mutating func functionCall(_ function: PredicateFunction, _ operands: [PredicateExpression]) throws -> String {
    if function == .now {
      arguments.append(encode(.date(Date()), as: .dateAttributeType))
      return "?"
    }
    var parts = ["'\(function.rawValue)'"]
    for operand in operands {
      if function.isString {
        if case .constant(let value) = operand {
          switch value {
          case .null, .string: break
          default: throw ObjectGraphError.notAString(function.rawValue, value)
          }
          parts.append(try expression(operand, against: .stringAttributeType).sql)
          continue
        }
        let result = try expression(operand, against: nil)
        if let type = result.type, type != .stringAttributeType {
          throw ObjectGraphError(
            .invalidValue,
            "\(function.rawValue) takes a string, and \(operand.predicateFormat) is \(type == .objectIDAttributeType ? "an object" : "a \(type.xcodeName) attribute"). Give it a String attribute or value."
          )
        }
        parts.append(result.sql)
      } else {
        parts.append(try arithmeticOperand(operand, function.rawValue).sql)
      }
    }
    return "og_function(\(parts.joined(separator: ", ")))"
  }

  /// One side of `+ - * /`, which must be a number: a numeric attribute or collection operator, a number,
  /// `nil` or more arithmetic.
  /// - Throws: ``ObjectGraphInvalidValueError`` for anything else, as the evaluator does.
  private mutating func arithmeticOperand(_ operand: PredicateExpression, _ op: PredicateArithmetic) throws
    -> (sql: String, type: NSAttributeType?, isNull: Bool)
  {
    try arithmeticOperand(operand, op.rawValue)
  }

  /// The same, for an operator or function named `operation` (`"+"`, `"sqrt:"`).
  mutating func arithmeticOperand(_ operand: PredicateExpression, _ operation: String) throws
    -> (sql: String, type: NSAttributeType?, isNull: Bool)
  {
    if case .constant(let value) = operand {
      switch value {
      case .null, .integer, .double, .bool, .decimal: break
      default: throw ObjectGraphError.notANumber(operation, "\(value.predicateFormat) is not one")
      }
      return try expression(operand, against: .doubleAttributeType)
    }
    let result = try expression(operand, against: nil)
    if let type = result.type, !type.isNumeric {
      let what = type == .objectIDAttributeType ? "an object" : "a \(type.xcodeName) attribute"
      throw ObjectGraphError.notANumber(operation, "\(operand.predicateFormat) is \(what)")
    }
    return result
  }

  /// The type an expression has in SQL, when it can be known without compiling it: a column's type, an
  /// object ID for relationships and `SELF`, a number for arithmetic and collection operators.
  func staticType(_ expression: PredicateExpression) -> NSAttributeType? {
    var copy = self
    if let column = resultColumn(expression) { return column.type }
    if let aggregate = rowAggregate(expression) { return rowAggregateType(aggregate) }
    switch expression {
    case .keyPath, .variable:
      guard let (path, origin) = try? copy.keyPathParts(expression) else { return nil }
      switch try? copy.resolve(path, from: origin) {
      case .column(_, let type): return type
      case .toOne, .object: return .objectIDAttributeType
      case .entity: return nil
      case .toMany(_, _, let slot, let rest):
        switch rest.first.flatMap(PredicateCollectionOperator.init(element:)) {
        case .count: return .integer64AttributeType
        case .distinctUnionOfObjects, .unionOfObjects, .distinctUnionOfArrays, .unionOfArrays, .distinctUnionOfSets:
          return rest.last == PredicateCollectionOperator.count.rawValue ? .integer64AttributeType : nil
        case .sum, .avg: return .doubleAttributeType
        case .min, .max:
          guard let destination = slot.relationship?.destinationEntity, let destinationMapping = schema.entities[destination.entityName]
          else { return nil }
          var inner = copy.nested(mapping: destinationMapping, alias: "t_")
          if case .column(_, let type) = try? inner.resolve(Array(rest.dropFirst())) { return type }
          return nil
        case nil: return nil
        }
      default: return nil
      }
    case .arithmetic(let op, let lhs, let rhs):
      guard op != .divide else { return .doubleAttributeType }
      let integers: Set<NSAttributeType> = [
        .integer16AttributeType, .integer32AttributeType, .integer64AttributeType, .booleanAttributeType,
      ]
      let operandIsInteger = { (operand: PredicateExpression) -> Bool in
        if case .constant(let value) = operand {
          switch value {
          case .integer, .bool: return true
          default: return false
          }
        }
        return copy.staticType(operand).map(integers.contains) ?? false
      }
      return operandIsInteger(lhs) && operandIsInteger(rhs) ? .integer64AttributeType : .doubleAttributeType
    case .subqueryCount:
      return .integer64AttributeType
    case .function(.noindex, let operands), .function(.indexedBy, let operands):
      return operands.first.flatMap { staticType($0) }
    case .function(let function, _):
      if function.isBitwise { return .integer64AttributeType }
      if function.givesCollection { return nil }
      return function == .now ? .dateAttributeType : function.isString ? .stringAttributeType : .doubleAttributeType
    case .index(let collection, let index):
      if index == .size { return .integer64AttributeType }
      if case .aggregate(let items) = collection { return staticType(Self.picked(items, index)) }
      if case .function(let function, _) = collection, function.givesCollection { return .doubleAttributeType }
      return nil
    case .constant, .aggregate:
      return nil
    }
  }

  private func encode(_ value: PredicateValue, as type: NSAttributeType?) -> DatabaseValue {
    if type == .decimalAttributeType, case .decimal(let decimal) = value {
      return NSDecimalNumber(decimal: decimal).doubleValue.databaseValue
    }
    if type == .decimalAttributeType, case .integer(let int) = value { return Double(int).databaseValue }
    return SQLiteValueCoding.encode(predicateValue: value)
  }

  /// Refuses a constant that cannot be compared with the column it meets: SQLite would convert it (a
  /// string `'4'` equals the integer 4 there), while the in-memory evaluator would not, so the same fetch
  /// would answer differently with and without pending changes.
  private func check(_ value: PredicateValue, against type: NSAttributeType?) throws {
    guard let type else { return }
    let fits: Bool
    switch (type, value) {
    case (_, .null): fits = true
    case (_, .collection(let items)):
      for item in items { try check(item, against: type) }
      return
    case (.stringAttributeType, .string), (.dateAttributeType, .date), (.binaryDataAttributeType, .data), (.UUIDAttributeType, .uuid),
      (.URIAttributeType, .url), (.URIAttributeType, .string),
      (.objectIDAttributeType, .objectID):
      fits = true
    case (.integer16AttributeType, _), (.integer32AttributeType, _), (.integer64AttributeType, _), (.doubleAttributeType, _),
      (.floatAttributeType, _), (.booleanAttributeType, _), (.decimalAttributeType, _):
      switch value {
      case .integer, .double, .bool, .decimal: fits = true
      default: fits = false
      }
    default: fits = false
    }
    guard fits else {
      let expected = type == .objectIDAttributeType ? "a managed object or its object ID" : "a \(type.swiftTypeName)"
      throw ObjectGraphError(
        .invalidValue,
        "A predicate compares a \(type == .objectIDAttributeType ? "relationship or SELF" : type.xcodeName + " attribute") with \(value.predicateFormat), which cannot be compared with it. Use \(expected)."
      )
    }
  }

  private mutating func compileScalar(_ comparison: PredicateComparison) throws -> String {
    let lhsColumnType = staticType(comparison.lhs)
    let rhsColumnType = staticType(comparison.rhs)
    let lhs = try expression(comparison.lhs, against: rhsColumnType)
    // The options travel to the SQL functions as their raw value (see SQLFunctions).
    let flags = comparison.options.rawValue
    func folded(_ sql: String) -> String { flags == 0 ? sql : "og_fold(\(sql), \(flags))" }

    switch comparison.op {
    case .in:
      guard case .constant(.collection(let items)) = comparison.rhs else {
        if case .aggregate(let items) = comparison.rhs {
          guard !items.isEmpty else { return "0" }
          let rhs = try expression(comparison.rhs, against: lhsColumnType)
          return "\(folded(lhs.sql)) IN \(flags == 0 ? rhs.sql : "(" + foldList(rhs.sql, flags) + ")")"
        }
        throw ObjectGraphError(.predicateSyntax, "IN needs a collection or an aggregate {a, b} on its right side.")
      }
      guard !items.isEmpty else { return "0" }
      var placeholders: [String] = []
      for item in items {
        try check(item, against: lhsColumnType)
        arguments.append(encode(item, as: lhsColumnType))
        placeholders.append(folded("?"))
      }
      return "\(folded(lhs.sql)) IN (\(placeholders.joined(separator: ", ")))"
    case .between:
      let bounds: [PredicateExpression]
      switch comparison.rhs {
      case .aggregate(let items): bounds = items
      case .constant(.collection(let items)): bounds = items.map { .constant($0) }
      default: bounds = []
      }
      guard bounds.count == 2 else {
        throw ObjectGraphError(.predicateSyntax, "BETWEEN needs exactly two bounds, as in `x BETWEEN {1, 10}`.")
      }
      let low = try expression(bounds[0], against: lhsColumnType).sql
      let high = try expression(bounds[1], against: lhsColumnType).sql
      // With options, the evaluator's comparison decides, as it does in memory.
      if flags != 0 { return "(og_between(\(lhs.sql), \(low), \(high), \(flags)) = 1)" }
      return "(\(lhs.sql) BETWEEN \(low) AND \(high))"
    default:
      break
    }

    let rhs = try expression(comparison.rhs, against: lhsColumnType)
    let l = folded(lhs.sql)
    let r = folded(rhs.sql)
    // `[l]` orders strings by the locale, through the evaluator's own function (which orders numbers as
    // numbers, and gives NULL, no match, for a NULL or values of two kinds).
    if comparison.options.contains(.localized),
      let order = [PredicateComparison.Operator.less: "<", .lessOrEqual: "<=", .greater: ">", .greaterOrEqual: ">="][comparison.op]
    {
      return "(og_localized_order(\(lhs.sql), \(rhs.sql), \(flags)) \(order) 0)"
    }
    switch comparison.op {
    case .equal: return lhs.isNull || rhs.isNull ? "(\(lhs.sql) IS \(rhs.sql))" : "(\(l) = \(r))"
    // As Core Data's SQL: `<>`, which is NULL (no match) for a nil value, so `title != "x"` leaves out the
    // rows whose title is nil, though evaluating it in memory keeps them ("Predicates for ported code").
    case .notEqual: return lhs.isNull || rhs.isNull ? "(\(lhs.sql) IS NOT \(rhs.sql))" : "(\(l) <> \(r))"
    case .less: return "(\(l) < \(r))"
    case .lessOrEqual: return "(\(l) <= \(r))"
    case .greater: return "(\(l) > \(r))"
    case .greaterOrEqual: return "(\(l) >= \(r))"
    case .contains: return "(instr(\(l), \(r)) > 0)"
    case .beginsWith:
      repeatLastArguments(of: rhs.sql, times: 1)
      return "(substr(\(l), 1, length(\(r))) = \(r))"
    case .endsWith:
      repeatLastArguments(of: rhs.sql, times: 2)
      return "(\(l) IS NOT NULL AND (length(\(r)) = 0 OR substr(\(l), -length(\(r))) = \(r)))"
    case .like:
      guard case .constant(.string(let pattern)) = comparison.rhs else {
        throw ObjectGraphError(.predicateSyntax, "LIKE needs a string pattern on its right side.")
      }
      // Replace the argument just added with the pattern in SQLite's syntax.
      arguments.removeLast()
      arguments.append(Self.sqlLikePattern(pattern).databaseValue)
      return "(\(l) LIKE \(r) ESCAPE '\\')"
    case .matches:
      if case .constant(.string(let pattern)) = comparison.rhs {
        // Refuse a pattern that does not compile now, with the evaluator's message, rather than per row.
        _ = try PredicateEvaluator.matches("", pattern: pattern, options: comparison.options)
      }
      return "og_matches(\(lhs.sql), \(rhs.sql), \(flags))"
    case .in, .between:
      return "0"
    }
  }

  /// When an expression with placeholders is written more than once, its arguments must be bound again.
  mutating func repeatLastArguments(of sql: String, times: Int) {
    let count = sql.filter { $0 == "?" }.count
    guard count > 0, arguments.count >= count else { return }
    let last = Array(arguments.suffix(count))
    for _ in 0..<times { arguments.append(contentsOf: last) }
  }

  private func foldList(_ list: String, _ flags: Int) -> String {
    list.dropFirst().dropLast().split(separator: ",").map { "og_fold(\($0.trimmingCharacters(in: .whitespaces)), \(flags))" }
      .joined(separator: ", ")
  }

  /// Turns a format-string LIKE pattern (`*` any run, `?` one character) into SQLite's (`%`, `_`, with `\` escaping).
  static func sqlLikePattern(_ pattern: String) -> String {
    var result = ""
    var escaped = false
    for character in pattern {
      if escaped {
        if character == "%" || character == "_" || character == "\\" { result.append("\\") }
        result.append(character)
        escaped = false
        continue
      }
      switch character {
      case "\\": escaped = true
      case "*": result.append("%")
      case "?": result.append("_")
      case "%", "_": result.append("\\\(character)")
      default: result.append(character)
      }
    }
    return result
  }

  // MARK: - Sorting

  mutating func orderBy(_ descriptors: [FetchSortDescriptor]) throws -> String {
    var parts: [String] = []
    for descriptor in descriptors {
      let path = descriptor.keyPath
      let sql: String
      switch try resolve(path) {
      case .column(let column, let type):
        sql =
          type == .decimalAttributeType
          ? "CAST(\(column) AS REAL)"
          : (type == .stringAttributeType && descriptor.comparison != .compare)
            ? "\(column) COLLATE \(SQLFunctions.collationName(descriptor.comparison))" : column
      case .toOne(let column, _): sql = column
      case .object(let objectAlias, _): sql = "\(objectAlias).Z_PK"
      case .entity:
        throw ObjectGraphError(
          .unknownKey, "Cannot sort by '\(descriptor.key)': it is an object's entity. Sort by 'entity.name' instead.")
      case .toMany:
        throw ObjectGraphError(
          .unknownKey,
          "Cannot sort by '\(descriptor.key)': it goes through a to-many relationship. Sort by an attribute or a to-one key path.")
      }
      parts.append("\(sql) \(descriptor.ascending ? "ASC" : "DESC")")
    }
    return parts.joined(separator: ", ")
  }
}
