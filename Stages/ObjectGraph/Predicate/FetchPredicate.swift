import Foundation

/// The engine's form of a predicate: the parsed tree, `Sendable`, which fetches, controllers, batch
/// requests and the in-memory evaluator run. Apps make `NSPredicate`s (`NSPredicate(format:)`,
/// `NSComparisonPredicate`, `NSCompoundPredicate`); the engine reads each into one of these on the
/// caller's queue (``init(_:)``, in FetchPredicate+Foundation.swift).
///
/// **Managed objects as arguments.** It does not keep an object given as an argument (which belongs to
/// its queue) but reads its ``NSManagedObject/objectID`` at the call. When that ID is temporary (the
/// object is not saved yet), it also keeps where the object's ID lives, so after the save it names the
/// object by its permanent ID, as Core Data's predicate, which holds the object, would.
struct FetchPredicate: Sendable, CustomStringConvertible {
  let node: PredicateNode
  /// Temporary IDs of managed objects given as arguments, with where to read each object's current ID.
  let objectReferences: [NSManagedObjectID: ObjectIDReference]
  /// How deep `node` is (``PredicateNode/depth``), kept so that combining predicates need not measure them.
  let depth: Int

  /// Parses a format string, substituting `arguments` for its `%@`, `%K`, `%d`… in order.
  ///
  /// An argument may be a `String`, a number, a `Bool`, `Date`, `Data`, `UUID`, `URL`, `Decimal`, a
  /// ``NSManagedObject`` or ``NSManagedObjectID``, `nil`, or an array or set of those (for `IN`). The values
  /// are read during the call, on the caller's queue; nothing of a managed object is kept but its ID.
  init(format: String, _ arguments: Any?...) throws {
    try self.init(format: format, argumentArray: arguments)
  }

  /// Parses a format string with its arguments given as an array.
  init(format: String, argumentArray: [Any?]) throws {
    let objects = PredicateObjectCapture()
    let node = try PredicateParser.parse(format: format, arguments: argumentArray, objects: objects)
    self.init(node: node, objectReferences: objects.references)
  }

  /// A predicate that every object matches (`true`) or none does (`false`): `TRUEPREDICATE` or
  /// `FALSEPREDICATE`.
  init(value: Bool) {
    self.init(node: .constant(value))
  }

  /// A predicate of `node`; a node deeper than ``PredicateNode/maximumDepth`` is kept as
  /// ``PredicateNode/tooDeep``.
  init(node: PredicateNode, objectReferences: [NSManagedObjectID: ObjectIDReference] = [:]) {
    self.init(node: node, depth: node.depth, objectReferences: objectReferences)
  }

  /// The same, with `node`'s depth already known.
  private init(node: PredicateNode, depth: Int, objectReferences: [NSManagedObjectID: ObjectIDReference]) {
    if depth > PredicateNode.maximumDepth {
      self.node = .tooDeep
      self.depth = PredicateNode.maximumDepth + 1
      self.objectReferences = [:]
    } else {
      self.node = node
      self.depth = depth
      self.objectReferences = objectReferences
    }
  }

  /// A predicate that every object matches.
  static let `true` = FetchPredicate(value: true)
  /// A predicate that no object matches.
  static let `false` = FetchPredicate(value: false)

  // MARK: - Compound predicates

  /// All of the predicates (`AND`); with none, every object matches. Core Data's
  /// `NSCompoundPredicate(andPredicateWithSubpredicates:)`.
  ///
  /// A subpredicate that is itself an `AND` has its predicates appended rather than nested, so joining
  /// predicates one at a time (`all = all && next`, ten thousand times) gives one flat `AND`, which
  /// fetches like any other. A result more than ``PredicateNode/maximumDepth`` levels deep is not built:
  /// fetching or evaluating with it throws ``ObjectGraphPredicateSyntaxError`` (see
  /// Docs/ObjectGraph.md, "Bad input").
  init(andPredicateWithSubpredicates subpredicates: [FetchPredicate]) {
    self = Self.joining(subpredicates, and: true)
  }

  /// Any of the predicates (`OR`); with none, no object matches. Core Data's
  /// `NSCompoundPredicate(orPredicateWithSubpredicates:)`.
  ///
  /// A subpredicate that is itself an `OR` has its predicates appended rather than nested, as for
  /// ``init(andPredicateWithSubpredicates:)``.
  init(orPredicateWithSubpredicates subpredicates: [FetchPredicate]) {
    self = Self.joining(subpredicates, and: false)
  }

  /// The opposite of a predicate (`NOT`). Core Data's `NSCompoundPredicate(notPredicateWithSubpredicate:)`.
  ///
  /// A result more than ``PredicateNode/maximumDepth`` levels deep is not built: fetching or evaluating
  /// with it throws ``ObjectGraphPredicateSyntaxError``.
  init(notPredicateWithSubpredicate subpredicate: FetchPredicate) {
    self.init(node: .not(subpredicate.node), depth: subpredicate.depth + 1, objectReferences: subpredicate.objectReferences)
  }

  /// Both predicates (`AND`), appended to `lhs` or `rhs` when either is an `AND` already.
  static func && (lhs: FetchPredicate, rhs: FetchPredicate) -> FetchPredicate {
    FetchPredicate(andPredicateWithSubpredicates: [lhs, rhs])
  }

  /// Either predicate (`OR`), appended to `lhs` or `rhs` when either is an `OR` already.
  static func || (lhs: FetchPredicate, rhs: FetchPredicate) -> FetchPredicate {
    FetchPredicate(orPredicateWithSubpredicates: [lhs, rhs])
  }

  /// The opposite predicate (`NOT`).
  static prefix func ! (predicate: FetchPredicate) -> FetchPredicate {
    FetchPredicate(notPredicateWithSubpredicate: predicate)
  }

  /// An `AND` (or an `OR`) of `subpredicates`, those of the same kind spliced in; its depth is worked out
  /// from theirs, without measuring the tree again.
  private static func joining(_ subpredicates: [FetchPredicate], and: Bool) -> FetchPredicate {
    var operands: [PredicateNode] = []
    var deepest = 0
    for subpredicate in subpredicates {
      switch subpredicate.node {
      case .and(let inner) where and, .or(let inner) where !and:
        operands.append(contentsOf: inner)
        deepest = max(deepest, subpredicate.depth - 1)
      default:
        operands.append(subpredicate.node)
        deepest = max(deepest, subpredicate.depth)
      }
    }
    return FetchPredicate(
      node: and ? .and(operands) : .or(operands), depth: deepest + 1, objectReferences: references(of: subpredicates))
  }

  static func references(of predicates: [FetchPredicate]) -> [NSManagedObjectID: ObjectIDReference] {
    var all: [NSManagedObjectID: ObjectIDReference] = [:]
    for predicate in predicates { all.merge(predicate.objectReferences) { first, _ in first } }
    return all
  }

  // MARK: - Variables

  /// The names of the predicate's substitution variables (`$limit` is `"limit"`), without the iteration
  /// variables of its subqueries.
  var substitutionVariableNames: Set<String> { node.freeVariables }

  /// A copy with its `$VARIABLE`s replaced by values: Core Data's `withSubstitutionVariables(_:)`.
  ///
  /// ```swift
  /// let template = NSPredicate(format: "wordCount > $minimum AND notebook == $notebook")
  /// let predicate = try template.withSubstitutionVariables(["minimum": 100, "notebook": notebook])
  /// ```
  ///
  /// The values are of the kinds ``init(format:_:)`` takes (a managed object, an array for `IN`, …).
  /// The template itself is not changed, so it can be filled in again and again.
  /// - Throws: ``ObjectGraphPredicateSyntaxError`` naming the variables `variables` does not give
  ///   (Core Data requires them all), ``ObjectGraphInvalidValueError`` for a value of a kind
  ///   predicates cannot hold.
  func withSubstitutionVariables(_ variables: [String: Any]) throws -> FetchPredicate {
    let missing = substitutionVariableNames.subtracting(variables.keys).sorted()
    guard missing.isEmpty else {
      let names = missing.map { "$" + $0 }.joined(separator: ", ")
      throw ObjectGraphError(
        .predicateSyntax,
        "Predicate \"\(predicateFormat)\" needs a value for \(names); pass every variable to withSubstitutionVariables(_:)."
      )
    }
    let objects = PredicateObjectCapture()
    var values: [String: PredicateValue] = [:]
    for (name, value) in variables {
      do {
        values[name] = try PredicateValue(argument: value, objects: objects)
      } catch let error as ObjectGraphError {
        throw ObjectGraphError(.invalidValue, "The value for $\(name) cannot be used: \(error.message)")
      }
    }
    let substituted = try node.substituting(values)
    let depth = substituted.depth
    guard depth <= PredicateNode.maximumDepth else {
      throw ObjectGraphError(
        .predicateSyntax,
        "Predicate \"\(predicateFormat)\" with its variables filled in is more than \(PredicateNode.maximumDepth) levels deep (a nested array value adds a level each). Give the variables flatter values."
      )
    }
    return FetchPredicate(
      node: substituted, depth: depth, objectReferences: objectReferences.merging(objects.references) { first, _ in first })
  }

  // MARK: - Evaluating

  /// The predicate as the store and the evaluator use it: each managed object given as an argument named
  /// by its current ID.
  var resolvedNode: PredicateNode { node.resolvingObjectIDs(objectReferences) }

  /// The predicate in format-string form (Core Data's `predicateFormat`).
  var predicateFormat: String { resolvedNode.description }
  var description: String { predicateFormat }
}
