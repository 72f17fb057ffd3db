import Foundation

/// What happens to related objects when an object is deleted (with its raw values).
public enum NSDeleteRule: UInt, Sendable, Hashable {
  /// Do nothing: the related objects keep pointing at the deleted object. Rarely what you want.
  case noActionDeleteRule = 0
  /// Remove the deleted object from the related objects' inverse relationship.
  case nullifyDeleteRule = 1
  /// Delete the related objects too.
  case cascadeDeleteRule = 2
  /// Refuse the delete (error 1600 at save) while the relationship still points at an object.
  case denyDeleteRule = 3
}
