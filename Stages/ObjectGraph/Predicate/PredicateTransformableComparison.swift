import Foundation

/// A transformable attribute compared with values (`%K == %@`, `<`, `IN`…), as Core Data's SQLite store
/// compares it: the attribute's stored bytes with the bytes its transformer makes of each value, in SQL
/// (blobs) and in memory alike. `== nil` and `!= nil` ask whether it holds bytes at all. Only the
/// comparisons SQL can make of two blobs are taken (equality, order, `IN`, `BETWEEN`); the string
/// operators are refused.
struct PredicateTransformableComparison {
  /// The comparison, with the attribute's key path on the left.
  let op: PredicateComparison.Operator
  let path: [String]
  /// The values the bytes are compared with, already transformed (nil: compared with nil).
  let operands: [Data]?

  /// The comparison of `comparison`, when it compares a transformable attribute reached by `path` (whose
  /// description `attribute` gives, through to-ones) with constants; nil when it is not one.
  /// - Throws: 900005 for an operator bytes cannot answer, 1550 when the transformer refuses a value.
  init?(_ comparison: PredicateComparison, attribute: ([String]) throws -> NSAttributeDescription?) throws {
    guard comparison.modifier == .direct else { return nil }
    var op = comparison.op
    let path: [String]
    let constant: PredicateValue
    switch (comparison.lhs, comparison.rhs) {
    case (.keyPath(let keys), .constant(let value)):
      (path, constant) = (keys, value)
    case (.keyPath(let keys), .aggregate(let items)) where op == .in || op == .between:
      // `IN %@` and `BETWEEN %@` with an array argument, or `IN {a, b}`: constants only.
      var values: [PredicateValue] = []
      for item in items {
        guard case .constant(let value) = item else { return nil }
        values.append(value)
      }
      (path, constant) = (keys, .collection(values))
    case (.constant(let value), .keyPath(let keys)) where op != .in && op != .between:
      (path, constant) = (keys, value)
      op = op.reversed
    default:
      return nil
    }
    guard let described = try attribute(path) else { return nil }
    self.op = op
    self.path = path
    if case .null = constant, op == .equal || op == .notEqual {
      operands = nil
      return
    }
    switch op {
    case .equal, .notEqual, .less, .lessOrEqual, .greater, .greaterOrEqual, .in, .between:
      break
    default:
      throw ObjectGraphError(
        .unsupportedFeature,
        "\(described.name) is transformable: the store keeps its transformer's bytes, which can be compared with ==, !=, <, <=, >, >=, IN and BETWEEN (as Core Data compares them), not with \(op.rawValue). Store the part you search in an attribute of its own."
      )
    }
    let values: [PredicateValue]
    switch constant {
    case .collection(let items) where op == .in || op == .between: values = items
    default: values = [constant]
    }
    operands = try values.map { value in
      guard let any = value.transformableOperand else {
        throw ObjectGraphError(
          .invalidValue,
          "\(described.name) is transformable and is compared with \(PredicateExpression.constant(value).predicateFormat), which its transformer cannot be given. Compare it with a value of the attribute's own type."
        )
      }
      return try described.transformedBytes(any)
    }
  }

  /// Whether stored `bytes` (nil: no value) match, in memory, as SQL compares blobs: byte by byte, a
  /// shorter run of equal bytes first; a missing value matches only `== nil`, `!= nil` and `!=` (which SQL
  /// does not match: the gotcha of "Predicates for ported code").
  func matches(_ bytes: Data?) -> Bool {
    guard let operands else { return (bytes == nil) == (op == .equal) }
    guard let bytes else { return op == .notEqual }
    func less(_ a: Data, _ b: Data) -> Bool { a.lexicographicallyPrecedes(b) }
    switch op {
    case .equal: return operands.first == bytes
    case .notEqual: return operands.first != bytes
    case .less: return operands.first.map { less(bytes, $0) } ?? false
    case .lessOrEqual: return operands.first.map { !less($0, bytes) } ?? false
    case .greater: return operands.first.map { less($0, bytes) } ?? false
    case .greaterOrEqual: return operands.first.map { !less(bytes, $0) } ?? false
    case .in: return operands.contains(bytes)
    case .between:
      guard operands.count == 2 else { return false }
      return !less(bytes, operands[0]) && !less(operands[1], bytes)
    default: return false
    }
  }
}

extension PredicateComparison.Operator {
  /// The operator with its sides swapped (`5 < x` is `x > 5`).
  var reversed: Self {
    switch self {
    case .less: .greater
    case .lessOrEqual: .greaterOrEqual
    case .greater: .less
    case .greaterOrEqual: .lessOrEqual
    default: self
    }
  }
}

extension PredicateValue {
  /// The value a transformer is given for this constant; nil for one no transformer stores (an object ID,
  /// an entity, a list).
  var transformableOperand: Any? {
    switch self {
    case .string(let value): value
    case .integer(let value): Int(exactly: value) ?? value
    case .double(let value): value
    case .bool(let value): value
    case .date(let value): value
    case .data(let value): value
    case .uuid(let value): value
    case .url(let value): value
    case .decimal(let value): value
    case .null, .objectID, .entity, .collection: nil
    }
  }
}

extension NSEntityDescription {
  /// The transformable attribute `path` ends at, from this entity through to-one relationships (`SELF`
  /// first is skipped); nil when it ends elsewhere.
  func transformableAttribute(atKeyPath path: [String]) -> NSAttributeDescription? {
    let path = path.first == "SELF" ? Array(path.dropFirst()) : path
    guard let key = path.first else { return nil }
    // A frozen entity answers from its layout: no dictionary of its properties made for every comparison
    // of every fetch.
    if let layout = frozenLayoutIfAny {
      guard let index = layout.index(of: key) else { return nil }
      let slot = layout.slots[index]
      if path.count == 1 {
        return layout.transformableIndexes.contains(index) ? slot.attribute : nil
      }
      guard let relationship = slot.relationship, !relationship.isToMany, let destination = relationship.destinationEntity
      else { return nil }
      return destination.transformableAttribute(atKeyPath: Array(path.dropFirst()))
    }
    if path.count == 1 {
      guard let attribute = attributesByName[key], attribute.attributeType == .transformableAttributeType else { return nil }
      return attribute
    }
    guard let relationship = relationshipsByName[key], !relationship.isToMany, let destination = relationship.destinationEntity
    else { return nil }
    return destination.transformableAttribute(atKeyPath: Array(path.dropFirst()))
  }
}
