import Foundation

extension NSManagedObject: NSFetchRequestResult {}

// Evaluating a predicate on a managed object: here rather than in `Fetch/`, which sits below the objects
// and evaluates through `PredicateEvaluable`.
extension FetchPredicate {
  /// Whether `object` matches, evaluated in memory on its current (maybe unsaved) values.
  /// - Throws: ``ObjectGraphError/Code/unknownKey`` for a key the object's entity does not have,
  ///   ``ObjectGraphError/Code/predicateSyntax`` for a `$VARIABLE` with no value.
  public func evaluate(with object: NSManagedObject) throws -> Bool {
    try PredicateEvaluator.evaluate(resolvedNode, on: object)
  }

  /// Whether `object` matches once `variables` are substituted: Core Data's
  /// `evaluate(with:substitutionVariables:)`.
  public func evaluate(with object: NSManagedObject, substitutionVariables variables: [String: Any]) throws -> Bool {
    try withSubstitutionVariables(variables).evaluate(with: object)
  }
}
