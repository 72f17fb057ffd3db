import Foundation

/// Arithmetic and collection operators on values in memory, giving what SQLite gives for the SQL the
/// compiler writes for them (`+ - * /`, `TOTAL`, `AVG`, `MIN`, `MAX`).
enum PredicateArithmeticEvaluation {
  /// `lhs op rhs`. `nil` in gives `nil` out; integers (and bools) stay integers under `+ - *`, becoming a
  /// double on overflow; `/` divides as doubles, and by zero gives `nil`.
  /// - Throws: ``ObjectGraphInvalidValueError`` for a value that is not a number.
  static func apply(_ op: PredicateArithmetic, _ lhs: PredicateValue, _ rhs: PredicateValue) throws -> PredicateValue {
    if lhs == .null || rhs == .null { return .null }
    let left = try number(lhs, op)
    let right = try number(rhs, op)
    if case .integer(let a) = left, case .integer(let b) = right, op != .divide {
      let (result, overflow): (Int64, Bool) =
        switch op {
        case .add: a.addingReportingOverflow(b)
        case .subtract: a.subtractingReportingOverflow(b)
        default: a.multipliedReportingOverflow(by: b)
        }
      if !overflow { return .integer(result) }
    }
    let a = left.double
    let b = right.double
    switch op {
    case .add: return .double(a + b)
    case .subtract: return .double(a - b)
    case .multiply: return .double(a * b)
    case .divide: return b == 0 ? .null : .double(a / b)
    }
  }

  /// A to-many's values gathered by `@unionOfObjects` and the other array and set operators: without the
  /// `nil`s, and for the `@distinct…` ones each value once (the first met; equal as `==` finds them, so 3
  /// and 3.0 are one value, as SQL's `DISTINCT` finds them).
  static func gather(_ values: [PredicateValue], by collectionOperator: PredicateCollectionOperator) -> [PredicateValue] {
    let present = values.filter { $0 != .null }
    guard collectionOperator.isDistinct else { return present }
    var seen = Set<DistinctKey>()
    return present.filter { seen.insert(DistinctKey($0)).inserted }
  }

  /// What makes two values one for `DISTINCT`: numbers by value (an integral double is that integer),
  /// strings by their bytes (SQLite's BINARY collation), other values as they are.
  private enum DistinctKey: Hashable {
    case integer(Int64)
    case double(Double)
    case bytes([UInt8])
    case other(PredicateValue)

    init(_ value: PredicateValue) {
      switch value {
      case .integer(let number): self = .integer(number)
      case .bool(let flag): self = .integer(flag ? 1 : 0)
      case .double(let number): self = Int64(exactly: number).map(DistinctKey.integer) ?? .double(number)
      case .decimal(let number): self = DistinctKey(.double(NSDecimalNumber(decimal: number).doubleValue))
      case .string(let text): self = .bytes(Array(text.utf8))
      case .url(let url): self = .bytes(Array(url.absoluteString.utf8))
      default: self = .other(value)
      }
    }
  }

  /// A to-many's values reduced by `@sum`, `@avg`, `@min` or `@max` (`nil` values are skipped).
  /// - Throws: ``ObjectGraphInvalidValueError`` when `@sum` or `@avg` meets a value that is not a
  ///   number.
  static func reduce(_ values: [PredicateValue], by collectionOperator: PredicateCollectionOperator) throws
    -> PredicateValue
  {
    let present = values.filter { $0 != .null }
    switch collectionOperator {
    case .distinctUnionOfObjects, .unionOfObjects, .distinctUnionOfArrays, .unionOfArrays, .distinctUnionOfSets:
      return .collection(gather(values, by: collectionOperator))
    case .count:
      return .integer(Int64(present.count))
    case .sum, .avg:
      var total = 0.0
      for value in present { total += try number(value, collectionOperator.rawValue).double }
      if collectionOperator == .sum { return .double(total) }
      return present.isEmpty ? .null : .double(total / Double(present.count))
    case .min, .max:
      var best: PredicateValue?
      for value in present {
        guard let current = best else {
          best = value
          continue
        }
        let order = PredicateEvaluator.compare(value, current, [])
        if order == (collectionOperator == .min ? .orderedAscending : .orderedDescending) { best = value }
      }
      return best ?? .null
    }
  }

  private enum Number {
    case integer(Int64)
    case double(Double)

    var double: Double {
      switch self {
      case .integer(let value): Double(value)
      case .double(let value): value
      }
    }
  }

  private static func number(_ value: PredicateValue, _ op: PredicateArithmetic) throws -> Number {
    try number(value, op.rawValue)
  }

  private static func number(_ value: PredicateValue, _ operation: String) throws -> Number {
    switch value {
    case .integer(let number): return .integer(number)
    case .bool(let flag): return .integer(flag ? 1 : 0)
    case .double(let number): return .double(number)
    case .decimal(let number): return .double(NSDecimalNumber(decimal: number).doubleValue)
    default:
      throw ObjectGraphError.notANumber(operation, "\(value.predicateFormat) is not one")
    }
  }
}

extension PredicateValue {
  /// Whether this is an array or set argument.
  var isCollection: Bool {
    if case .collection = self { true } else { false }
  }
}
