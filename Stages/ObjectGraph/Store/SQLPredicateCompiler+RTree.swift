import Foundation
internal import GRDB

// Core Data's `indexed:by:(keyPath, "indexName")` hint: a comparison of an attribute that an R-tree fetch index
// holds reads the index's virtual table (``SQLiteSchema/RTreeIndex``).
extension SQLPredicateCompiler {
  /// The R-tree lookup a comparison asks for, when its left side is `indexed:by:(attribute, "index")`, the
  /// entity (or a superentity) has an R-tree fetch index of that name holding the attribute, the attribute is a
  /// number or a date, and the comparison is `BETWEEN`, `<`, `<=`, `>`, `>=` or `==` with constants:
  /// `t0.Z_PK IN (SELECT Z_PK FROM Z_Region_byLocation WHERE ZLATITUDE_MAX >= ? AND ZLATITUDE_MIN <= ?)`, its
  /// bounds bound, with the key path the comparison is then made on. `nil` otherwise: the hint is then its key
  /// path, compared as without it (an index name the entity does not have included, or an index whose table a
  /// store opened read-only lacks).
  ///
  /// SQLite's R*Tree keeps each coordinate as a 32-bit float, rounded outwards (a minimum down, a maximum up),
  /// so the lookup asks for the boxes that touch the range, which holds every row whose value is in it, and
  /// the caller compares the row's own column too: the result is the plain comparison's, row for row.
  mutating func rTreeLookup(_ comparison: PredicateComparison) throws -> (sql: String, keyPath: PredicateExpression)? {
    guard comparison.modifier == .direct, case .function(.indexedBy, let operands) = comparison.lhs, operands.count == 2,
      case .keyPath(let path) = operands[0], !path.isEmpty, case .constant(.string(let indexName)) = operands[1],
      let index = schema.rTreeIndex(named: indexName, for: mapping.entity), !schema.unusableRTreeTables.contains(index.name),
      let column = index.column(for: path.joined(separator: ".")),
      let slot = mapping.entity.layout.indexByName[path.joined(separator: ".")],
      let type = mapping.entity.layout.slots[slot].attribute?.attributeType, Self.rTreeTypes.contains(type),
      let bounds = Self.rTreeBounds(comparison)
    else { return nil }
    var conditions: [String] = []
    if let lower = bounds.lower {
      conditions.append("\(column)_MAX >= \(try expression(.constant(lower), against: type).sql)")
    }
    if let upper = bounds.upper {
      conditions.append("\(column)_MIN <= \(try expression(.constant(upper), against: type).sql)")
    }
    guard !conditions.isEmpty else { return nil }
    let sql = "\(alias).Z_PK IN (SELECT Z_PK FROM \(index.name) WHERE \(conditions.joined(separator: " AND ")))"
    return (sql, operands[0])
  }

  /// The attribute types whose values an R-tree holds as numbers: integers, floating point, Booleans, dates
  /// (seconds since 2001).
  private static let rTreeTypes: Set<NSAttributeType> = [
    .integer16AttributeType, .integer32AttributeType, .integer64AttributeType, .doubleAttributeType, .floatAttributeType,
    .booleanAttributeType, .dateAttributeType,
  ]

  /// The range a comparison's values lie in: both bounds for `BETWEEN` and `==`, one for the others (`<` and
  /// `<=` alike: the caller's own comparison tells them apart); `nil` for another operator, a bound that is
  /// not a number or a date, or options.
  private static func rTreeBounds(_ comparison: PredicateComparison) -> (lower: PredicateValue?, upper: PredicateValue?)? {
    guard comparison.options.isEmpty else { return nil }
    let isBound = { (value: PredicateValue) -> Bool in
      switch value {
      case .integer, .double, .bool, .date: true
      default: false
      }
    }
    switch (comparison.op, comparison.rhs) {
    case (.between, .aggregate(let items)) where items.count == 2:
      guard case .constant(let low) = items[0], case .constant(let high) = items[1], isBound(low), isBound(high) else { return nil }
      return (low, high)
    case (.between, .constant(.collection(let items))) where items.count == 2:
      guard isBound(items[0]), isBound(items[1]) else { return nil }
      return (items[0], items[1])
    case (.equal, .constant(let value)) where isBound(value): return (value, value)
    case (.less, .constant(let value)) where isBound(value), (.lessOrEqual, .constant(let value)) where isBound(value):
      return (nil, value)
    case (.greater, .constant(let value)) where isBound(value), (.greaterOrEqual, .constant(let value)) where isBound(value):
      return (value, nil)
    default: return nil
    }
  }
}
