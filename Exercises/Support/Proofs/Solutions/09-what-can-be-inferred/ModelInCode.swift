// Reference solution of exercise 09: the starter's functions that make a model's parts in code, unchanged.
import Foundation
import ObjectGraph

/// An entity named `name`, with no properties yet: set them with `entity.properties = [...]`.
func entity(_ name: String) -> NSEntityDescription {
  let entity = NSEntityDescription()
  entity.name = name
  return entity
}

/// An attribute. As in Core Data, an attribute is optional unless it says otherwise; `defaultValue` is of the
/// type's Swift type (`""` for a String, `Int32(0)` for an Integer 32) and is what a new object, or a migrated
/// row without a value, gets. (Core Data's `defaultValue` is an `Any?`, ObjectGraph's an `(any Sendable)?`: a value
/// of either kind passes to both.)
func attribute(
  _ name: String, _ type: NSAttributeDescription.AttributeType, isOptional: Bool = true,
  defaultValue: (any Sendable)? = nil
) -> NSAttributeDescription {
  let attribute = NSAttributeDescription()
  attribute.name = name
  attribute.type = type
  attribute.isOptional = isOptional
  attribute.defaultValue = defaultValue
  return attribute
}

/// A relationship to `destination`: to-one unless `toMany`; a to-many has no upper bound (`maxCount` 0).
func relationship(
  _ name: String, to destination: NSEntityDescription, toMany: Bool = false,
  deleteRule: NSDeleteRule = .nullifyDeleteRule
) -> NSRelationshipDescription {
  let relationship = NSRelationshipDescription()
  relationship.name = name
  relationship.destinationEntity = destination
  relationship.maxCount = toMany ? 0 : 1
  relationship.deleteRule = deleteRule
  return relationship
}

/// Makes `first` and `second` each other's inverse, as Core Data expects of every relationship.
func makeInverses(_ first: NSRelationshipDescription, _ second: NSRelationshipDescription) {
  first.inverseRelationship = second
  second.inverseRelationship = first
}
