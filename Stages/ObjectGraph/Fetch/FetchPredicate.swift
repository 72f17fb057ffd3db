import Foundation

/// A filter for a fetch, written in `NSPredicate`'s format-string language and compiled to SQL.
///
/// ```swift
/// let recent = try FetchPredicate(format: "createdAt > %@ AND notebook.name == %@", cutoff, "Work")
/// let tagged = try FetchPredicate(format: "ANY tags.name ==[c] %@", "swift")
/// ```
///
/// The language: `== != < <= > >=`, `BETWEEN`, `IN`, `CONTAINS BEGINSWITH ENDSWITH LIKE MATCHES` with
/// `[c]`, `[d]`, `[cd]`, `AND OR NOT && || !`, parentheses, `nil`, `TRUEPREDICATE`, `FALSEPREDICATE`,
/// `%@ %K %d %i %ld %f %s`, key paths through to-one relationships, `ANY`/`ALL`/`NONE` over to-many ones,
/// `@count`, `SELF`, and comparison to an object ID (`notebook == %@` with `notebook.objectID`: pass IDs,
/// not objects, since objects may not leave their queue and predicates may).
///
/// A syntax error throws ``ObjectGraphError/Code/predicateSyntax`` saying where; an unknown key is
/// reported (naming the entity and the key) when the predicate is first used in a fetch.
public struct FetchPredicate: Sendable, CustomStringConvertible {
  let node: PredicateNode

  /// Parses a format string, substituting `arguments` for its `%@`, `%K`, `%d`… in order.
  public init(format: String, _ arguments: any Sendable...) throws {
    node = try PredicateParser.parse(format: format, arguments: arguments)
  }

  /// Parses a format string with its arguments given as an array.
  public init(format: String, argumentArray: [any Sendable]) throws {
    node = try PredicateParser.parse(format: format, arguments: argumentArray)
  }

  init(node: PredicateNode) {
    self.node = node
  }

  /// A predicate that every object matches.
  public static let `true` = FetchPredicate(node: .constant(true))
  /// A predicate that no object matches.
  public static let `false` = FetchPredicate(node: .constant(false))

  /// Both predicates (`AND`).
  public static func && (lhs: FetchPredicate, rhs: FetchPredicate) -> FetchPredicate {
    FetchPredicate(node: .and([lhs.node, rhs.node]))
  }

  /// Either predicate (`OR`).
  public static func || (lhs: FetchPredicate, rhs: FetchPredicate) -> FetchPredicate {
    FetchPredicate(node: .or([lhs.node, rhs.node]))
  }

  /// The opposite predicate (`NOT`).
  public static prefix func ! (predicate: FetchPredicate) -> FetchPredicate {
    FetchPredicate(node: .not(predicate.node))
  }

  /// Whether `object` matches, evaluated in memory on its current (maybe unsaved) values.
  /// - Throws: ``ObjectGraphError/Code/unknownKey`` for a key the object's entity does not have.
  public func evaluate(with object: ManagedObject) throws -> Bool {
    try PredicateEvaluator.evaluate(node, on: object)
  }

  /// The predicate in format-string form (Core Data's `predicateFormat`).
  public var predicateFormat: String { node.description }
  public var description: String { predicateFormat }
}
