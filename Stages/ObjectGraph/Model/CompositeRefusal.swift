import Foundation

/// What a composite attribute's slot holds after `setValue(_:forKey:)` was given a value it could not take
/// (not a dictionary, a key that is no element, an element value of the wrong type): the problems, reported
/// as a validation error (1550) when the object is saved. The elements it could take were set.
struct CompositeRefusal: Sendable {
  let problems: [String]
}
