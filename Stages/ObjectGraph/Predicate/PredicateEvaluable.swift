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

  /// Whether `path` reaches its values through exactly one to-many, an ordered one (to-ones may come before
  /// and after it), so that its values have the members' order and `[FIRST]`, `[LAST]`, `[n]` can pick
  /// from them (see ``NSEntityDescription/reachesOneOrderedToMany(alongKeyPath:)``).
  func predicateReachesOrderedToMany(atKeyPath path: [String]) -> Bool
}

extension PredicateEvaluable {
  func predicateReachesOrderedToMany(atKeyPath path: [String]) -> Bool { false }

  func predicateTransformable(atKeyPath path: [String]) throws -> (attribute: NSAttributeDescription, bytes: Data?)? { nil }
}

extension NSEntityDescription {
  /// Whether `path` (from an object of this entity) goes through exactly one to-many relationship, and that
  /// one is ordered, with to-ones before and after it and at most an attribute at its end: a path whose
  /// values come in the members' order (`steps`, `steps.title`, `book.steps.owner.name`).
  func reachesOneOrderedToMany(alongKeyPath path: [String]) -> Bool {
    var entity = self
    var ordered: Bool?
    for (position, key) in path.enumerated() {
      if key == "SELF" && position == 0 { continue }
      guard let relationship = entity.relationshipsByName[key] else {
        // An attribute ends the path; anything else (an operator, an unknown key) has no order to keep.
        return position == path.count - 1 && entity.attributesByName[key] != nil && ordered == true
      }
      if relationship.isToMany {
        guard ordered == nil else { return false }
        ordered = relationship.isOrdered
      }
      guard let destination = relationship.destinationEntity else { return false }
      entity = destination
    }
    return ordered == true
  }
}
