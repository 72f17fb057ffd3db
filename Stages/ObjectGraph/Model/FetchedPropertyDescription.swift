import Foundation

/// A fetched property of an entity, as found in an Xcode model: described, not evaluated by this engine.
public struct NSFetchedPropertyDescription: Sendable {
  /// The fetched property's name.
  public let name: String
  /// The entity its fetch request targets.
  public let destinationEntityName: String
  /// Its predicate, in format-string form, as written in the model file.
  public let predicateFormat: String?
}
