import Foundation

/// `median:`, `mode:` and `stddev:` of a collection of numbers: the one implementation the in-memory
/// evaluator and the store's `og_function`, `og_median`, `og_mode` and `og_stddev` SQL functions call, so
/// that a fetch and `evaluate(with:)` agree.
///
/// Apple documents the functions' input (an array of numbers) and output (a number; an array for `mode:`),
/// not their edge cases; the engine chose, as SQL's aggregates do: `nil` members are left out, and no
/// members at all gives `nil`. The members are sorted before they are summed, so the answer does not
/// depend on the order a to-many's members come in (SQLite's row order, or the context's).
enum PredicateCollectionStatistics {
  /// `function` of `collection` (a `.collection`, or `.null`, which gives `.null`).
  /// - `median:`: the middle number, or the mean of the two middle ones for an even count; a double.
  /// - `mode:`: the numbers that occur most often (every one of them when several tie), each once, in
  ///   ascending order, as a `.collection`; `.null` for no members.
  /// - `stddev:`: the standard deviation of the population (the mean squared distance from the mean,
  ///   divided by the count, square-rooted); a double, `0` for one member.
  /// - Throws: ``ObjectGraphPredicateSyntaxError`` for a value that is not a collection;
  ///   ``ObjectGraphInvalidValueError`` naming the function for a member that is not a number.
  static func apply(_ function: PredicateFunction, _ collection: PredicateValue) throws -> PredicateValue {
    let members: [PredicateValue]
    switch collection {
    case .null: return .null
    case .collection(let items): members = items
    default: throw ObjectGraphError.notACollection(function, collection.predicateFormat)
    }
    var numbers: [Number] = []
    for member in members where member != .null {
      numbers.append(try Number(member, function))
    }
    guard !numbers.isEmpty else { return .null }
    numbers.sort(by: Number.precedes)
    switch function {
    case .median:
      let middle = numbers.count / 2
      if numbers.count % 2 == 1 { return .double(numbers[middle].double) }
      return .double((numbers[middle - 1].double + numbers[middle].double) / 2)
    case .stddev:
      let values = numbers.map(\.double)
      let mean = values.reduce(0, +) / Double(values.count)
      let squares = values.map { ($0 - mean) * ($0 - mean) }.sorted()
      return .double((squares.reduce(0, +) / Double(values.count)).squareRoot())
    default:
      // `mode:`: the sorted numbers in runs of equal ones; the longest runs win.
      var runs: [(value: Number, count: Int)] = []
      for number in numbers {
        if let last = runs.last, Number.equal(last.value, number) {
          runs[runs.count - 1].count += 1
        } else {
          runs.append((number, 1))
        }
      }
      let most = runs.map(\.count).max() ?? 0
      return .collection(runs.filter { $0.count == most }.map(\.value.predicateValue))
    }
  }

  /// A member, as SQL holds it: an integer (booleans as 0 and 1) or a double (decimals rounded to one).
  private enum Number {
    case integer(Int64)
    case double(Double)

    init(_ value: PredicateValue, _ function: PredicateFunction) throws {
      switch value {
      case .integer(let number): self = .integer(number)
      case .bool(let flag): self = .integer(flag ? 1 : 0)
      default: self = .double(try PredicateFunctionEvaluation.number(value, function))
      }
    }

    var double: Double {
      switch self {
      case .integer(let number): Double(number)
      case .double(let number): number
      }
    }

    var predicateValue: PredicateValue {
      switch self {
      case .integer(let number): .integer(number)
      case .double(let number): .double(number)
      }
    }

    /// Numeric order, integers exactly (SQLite's order of INTEGER and REAL values).
    static func precedes(_ a: Number, _ b: Number) -> Bool {
      PredicateEvaluator.compare(a.predicateValue, b.predicateValue, []) == .orderedAscending
    }

    static func equal(_ a: Number, _ b: Number) -> Bool {
      PredicateEvaluator.compare(a.predicateValue, b.predicateValue, []) == .orderedSame
    }
  }
}
