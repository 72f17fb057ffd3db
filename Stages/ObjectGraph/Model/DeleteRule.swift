import Foundation

/// What happens to related objects when an object is deleted.
public enum NSDeleteRule: Sendable, Hashable {
  /// Remove the deleted object from the related objects' inverse relationship.
  case nullify
  /// Delete the related objects too.
  case cascade
  /// Refuse the delete (error 1600 at save) while the relationship still points at an object.
  case deny
  /// Do nothing: the related objects keep pointing at the deleted object. Rarely what you want.
  case noAction
}
