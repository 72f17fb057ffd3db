import Foundation

@testable import ObjectGraph

// What the engine's predicate tests read of an `NSPredicate`: the tree a fetch runs, and its format.
extension NSPredicate {
  /// The tree the engine reads from this predicate; `.tooDeep` when it cannot be read.
  var node: PredicateNode { (try? FetchPredicate(self).node) ?? .tooDeep }

  /// The format the engine prints for this predicate (Foundation's `predicateFormat` is deprecated on
  /// Linux, and its `NSCompoundPredicate` prints no format there).
  var engineFormat: String { (try? FetchPredicate(self).predicateFormat) ?? description }

  /// The names of the predicate's `$VARIABLE`s.
  var substitutionVariableNames: Set<String> { (try? FetchPredicate(self).substitutionVariableNames) ?? [] }
}

/// Either predicate: `NSCompoundPredicate(orPredicateWithSubpredicates:)`, as ported code folds them.
func || (lhs: NSPredicate, rhs: NSPredicate) -> NSPredicate {
  NSCompoundPredicate(orPredicateWithSubpredicates: [lhs, rhs])
}

/// Both predicates: `NSCompoundPredicate(andPredicateWithSubpredicates:)`.
func && (lhs: NSPredicate, rhs: NSPredicate) -> NSPredicate {
  NSCompoundPredicate(andPredicateWithSubpredicates: [lhs, rhs])
}

/// The opposite predicate: `NSCompoundPredicate(notPredicateWithSubpredicate:)`.
prefix func ! (predicate: NSPredicate) -> NSPredicate {
  NSCompoundPredicate(notPredicateWithSubpredicate: predicate)
}
