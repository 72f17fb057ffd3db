import Foundation
internal import GRDB

// The compiler's collection-valued expressions: the gathering operators (`notes.@distinctUnionOfObjects.title`),
// the functions of a collection (`median:`, `mode:`, `stddev:`), whose values `mode:` gives as a JSON array
// read back with SQLite's `json_each`, and the bitwise functions, which are SQLite's own operators.
extension SQLPredicateCompiler {
  /// Whether a comparison of a to-many key path whose rest (after the to-many) is `rest` ranges over its
  /// members (`notes.title`, `notes.@unionOfObjects.title`), rather than reducing them to one value
  /// (`notes.@sum.rating`, `notes.@count`, the count of a union that `[SIZE]` makes).
  static func isQuantifiable(_ rest: [String]) -> Bool {
    guard let collectionOperator = rest.first.flatMap(PredicateCollectionOperator.init(element:)) else { return true }
    return collectionOperator.isUnion && rest.last != PredicateCollectionOperator.count.rawValue
  }

  /// `noindex:(x)` without its hint when `x` is a collection (a to-many key path, `mode:(…)`), which no
  /// index serves; `expression` unchanged otherwise.
  func collectionWithoutIndexHint(_ expression: PredicateExpression) -> PredicateExpression {
    guard case .function(.noindex, let operands) = expression, operands.count == 1 else { return expression }
    switch operands[0] {
    case .keyPath, .variable:
      return staticType(operands[0]) == nil ? collectionWithoutIndexHint(operands[0]) : expression
    case .function(let function, _) where function.givesCollection:
      return operands[0]
    case .function(.noindex, _):
      return collectionWithoutIndexHint(operands[0])
    default:
      return expression
    }
  }

  /// `mode:(notes.rating) == 5`, `ALL mode:(…) > 2`: the comparison of each value `function` (which gives a
  /// collection) gives, under the comparison's modifier (a direct one is `ANY`, and `CONTAINS` asks
  /// whether one of them is the right side), as the evaluator compares a to-many's values.
  mutating func valuesComparison(_ comparison: PredicateComparison, _ function: PredicateFunction, _ operand: PredicateExpression)
    throws -> String
  {
    let values = try collectionFunctionCall(function, operand)
    let row = aliasCounter.make()
    // The value of the row is named as a grouped fetch's columns are, by a name no `$variable` can have.
    let name = "og value \(row)"
    let saved = resultColumns[name]
    resultColumns[name] = ResultColumn(sql: "\(row).value", type: .doubleAttributeType)
    defer { resultColumns[name] = saved }
    var member = comparison
    member.modifier = .direct
    member.lhs = .variable(name, path: [])
    if comparison.modifier == .direct && comparison.op == .contains { member.op = .equal }
    let condition = try compile(.comparison(member))
    let from = "FROM json_each(\(values)) \(row)"
    switch comparison.modifier {
    case .direct, .any: return "EXISTS (SELECT 1 \(from) WHERE (\(condition)))"
    case .all: return "NOT EXISTS (SELECT 1 \(from) WHERE (\(condition)) IS NOT 1)"
    case .none: return "NOT EXISTS (SELECT 1 \(from) WHERE (\(condition)))"
    }
  }

  /// `x IN mode:(notes.rating)`: whether `x` is one of the values (a nil is in nothing, as for `IN {…}`).
  mutating func inValues(_ comparison: PredicateComparison, _ function: PredicateFunction, _ operand: PredicateExpression)
    throws -> String
  {
    guard comparison.modifier == .direct else {
      throw ObjectGraphError(
        .predicateSyntax,
        "\(comparison.predicateFormat): ANY, ALL and NONE range over the left side, and IN takes the collection on its right; write 'x IN \(comparison.rhs.predicateFormat)'."
      )
    }
    let value = try arithmeticOperand(comparison.lhs, "IN").sql
    let values = try collectionFunctionCall(function, operand)
    return "(\(value) IN (SELECT value FROM json_each(\(values))))"
  }

  /// `mode:(…)[FIRST]`, `[LAST]`, `[n]` (its values in ascending order) and `[SIZE]` (how many there are).
  mutating func pickValue(_ function: PredicateFunction, _ operand: PredicateExpression, _ index: PredicateIndex) throws -> String {
    let values = try collectionFunctionCall(function, operand)
    switch index {
    case .size: return "(SELECT COUNT(*) FROM json_each(\(values)))"
    case .first: return "(SELECT value FROM json_each(\(values)) ORDER BY key LIMIT 1)"
    case .last: return "(SELECT value FROM json_each(\(values)) ORDER BY key DESC LIMIT 1)"
    case .position(let position):
      guard position >= 0 else { return "NULL" }
      return "(SELECT value FROM json_each(\(values)) ORDER BY key LIMIT 1 OFFSET \(position))"
    }
  }

  /// `notes.@distinctUnionOfObjects.title` followed by `@count` (what `[SIZE]` of it reads): how many values
  /// the union holds, `COUNT(DISTINCT …)` or `COUNT(…)`, which leave the nils out as the union does.
  /// - Throws: ``ObjectGraphPredicateSyntaxError`` for a union used as one value.
  mutating func unionCount(
    _ keyPath: [String], ownerAlias: String, ownerMapping: SQLiteSchema.EntityTable, slot: EntityLayout.Slot, rest: [String]
  ) throws -> String {
    guard rest.count > 2, rest.last == PredicateCollectionOperator.count.rawValue,
      let collectionOperator = rest.first.flatMap(PredicateCollectionOperator.init(element:))
    else {
      throw ObjectGraphError.collectionWhereValueNeeded(keyPath.joined(separator: "."))
    }
    let values = try memberValues(
      keyPath, ownerAlias: ownerAlias, ownerMapping: ownerMapping, slot: slot, rest: Array(rest.dropFirst().dropLast()))
    return "(SELECT COUNT(\(collectionOperator.isDistinct ? "DISTINCT " : "")\(values.value)) \(values.from))"
  }

  /// The values of a to-many key path as rows: `from` (`FROM … WHERE …`, linking the members to their owner)
  /// and `value`, the column (through to-ones) that `rest` names on each member.
  /// - Throws: ``ObjectGraphPredicateSyntaxError`` when `rest` does not end at an attribute.
  private mutating func memberValues(
    _ keyPath: [String], ownerAlias: String, ownerMapping: SQLiteSchema.EntityTable, slot: EntityLayout.Slot, rest: [String]
  ) throws -> (from: String, value: String, type: NSAttributeType) {
    let sub = aliasCounter.make()
    let link = try linkSubquery(ownerAlias: ownerAlias, ownerMapping: ownerMapping, slot: slot, subAlias: sub)
    var inner = nested(mapping: link.destination, alias: sub)
    guard case .column(let column, let type) = try inner.resolve(rest) else {
      throw ObjectGraphError(
        .predicateSyntax,
        "'\(keyPath.joined(separator: "."))' must end at an attribute of the to-many's entity, as in notes.@distinctUnionOfObjects.title or median:(notes.rating)."
      )
    }
    arguments.append(contentsOf: inner.arguments)
    let value = type == .decimalAttributeType ? "CAST(\(column) AS REAL)" : column
    return ("FROM \(link.from)\(inner.joinClause) WHERE \(link.condition)", value, type)
  }

  /// `median:(x)`, `mode:(x)`, `stddev:(x)` of a collection `x`: a to-many's values (maybe through a
  /// gathering operator) reduced by the `og_median`, `og_mode` or `og_stddev` aggregate in a scalar
  /// subquery; an aggregate's or array argument's items given to `og_function`; `mode:(…)`'s values read back
  /// with `json_each`. Each calls ``PredicateCollectionStatistics``, as the evaluator does; `mode:` gives a
  /// JSON array of numbers (NULL for none).
  /// - Throws: ``ObjectGraphPredicateSyntaxError`` for one value where a collection is needed;
  ///   ``ObjectGraphInvalidValueError`` for values that are not numbers.
  mutating func collectionFunctionCall(_ function: PredicateFunction, _ operand: PredicateExpression) throws -> String {
    let aggregate = "og_" + function.word
    switch collectionWithoutIndexHint(operand) {
    case .constant(.null):
      return "NULL"
    case .constant(.collection(let items)):
      return try itemsCall(function, items.map { .constant($0) })
    case .aggregate(let items):
      return try itemsCall(function, items)
    case .function(let inner, let operands) where inner.givesCollection && operands.count == 1:
      return "(SELECT \(aggregate)(value) FROM json_each(\(try collectionFunctionCall(inner, operands[0]))))"
    case let bare:
      guard let (path, origin) = try keyPathParts(bare),
        case .toMany(let owner, let ownerMapping, let slot, var rest) = try resolve(path, from: origin)
      else {
        throw ObjectGraphError.notACollection(function, operand.predicateFormat)
      }
      var distinct = false
      if let collectionOperator = rest.first.flatMap(PredicateCollectionOperator.init(element:)) {
        guard collectionOperator.isUnion, rest.last != PredicateCollectionOperator.count.rawValue else {
          throw ObjectGraphError.notACollection(function, operand.predicateFormat)
        }
        distinct = collectionOperator.isDistinct
        rest.removeFirst()
      }
      let values = try memberValues(path, ownerAlias: owner, ownerMapping: ownerMapping, slot: slot, rest: rest)
      guard values.type.isNumeric else {
        throw ObjectGraphError.notANumber(
          function.rawValue, "'\(path.joined(separator: "."))' reaches a \(values.type.xcodeName) attribute")
      }
      return "(SELECT \(aggregate)(\(distinct ? "DISTINCT " : "")\(values.value)) \(values.from))"
    }
  }

  /// `og_function('median:', a, b, …)` over an aggregate's items, each a number.
  private mutating func itemsCall(_ function: PredicateFunction, _ items: [PredicateExpression]) throws -> String {
    var parts = ["'\(function.rawValue)'"]
    for item in items { parts.append(try arithmeticOperand(item, function.rawValue).sql) }
    return "og_function(\(parts.joined(separator: ", ")))"
  }

  /// `bitwiseAnd:with:(a, b)` and the others as SQLite's operators `&`, `|`, `<<`, `>>`, `~`; exclusive or,
  /// which SQLite lacks, as `~(a & b) & (a | b)` (each operand written, and bound, twice). SQLite makes
  /// integers of both operands first, as ``PredicateBitwiseEvaluation`` does.
  /// - Throws: ``ObjectGraphInvalidValueError`` for an operand that is not a number.
  mutating func bitwiseCall(_ function: PredicateFunction, _ operands: [PredicateExpression]) throws -> String {
    let a = try arithmeticOperand(operands[0], function.rawValue).sql
    if function == .onesComplement { return "(~\(a))" }
    let b = try arithmeticOperand(operands[1], function.rawValue).sql
    switch function {
    case .bitwiseAnd: return "(\(a) & \(b))"
    case .bitwiseOr: return "(\(a) | \(b))"
    case .leftShift: return "(\(a) << \(b))"
    case .rightShift: return "(\(a) >> \(b))"
    default:
      repeatLastArguments(of: a + b, times: 1)
      return "(~(\(a) & \(b)) & (\(a) | \(b)))"
    }
  }

  /// `steps[FIRST]`, `steps.title[LAST]`, `steps[2]` for a key path through one ordered to-many (to-ones before
  /// and after it): the value of the member at that place, in a scalar subquery ordered as the store reads
  /// the members (their position, then their primary key), NULL past either end; `nil` for `[SIZE]` and for
  /// other expressions.
  /// - Throws: ``ObjectGraphPredicateSyntaxError`` for a to-many that is not ordered, or a path through two
  ///   to-manys or a collection operator: their values have no order.
  mutating func orderedMember(_ collection: PredicateExpression, _ index: PredicateIndex) throws
    -> (sql: String, type: NSAttributeType?)?
  {
    guard index != .size, let (path, origin) = try keyPathParts(collection),
      case .toMany(let owner, let ownerMapping, let slot, let rest) = try resolve(path, from: origin)
    else { return nil }
    guard slot.isOrdered, !rest.contains(where: { $0.hasPrefix("@") }) else {
      throw ObjectGraphError.indexOnRelationship(collection, index)
    }
    let sub = aliasCounter.make()
    let link = try linkSubquery(ownerAlias: owner, ownerMapping: ownerMapping, slot: slot, subAlias: sub)
    guard let position = link.position else { throw ObjectGraphError.indexOnRelationship(collection, index) }
    var inner = nested(mapping: link.destination, alias: sub)
    let value: (sql: String, type: NSAttributeType?)
    switch try inner.resolve(rest) {
    case .column(let column, let type): value = (type == .decimalAttributeType ? "CAST(\(column) AS REAL)" : column, type)
    case .toOne(let column, _): value = (column, .objectIDAttributeType)
    case .object(let objectAlias, _): value = ("\(objectAlias).Z_PK", .objectIDAttributeType)
    default: throw ObjectGraphError.indexOnRelationship(collection, index)
    }
    let descending = index == .last ? " DESC" : ""
    var limit = " LIMIT 1"
    if case .position(let place) = index {
      guard place >= 0 else { return ("NULL", value.type) }
      limit += " OFFSET \(place)"
    }
    arguments.append(contentsOf: inner.arguments)
    return (
      "(SELECT \(value.sql) FROM \(link.from)\(inner.joinClause) WHERE \(link.condition) ORDER BY \(position)\(descending), \(sub).Z_PK\(descending)\(limit))",
      value.type
    )
  }
}
