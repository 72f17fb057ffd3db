import Foundation
internal import GRDB

/// The SQL functions the predicate compiler uses where SQLite has no built-in equivalent: string folding
/// for `[c]`/`[d]`, `MATCHES` (a regular expression that must match the whole string), `NSExpression`'s
/// functions and the aggregates `median:`, `mode:` and `stddev:` of a to-many need. Each calls the
/// in-memory evaluator's own code, so SQL and memory agree. Their last argument is the comparison's
/// options as a number (`PredicateComparison.Options.rawValue`: 1 = `[c]`, 2 = `[d]`, 8 = `[l]`), and `[l]`'s
/// locale-sensitive order.
enum SQLFunctions {
  static let fold = DatabaseFunction("og_fold", argumentCount: 2, pure: true) { values in
    guard let text = String.fromDatabaseValue(values[0]) else { return nil as String? }
    return PredicateEvaluator.fold(text, options(values[1]))
  }

  static let matches = DatabaseFunction("og_matches", argumentCount: 3, pure: true) { values in
    guard let text = String.fromDatabaseValue(values[0]), let pattern = String.fromDatabaseValue(values[1]) else { return false }
    return (try? PredicateEvaluator.matches(text, pattern: pattern, options: options(values[2]))) ?? false
  }

  /// `[l]`'s order of two strings: -1, 0 or 1 (see `PredicateEvaluator.localizedOrder`).
  static let localizedOrder = DatabaseFunction("og_localized_order", argumentCount: 3, pure: true) { values in
    switch (values[0].storage, values[1].storage) {
    case (.string(let left), .string(let right)):
      return PredicateEvaluator.localizedOrder(left, right, options(values[2])).rawValue
    case (.int64(let left), .int64(let right)):
      return left < right ? -1 : left == right ? 0 : 1
    case (.int64, .double), (.double, .int64), (.double, .double):
      guard let left = Double.fromDatabaseValue(values[0]), let right = Double.fromDatabaseValue(values[1]) else { return nil as Int? }
      return left < right ? -1 : left == right ? 0 : 1
    case (.blob(let left), .blob(let right)):
      return left.elementsEqual(right) ? 0 : left.lexicographicallyPrecedes(right) ? -1 : 1
    default:
      return nil as Int?
    }
  }

  /// `x BETWEEN {low, high}` with options (`[c]`, `[d]`, `[l]`): 1 or 0 as the evaluator decides, NULL for a
  /// NULL or values it cannot compare.
  static let between = DatabaseFunction("og_between", argumentCount: 4, pure: true) { values in
    guard let value = predicateValue(values[0]), let low = predicateValue(values[1]), let high = predicateValue(values[2]),
      let fromLow = PredicateEvaluator.compare(value, low, options(values[3])),
      let toHigh = PredicateEvaluator.compare(value, high, options(values[3]))
    else { return nil as Bool? }
    return fromLow != .orderedAscending && toHigh != .orderedDescending
  }

  /// `og_function('sqrt:', x)`: one of ``PredicateFunction``'s functions of its other arguments, computed by
  /// ``PredicateFunctionEvaluation``, as the evaluator computes it (NULL for a value of the wrong kind, which
  /// the compiler refuses before the statement runs).
  static let function = DatabaseFunction("og_function", argumentCount: nil, pure: true) { values in
    guard let name = values.first.flatMap(String.fromDatabaseValue), let function = PredicateFunction(rawValue: name) else {
      return nil as DatabaseValue?
    }
    var arguments = values.dropFirst().map { predicateValue($0) ?? .null }
    // `og_function('median:', a, b, c)`: the items of one collection.
    if function.takesCollection { arguments = [.collection(arguments)] }
    return databaseValue(try? PredicateFunctionEvaluation.apply(function, arguments))
  }

  /// `og_median(x)`, `og_mode(x)`, `og_stddev(x)`: aggregates of a column's values (NULLs left out), for
  /// `median:`, `mode:` and `stddev:` of a to-many's values, computed by ``PredicateCollectionStatistics``.
  static let collectionAggregates: [DatabaseFunction] = [
    DatabaseFunction("og_median", argumentCount: 1, pure: true, aggregate: MedianAggregate.self),
    DatabaseFunction("og_mode", argumentCount: 1, pure: true, aggregate: ModeAggregate.self),
    DatabaseFunction("og_stddev", argumentCount: 1, pure: true, aggregate: StandardDeviationAggregate.self),
  ]

  /// A function's result as SQLite holds it: a string, a number, NULL; a collection (`mode:`'s) as a JSON
  /// array of its numbers, which `json_each` reads back.
  static func databaseValue(_ value: PredicateValue?) -> DatabaseValue {
    switch value {
    case .string(let text): return text.databaseValue
    case .double(let number): return number.databaseValue
    case .integer(let number): return number.databaseValue
    case .collection(let items):
      let numbers = items.map { item -> String in
        switch item {
        case .integer(let number): return String(number)
        case .double(let number) where number.isFinite: return "\(number)"
        // JSON has no infinity; a number too large for a double reads back as one.
        case .double(let number) where number.isInfinite: return number > 0 ? "9e999" : "-9e999"
        default: return "null"
        }
      }
      return ("[" + numbers.joined(separator: ",") + "]").databaseValue
    default: return .null
    }
  }

  /// A column's value as the evaluator compares it (dates are stored as numbers, and compared as numbers).
  static func predicateValue(_ value: DatabaseValue) -> PredicateValue? {
    switch value.storage {
    case .string(let text): .string(text)
    case .int64(let number): .integer(number)
    case .double(let number): .double(number)
    case .blob(let bytes): .data(bytes)
    case .null: nil
    }
  }

  private static func options(_ value: DatabaseValue) -> PredicateComparison.Options {
    PredicateComparison.Options(rawValue: Int.fromDatabaseValue(value) ?? 0)
  }

  /// One collation per sort comparison other than `compare:` (which is SQLite's `BINARY`), named
  /// `og_` and the comparison's name, calling the comparison the in-memory sort uses.
  static let collations: [FetchSortDescriptor.Comparison: DatabaseCollation] = Dictionary(
    uniqueKeysWithValues: FetchSortDescriptor.Comparison.allCases.filter { $0 != .compare }.map { comparison in
      (comparison, DatabaseCollation(collationName(comparison)) { comparison.order($0, $1) })
    })

  /// `og_localizedStandardCompare` for `.localizedStandardCompare`.
  static func collationName(_ comparison: FetchSortDescriptor.Comparison) -> String {
    "og_" + comparison.rawValue.dropLast()
  }

  static func install(in db: Database) {
    db.add(function: fold)
    db.add(function: matches)
    db.add(function: localizedOrder)
    db.add(function: between)
    db.add(function: function)
    for aggregate in collectionAggregates { db.add(function: aggregate) }
    for collation in collations.values { db.add(collation: collation) }
  }
}

/// The state of one of the `og_median`, `og_mode`, `og_stddev` aggregates: the values met so far, reduced
/// by its function when SQLite asks for the result.
protocol CollectionFunctionAggregate: DatabaseAggregate {
  /// The function the aggregate computes.
  static var function: PredicateFunction { get }
  /// The non-NULL values met so far.
  var members: [PredicateValue] { get set }
}

extension CollectionFunctionAggregate {
  mutating func step(_ dbValues: [DatabaseValue]) {
    if let value = dbValues.first.flatMap(SQLFunctions.predicateValue) { members.append(value) }
  }

  func finalize() -> (any DatabaseValueConvertible)? {
    SQLFunctions.databaseValue(try? PredicateFunctionEvaluation.apply(Self.function, [.collection(members)]))
  }
}

/// `og_median`: ``PredicateFunction/median``.
struct MedianAggregate: CollectionFunctionAggregate {
  static var function: PredicateFunction { .median }
  var members: [PredicateValue] = []
}

/// `og_mode`: ``PredicateFunction/mode`` (a JSON array of numbers).
struct ModeAggregate: CollectionFunctionAggregate {
  static var function: PredicateFunction { .mode }
  var members: [PredicateValue] = []
}

/// `og_stddev`: ``PredicateFunction/stddev``.
struct StandardDeviationAggregate: CollectionFunctionAggregate {
  static var function: PredicateFunction { .stddev }
  var members: [PredicateValue] = []
}
