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

  /// A to-many's values reduced by `@sum`, `@avg`, `@min` or `@max` (`nil` values are skipped).
  /// - Throws: ``ObjectGraphInvalidValueError`` when `@sum` or `@avg` meets a value that is not a
  ///   number.
  static func reduce(_ values: [PredicateValue], by collectionOperator: PredicateCollectionOperator) throws
    -> PredicateValue
  {
    let present = values.filter { $0 != .null }
    switch collectionOperator {
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
