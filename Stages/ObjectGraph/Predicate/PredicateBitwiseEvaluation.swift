import Foundation

/// `bitwiseAnd:with:`, `bitwiseOr:with:`, `bitwiseXor:with:`, `leftshift:by:`, `rightshift:by:` and
/// `onesComplement:` on values, giving what SQLite's `&`, `|`, `<<`, `>>` and `~` give for the SQL the
/// store writes for them, so that a fetch and `evaluate(with:)` agree.
///
/// Both sides work on 64-bit integers: a double is cut toward zero (and held at the integer limits), as
/// SQLite converts one; a boolean is 0 or 1. A shift by a negative amount shifts the other way, and by 64
/// or more gives 0 (or -1, shifting a negative number right): SQLite's rules, which are also Swift's
/// `<<` and `>>` on `Int64`. The right shift keeps the sign.
enum PredicateBitwiseEvaluation {
  /// `function(arguments…)` on non-nil arguments.
  /// - Throws: ``ObjectGraphInvalidValueError`` naming the function for an argument that is not a number.
  static func apply(_ function: PredicateFunction, _ arguments: [PredicateValue]) throws -> PredicateValue {
    let a = try integer(arguments[0], function)
    if function == .onesComplement { return .integer(~a) }
    let b = try integer(arguments[1], function)
    switch function {
    case .bitwiseAnd: return .integer(a & b)
    case .bitwiseOr: return .integer(a | b)
    case .bitwiseXor: return .integer(a ^ b)
    case .leftShift: return .integer(a << b)
    case .rightShift: return .integer(a >> b)
    default: return .null
    }
  }

  /// The 64-bit integer SQLite makes of a number: an integer as it is, a double cut toward zero and held
  /// between `Int64.min` and `Int64.max`.
  private static func integer(_ value: PredicateValue, _ function: PredicateFunction) throws -> Int64 {
    switch value {
    case .integer(let number): return number
    case .bool(let flag): return flag ? 1 : 0
    default:
      let number = try PredicateFunctionEvaluation.number(value, function)
      if number.isNaN { return 0 }
      if number <= -9.223_372_036_854_775_808e18 { return .min }
      if number >= 9.223_372_036_854_775_807e18 { return .max }
      return Int64(number)
    }
  }
}
