import Foundation

/// The engine's form of an expression a dictionary fetch computes: a key path, or an aggregate function
/// over one (`NSExpression` in the forms a SQLite store runs).
struct FetchExpression: Sendable, Hashable, CustomStringConvertible {
  enum Kind: Sendable, Hashable {
    case keyPath(String)
    case function(String, [FetchExpression])
  }

  let kind: Kind

  /// The value at a key path of each row (`"wordCount"`, `"notebook.name"`).
  init(forKeyPath keyPath: String) {
    kind = .keyPath(keyPath)
  }

  /// A function of other expressions. A SQLite store computes the aggregates `count:`, `sum:`,
  /// `average:`, `min:` and `max:` of one key path; others are refused when the fetch runs.
  init(forFunction name: String, arguments: [FetchExpression]) {
    kind = .function(name, arguments)
  }

  /// The aggregate functions a store computes, and their SQL.
  static let functions: [String: String] = [
    "count:": "COUNT", "sum:": "SUM", "average:": "AVG", "min:": "MIN", "max:": "MAX",
  ]

  /// The expression as `NSExpression` prints it: `wordCount`, `sum:(wordCount)`.
  var description: String {
    switch kind {
    case .keyPath(let path): path
    case .function(let name, let arguments): "\(name)(\(arguments.map(\.description).joined(separator: ", ")))"
    }
  }
}
