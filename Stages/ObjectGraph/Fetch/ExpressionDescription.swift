import Foundation

/// An expression a dictionary fetch computes: a key path, or an aggregate function over one (Core Data's
/// `NSExpression` in the forms a SQLite store runs).
///
/// ```swift
/// let total = ExpressionDescription()
/// total.name = "totalWords"
/// total.expression = FetchExpression(forFunction: "sum:", arguments: [FetchExpression(forKeyPath: "wordCount")])
/// total.expressionResultType = .integer64
/// ```
public struct FetchExpression: Sendable, Hashable, CustomStringConvertible {
  enum Kind: Sendable, Hashable {
    case keyPath(String)
    case function(String, [FetchExpression])
  }

  let kind: Kind

  /// The value at a key path of each row (`"wordCount"`, `"notebook.name"`).
  public init(forKeyPath keyPath: String) {
    kind = .keyPath(keyPath)
  }

  /// A function of other expressions. A SQLite store computes the aggregates `count:`, `sum:`,
  /// `average:`, `min:` and `max:` of one key path; others are refused when the fetch runs.
  public init(forFunction name: String, arguments: [FetchExpression]) {
    kind = .function(name, arguments)
  }

  /// The aggregate functions a store computes, and their SQL.
  static let functions: [String: String] = [
    "count:": "COUNT", "sum:": "SUM", "average:": "AVG", "min:": "MIN", "max:": "MAX",
  ]

  /// The expression as `NSExpression` prints it: `wordCount`, `sum:(wordCount)`.
  public var description: String {
    switch kind {
    case .keyPath(let path): path
    case .function(let name, let arguments): "\(name)(\(arguments.map(\.description).joined(separator: ", ")))"
    }
  }
}

/// A named expression to fetch as one entry of a dictionary result (Core Data's
/// `NSExpressionDescription`). Mutable, like the request it goes into.
public final class ExpressionDescription {
  /// The key of the result in each dictionary, and the name a ``FetchRequest/havingPredicate`` uses for
  /// it (as `$name`).
  public var name: String
  /// What to compute.
  public var expression: FetchExpression?
  /// The type of the result. For `.undefined` (the default) it is worked out: an integer for `count:`, and
  /// otherwise the type of the key path's attribute (a double for `average:`).
  public var expressionResultType: AttributeType

  /// Makes a description, to be filled in property by property as in Core Data.
  public init(name: String = "", expression: FetchExpression? = nil, expressionResultType: AttributeType = .undefined) {
    self.name = name
    self.expression = expression
    self.expressionResultType = expressionResultType
  }
}

/// Something that names a column of a dictionary fetch: a property name or key path (`"title"`,
/// `"notebook.name"`), an ``AttributeDescription`` or ``RelationshipDescription`` (to-one), or an
/// ``ExpressionDescription``. Core Data's `propertiesToFetch` takes the same mix.
public protocol FetchPropertySpecifier {
  /// What the column is.
  var fetchColumn: FetchColumn { get }
}

/// One column of a dictionary fetch, as a ``FetchPropertySpecifier`` describes it.
public struct FetchColumn: Sendable {
  enum Kind {
    case keyPath(String)
    case expression(name: String, FetchExpression?, AttributeType)
  }

  let kind: Kind

  /// The key of the column's value in each result dictionary.
  var name: String {
    switch kind {
    case .keyPath(let path): path
    case .expression(let name, _, _): name
    }
  }
}

extension String: FetchPropertySpecifier {
  /// A key path column.
  public var fetchColumn: FetchColumn { FetchColumn(kind: .keyPath(self)) }
}

extension AttributeDescription: FetchPropertySpecifier {
  /// The attribute's column.
  public var fetchColumn: FetchColumn { FetchColumn(kind: .keyPath(name)) }
}

extension RelationshipDescription: FetchPropertySpecifier {
  /// The relationship's column: its destination's object ID (to-one relationships only).
  public var fetchColumn: FetchColumn { FetchColumn(kind: .keyPath(name)) }
}

extension ExpressionDescription: FetchPropertySpecifier {
  /// The expression's column, under its name.
  public var fetchColumn: FetchColumn { FetchColumn(kind: .expression(name: name, expression, expressionResultType)) }
}
