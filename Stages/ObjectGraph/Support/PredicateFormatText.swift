import Foundation

/// Reads Foundation's `predicateFormat`, which Linux's Foundation marks deprecated (its own predicates have
/// no format there), without the warning: the engine's kinds of `NSPredicate` override it.
private protocol PredicateFormatReadable {
  var predicateFormat: String { get }
}

extension NSPredicate: PredicateFormatReadable {}

extension NSPredicate {
  /// The predicate's `predicateFormat`, read without Linux's deprecation warning.
  var formatText: String { (self as any PredicateFormatReadable).predicateFormat }
}
