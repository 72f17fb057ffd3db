import Foundation

/// The parts of `SUBQUERY(collection, $variable, predicate)`.
struct PredicateSubquery: Sendable, Equatable {
  /// The to-many it ranges over: a key path, or a key path from an outer subquery's variable.
  var collection: PredicateExpression
  /// The name each member is bound to while `predicate` runs (without the `$`).
  var variable: String
  /// The condition each member must meet.
  var predicate: PredicateNode
}
