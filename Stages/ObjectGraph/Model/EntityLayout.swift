import Foundation

/// The frozen, lock-free view of an entity that the engine's hot paths read: every property with a slot
/// index, so a managed object keeps its values in a plain array.
///
/// Built once when the model is frozen; every field is a `let` of a `Sendable` type, so it is shared by
/// all threads without locking.
final class EntityLayout: Sendable {
  enum Kind: Sendable {
    case attribute(AttributeType)
    case toOne
    case toMany
  }

  struct Slot: Sendable {
    let index: Int
    let name: String
    let kind: Kind
    let isOptional: Bool
    let isTransient: Bool
    let attribute: AttributeDescription?
    let relationship: RelationshipDescription?

    var isToMany: Bool { if case .toMany = kind { true } else { false } }
    var isRelationship: Bool { relationship != nil }
    /// Whether the slot's value is written to the store.
    var isPersistent: Bool {
      guard !isTransient else { return false }
      if let attribute { return attribute.isSupportedAtRunTime }
      return true
    }
  }

  let name: String
  let slots: [Slot]
  let indexByName: [String: Int]
  let isAbstract: Bool
  /// Default values in slot order (`nil` for relationships and attributes without a default).
  let defaults: [(any Sendable)?]

  init(entity: EntityDescription) {
    name = entity.name
    isAbstract = entity.isAbstract
    var slots: [Slot] = []
    var defaults: [(any Sendable)?] = []
    for property in entity.properties {
      switch property {
      case .attribute(let attribute):
        slots.append(
          Slot(
            index: slots.count, name: attribute.name, kind: .attribute(attribute.attributeType),
            isOptional: attribute.isOptional, isTransient: attribute.isTransient, attribute: attribute,
            relationship: nil))
        defaults.append(attribute.defaultValue)
      case .relationship(let relationship):
        slots.append(
          Slot(
            index: slots.count, name: relationship.name, kind: relationship.isToMany ? .toMany : .toOne,
            isOptional: relationship.isOptional, isTransient: relationship.isTransient, attribute: nil,
            relationship: relationship))
        defaults.append(nil)
      }
    }
    self.slots = slots
    self.defaults = defaults
    indexByName = Dictionary(slots.map { ($0.name, $0.index) }, uniquingKeysWith: { _, last in last })
  }
}
