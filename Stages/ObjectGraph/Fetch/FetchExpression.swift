import Foundation

/// The engine's form of an expression a dictionary fetch computes (an ``NSExpressionDescription``'s): a key
/// path, the fetched object itself, or an expression of the predicate language computed for each row
/// (arithmetic, `NSExpression`'s functions, constants), in which aggregates over the rows (`sum:`, `count:`,
/// …) may stand for values (`sum:(price * quantity)`, `sum:(price) / count:(price)`).
struct FetchExpression: Sendable, CustomStringConvertible {
  enum Kind: Sendable {
    /// The value at a key path of each row (`"wordCount"`, `"notebook.name"`): an attribute's value, or a
    /// to-one relationship's destination ID.
    case keyPath(String)
    /// The fetched object itself (`SELF`, `NSExpression.expressionForEvaluatedObject()`): its object ID.
    case evaluatedObject
    /// An expression of each row, or of each group when it holds aggregates: in `value`, the variable
    /// ``FetchExpression/aggregateVariable(_:)`` of `n` (`$` and a name no format can write) stands for
    /// `aggregates[n]`.
    case computed(PredicateExpression, aggregates: [Aggregate])
  }

  /// An aggregate over the rows (of each group): a function of an expression of each row.
  struct Aggregate: Sendable {
    let function: AggregateFunction
    /// What is aggregated: an expression of one row (never holding an aggregate itself).
    let argument: PredicateExpression
  }

  /// The functions that aggregate a dictionary fetch's rows, by `NSExpression`'s names, and their SQL.
  enum AggregateFunction: String, Sendable, CaseIterable {
    case count = "count:"
    case sum = "sum:"
    case average = "average:"
    case min = "min:"
    case max = "max:"
    case median = "median:"
    case stddev = "stddev:"

    /// The SQL aggregate: SQLite's own, or the engine's (`og_median`, `og_stddev`, which run the same code
    /// as the predicates' `median:` and `stddev:`).
    var sql: String {
      switch self {
      case .count: "COUNT"
      case .sum: "SUM"
      case .average: "AVG"
      case .min: "MIN"
      case .max: "MAX"
      case .median: "og_median"
      case .stddev: "og_stddev"
      }
    }

    /// Whether the function works on numbers only.
    var takesNumbers: Bool { self != .count && self != .min && self != .max }
  }

  let kind: Kind
  /// The expression as `NSExpression` prints it: `wordCount`, `sum:(wordCount)`.
  let description: String

  /// The name of the variable standing for the aggregate at `index` in a computed expression's value.
  static func aggregateVariable(_ index: Int) -> String { "@aggregate\(index)" }

  /// The aggregate function names a dictionary fetch computes, for messages.
  static var aggregateNames: String { AggregateFunction.allCases.map(\.rawValue).joined(separator: ", ") }

  /// Whether `expression` reads anything of the row it is computed on (a key path, `SELF`, a subquery): a
  /// constant, `now()` or arithmetic of constants does not.
  static func readsRow(_ expression: PredicateExpression) -> Bool {
    switch expression {
    case .keyPath, .subqueryCount: true
    case .constant, .variable: false
    case .aggregate(let items): items.contains(where: readsRow)
    case .arithmetic(_, let lhs, let rhs): readsRow(lhs) || readsRow(rhs)
    case .function(_, let operands): operands.contains(where: readsRow)
    case .index(let collection, _): readsRow(collection)
    }
  }
}
