import Foundation

/// What the evaluator needs from an object: the value(s) at a key path.
protocol PredicateEvaluable {
  /// `[]` is SELF (return `.single(.objectID(id))`), a to-one hop returns `.single(.objectID(...))` or
  /// `.single(.null)`, a path through a to-many returns `.many([...])`; `@count` after a to-many returns
  /// `.single(.integer(n))`.
  /// Throws ObjectGraphError(.unknownKey) for an unknown key.
  func predicateValue(atKeyPath path: [String]) throws -> PredicateKeyPathValue

  /// The objects a to-many key path reaches (`notes`, `notebook.notes`), for `SUBQUERY`.
  /// Throws ObjectGraphError(.unknownKey) for an unknown key or a path that is not a to-many.
  func predicateObjects(atKeyPath path: [String]) throws -> [any PredicateEvaluable]

  /// The transformable attribute a key path ends at (through to-ones), with the bytes it holds (nil: no
  /// value, or no object on the way); `nil` when the path does not end at one (the comparison is evaluated
  /// as usual). See ``PredicateTransformableComparison``.
  func predicateTransformable(atKeyPath path: [String]) throws -> (attribute: NSAttributeDescription, bytes: Data?)?
}

extension PredicateEvaluable {
  func predicateTransformable(atKeyPath path: [String]) throws -> (attribute: NSAttributeDescription, bytes: Data?)? { nil }
}
