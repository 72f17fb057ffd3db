import Foundation

/// The functions of ``PredicateFunction`` on values: the one implementation the in-memory evaluator
/// and the store's `og_function` SQL function both call, so that a fetch and `evaluate(with:)` agree.
enum PredicateFunctionEvaluation {
  /// `function(arguments…)`. `nil` in any argument gives `nil`; a result that is not a number (`sqrt:(-1)`,
  /// `ln:(-1)`) gives `nil`, as SQLite stores one; numbers (and booleans, as 0 and 1) in, a double out;
  /// strings in and out for `lowercase:` and `uppercase:`; whole numbers out of the bitwise functions
  /// (``PredicateBitwiseEvaluation``); `median:`, `mode:` and `stddev:` take one `.collection` (see
  /// ``PredicateCollectionStatistics``); `noindex:` gives its argument, `indexed:by:` its first.
  /// - Throws: ``ObjectGraphInvalidValueError`` for an argument of the wrong kind (a string to `sqrt:`, a
  ///   number to `lowercase:`), naming the function; ``ObjectGraphPredicateSyntaxError`` for a wrong
  ///   number of arguments.
  static func apply(_ function: PredicateFunction, _ arguments: [PredicateValue]) throws -> PredicateValue {
    guard arguments.count == function.arity else {
      throw ObjectGraphError(
        .predicateSyntax,
        "\(function.rawValue) takes \(function.arity) argument\(function.arity == 1 ? "" : "s"), and \(arguments.count) \(arguments.count == 1 ? "was" : "were") given."
      )
    }
    switch function {
    case .now: return .date(Date())
    case .noindex, .indexedBy: return arguments[0]
    case .median, .mode, .stddev: return try PredicateCollectionStatistics.apply(function, arguments[0])
    default: break
    }
    if arguments.contains(.null) { return .null }
    if function.isBitwise { return try PredicateBitwiseEvaluation.apply(function, arguments) }
    if function.isString {
      guard case .string(let text) = arguments[0] else {
        throw ObjectGraphError.notAString(function.rawValue, arguments[0])
      }
      return .string(function == .lowercase ? text.lowercased() : text.uppercased())
    }
    let numbers = try arguments.map { try number($0, function) }
    let x = numbers[0]
    let result: Double
    switch function {
    case .sqrt: result = x.squareRoot()
    case .log: result = Foundation.log10(x)
    case .ln: result = Foundation.log(x)
    case .exp: result = Foundation.exp(x)
    case .floor: result = x.rounded(.down)
    case .ceiling: result = x.rounded(.up)
    case .trunc: result = x.rounded(.towardZero)
    case .abs: result = Swift.abs(x)
    case .raise: result = Foundation.pow(x, numbers[1])
    case .modulus: result = numbers[1] == 0 ? .nan : Foundation.fmod(x, numbers[1])
    default: result = .nan
    }
    return result.isNaN ? .null : .double(result)
  }

  /// The number `value` is, as a double (booleans as 0 and 1, decimals rounded to a double).
  /// - Throws: ``ObjectGraphInvalidValueError`` naming `function` for a value that is not a number.
  static func number(_ value: PredicateValue, _ function: PredicateFunction) throws -> Double {
    switch value {
    case .integer(let number): return Double(number)
    case .bool(let flag): return flag ? 1 : 0
    case .double(let number): return number
    case .decimal(let number): return NSDecimalNumber(decimal: number).doubleValue
    default: throw ObjectGraphError.notANumber(function.rawValue, "\(value.predicateFormat) is not one")
    }
  }
}
