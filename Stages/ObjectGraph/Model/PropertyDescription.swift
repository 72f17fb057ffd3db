import Foundation

/// One property of an entity: an attribute or a relationship.
public enum NSPropertyDescription: Sendable {
  case attribute(NSAttributeDescription)
  case relationship(NSRelationshipDescription)

  /// The property's name.
  public var name: String {
    switch self {
    case .attribute(let attribute): attribute.name
    case .relationship(let relationship): relationship.name
    }
  }

  var renamingIdentifier: String? {
    switch self {
    case .attribute(let attribute): attribute.renamingIdentifier
    case .relationship(let relationship): relationship.renamingIdentifier
    }
  }
}
