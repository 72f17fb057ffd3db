import Foundation
internal import Synchronization

/// The frozen, lock-free view of an entity that the engine's hot paths read: every property with a slot
/// index, so a managed object keeps its values in a plain array.
///
/// Built once when the model is frozen; every field is a `let` of a `Sendable` type, so it is shared by
/// all threads without locking.
final class EntityLayout: Sendable {
  enum Kind: Sendable {
    case attribute(NSAttributeType)
    case toOne
    case toMany
  }

  /// One property, with everything the hot paths need precomputed. A class, so that looking one up
  /// costs one reference, not a copy of its fields.
  final class Slot: Sendable {
    let index: Int
    let name: String
    let kind: Kind
    let isOptional: Bool
    let isTransient: Bool
    let attribute: NSAttributeDescription?
    let relationship: NSRelationshipDescription?
    let isToMany: Bool
    /// Whether the slot is an ordered to-many: its members are a list (``SlotValue/orderedObjectIDs(_:)``).
    let isOrdered: Bool
    let isRelationship: Bool
    /// Whether the slot's value is written to the store.
    let isPersistent: Bool
    /// Why an attribute cannot be used at run time (unsupported type, derived), or `nil`.
    let unsupportedReason: String?
    /// A relationship's minimum and maximum count (0: none), read once: the description's own properties
    /// take its lock, and a save validates them for every object.
    let minCount: Int
    let maxCount: Int
    /// Whether the slot is an attribute with a minimum, a maximum, a regular expression or validation
    /// predicates, or a relationship with validation predicates.
    let hasRules: Bool
    /// Whether the slot is a composite attribute (or a composite element of one): it holds no value of its own
    /// (its elements' slots do), only the record of a refused `setValue` (`CompositeRefusal`).
    let isComposite: Bool
    /// For a composite slot, the slots of its elements, in the order of ``NSCompositeAttributeDescription/elements``.
    let compositeChildren: [Int]
    /// For a composite's element slot, the element's own name (`latitude` in `location.latitude`); `nil` for
    /// the entity's own properties.
    let elementName: String?
    /// For a composite's element slot (at any depth), the entity's own composite slot it belongs to.
    let compositeOwner: Int?
    /// Whether a composite element must have a value when its composite has one (the element's own
    /// optionality: the slot itself is optional, as an optional composite with no value asks nothing).
    let isRequiredElement: Bool

    init(
      index: Int, name: String, kind: Kind, isOptional: Bool, isTransient: Bool, attribute: NSAttributeDescription?,
      relationship: NSRelationshipDescription?, compositeChildren: [Int] = [], elementName: String? = nil,
      compositeOwner: Int? = nil
    ) {
      self.index = index
      self.name = name
      self.kind = kind
      self.isOptional = isOptional
      self.isTransient = isTransient
      self.attribute = attribute
      self.relationship = relationship
      if case .toMany = kind { isToMany = true } else { isToMany = false }
      isOrdered = isToMany && (relationship?.isOrdered ?? false)
      isRelationship = relationship != nil
      unsupportedReason = attribute?.unsupportedReason
      minCount = relationship?.minCount ?? 0
      maxCount = relationship?.storedMaxCount ?? 0
      hasRules = attribute?.hasValidationRules ?? !(relationship?.validationRules.isEmpty ?? true)
      if case .attribute(.compositeAttributeType) = kind, unsupportedReason == nil { isComposite = true } else { isComposite = false }
      self.compositeChildren = compositeChildren
      self.elementName = elementName
      self.compositeOwner = compositeOwner
      isRequiredElement = elementName != nil && !(attribute?.isOptional ?? true)
      // A composite's value lives in its elements' slots; the composite's own slot is never written.
      isPersistent = !isTransient && (attribute.map { $0.isSupportedAtRunTime } ?? true) && !isComposite
    }
  }

  let name: String
  /// A number no other layout of the process has: `@ObjectGraphManaged` remembers a property's slot per layout by it
  /// (see ``slotCacheEntry(of:)``).
  let serial: UInt32
  let slots: [Slot]
  /// Each slot's kind, in slot order, for the hot paths that need only that.
  let kinds: [Kind]
  /// The slots of transformable attributes: their values are stored as their transformer's bytes and
  /// turned back when read.
  let transformableIndexes: Set<Int>
  /// The stored attributes that must have a value. When these are all the model asks of an object (no
  /// rules, no unsupported or transformable attributes, no relationship counts or required to-ones),
  /// validating a plain object is a few `nil` tests.
  let mandatoryAttributeIndexes: [Int]
  let validatesOnlyMandatoryAttributes: Bool
  /// The slots of derived attributes (with an expression), computed when an object is saved.
  let derivedIndexes: [Int]
  /// The slot names in order, for a linear search that beats hashing the key on small entities, and
  /// their UTF-8 lengths: comparing two lengths is far cheaper than comparing two different strings.
  private let names: [String]
  private let nameLengths: [Int]
  /// Whether some to-many slot may be stored in a join table (many-to-many or without inverse).
  let hasJoinTables: Bool
  let indexByName: [String: Int]
  let isAbstract: Bool
  /// Default values in slot order (`nil` for relationships and attributes without a default).
  let defaults: [(any Sendable)?]
  /// What a new object starts with: the defaults (as the attribute type's Swift type), and empty sets for
  /// to-many relationships.
  let initialValues: [StoredValue]
  /// The indexes of the relationship slots and of the to-many ones (most entities have few or none).
  let relationshipIndexes: [Int]
  let toManyIndexes: [Int]
  /// The ordered to-many slots that are stored: a save writes their members' positions.
  let orderedIndexes: [Int]
  /// The composite slots, the entity's own composite attributes and their composite elements
  /// (``Slot/isComposite``); empty for most entities.
  let compositeIndexes: Set<Int>

  /// Hands out ``serial``s; 0 is never one (an empty cache holds 0).
  private static let serials = Atomic<UInt32>(0)

  init(entity: NSEntityDescription) {
    name = entity.entityName
    serial = Self.serials.wrappingAdd(1, ordering: .relaxed).newValue | 0x8000_0000
    isAbstract = entity.isAbstract
    var slots: [Slot] = []
    var defaults: [(any Sendable)?] = []
    for property in entity.properties {
      switch property.kind {
      case .attribute(let attribute) where attribute.attributeType == .compositeAttributeType && attribute.unsupportedReason == nil:
        Self.appendComposite(attribute, to: &slots, defaults: &defaults)
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
    kinds = slots.map(\.kind)
    transformableIndexes = Set(slots.filter { $0.attribute?.attributeType == .transformableAttributeType }.map(\.index))
    let stored = slots.filter { !$0.isTransient }
    mandatoryAttributeIndexes = stored.filter { $0.attribute != nil && !$0.isOptional }.map(\.index)
    compositeIndexes = Set(slots.filter(\.isComposite).map(\.index))
    validatesOnlyMandatoryAttributes =
      !slots.contains(where: \.hasRules) && transformableIndexes.isEmpty && compositeIndexes.isEmpty
      && !stored.contains { slot in
        slot.unsupportedReason != nil
          || slot.relationship.map { relationship in
            (!slot.isToMany && !slot.isOptional) || relationship.minCount > 0 || relationship.storedMaxCount > 0
          } ?? false
      }
    derivedIndexes = slots.filter { !($0.attribute?.derivationFormat ?? "").isEmpty && !$0.isTransient }.map(\.index)
    names = slots.map(\.name)
    nameLengths = names.map(\.utf8.count)
    self.defaults = defaults
    initialValues = slots.map { slot -> StoredValue in
      if slot.isToMany { return .emptyToMany(ordered: slot.isOrdered) }
      guard case .attribute(let type) = slot.kind, let value = defaults[slot.index] else { return nil }
      return SlotValue.coerce(value, to: type) ?? SlotValue(value)
    }
    relationshipIndexes = slots.filter(\.isRelationship).map(\.index)
    toManyIndexes = slots.filter(\.isToMany).map(\.index)
    orderedIndexes = slots.filter { $0.isOrdered && $0.isPersistent }.map(\.index)
    hasJoinTables = slots.contains { slot in
      guard let relationship = slot.relationship, slot.isToMany else { return false }
      return relationship.inverseRelationship?.isToMany ?? true
    }
    indexByName = Dictionary(slots.map { ($0.name, $0.index) }, uniquingKeysWith: { _, last in last })
  }

  /// Lays out a composite attribute: its own slot, then each element's, depth first (a nested composite's
  /// slot followed by its elements'). Elements are named by their key path (`location.latitude`), which is
  /// what `value(forKey:)`, predicates, sorts and the store's column names use.
  private static func appendComposite(
    _ attribute: NSAttributeDescription, path: String? = nil, owner: Int? = nil, to slots: inout [Slot],
    defaults: inout [(any Sendable)?]
  ) {
    let index = slots.count
    let name = path.map { "\($0).\(attribute.name)" } ?? attribute.name
    let elements = attribute.compositeElements
    var children: [Int] = []
    var next = index + 1
    for element in elements {
      children.append(next)
      next += slotCount(of: element)
    }
    slots.append(
      Slot(
        index: index, name: name, kind: .attribute(.compositeAttributeType), isOptional: owner == nil ? attribute.isOptional : true,
        isTransient: owner == nil ? attribute.isTransient : slots[owner ?? 0].isTransient, attribute: attribute, relationship: nil,
        compositeChildren: children, elementName: owner == nil ? nil : attribute.name, compositeOwner: owner))
    defaults.append(nil)
    for element in elements {
      if element.attributeType == .compositeAttributeType {
        appendComposite(element, path: name, owner: owner ?? index, to: &slots, defaults: &defaults)
      } else {
        slots.append(
          Slot(
            index: slots.count, name: "\(name).\(element.name)", kind: .attribute(element.attributeType), isOptional: true,
            isTransient: slots[owner ?? index].isTransient, attribute: element, relationship: nil, elementName: element.name,
            compositeOwner: owner ?? index))
        defaults.append(element.defaultValue)
      }
    }
  }

  /// How many slots an attribute takes: one, or for a composite one plus its elements' (recursively).
  private static func slotCount(of attribute: NSAttributeDescription) -> Int {
    guard attribute.attributeType == .compositeAttributeType else { return 1 }
    return 1 + attribute.compositeElements.reduce(0) { $0 + slotCount(of: $1) }
  }

  /// The slot index of a property, or `nil`. Most entities have a handful of properties, and comparing a
  /// few short strings costs less than hashing one; larger entities use the dictionary.
  @inline(__always)
  func index(of key: String) -> Int? {
    guard names.count <= 12 else { return indexByName[key] }
    let length = key.utf8.count
    for position in names.indices where nameLengths[position] == length && names[position] == key { return position }
    return nil
  }

  /// A property's slot as `@ObjectGraphManaged`'s cache keeps it: the layout's ``serial`` in the high 32 bits, and
  /// in the low ones the slot index + 1, with bit 31 set when the slot is not a plain attribute (a
  /// relationship or a transformable, which take the general read). `0` for a key the entity lacks.
  func slotCacheEntry(of key: String) -> UInt64 {
    guard let index = index(of: key) else { return 0 }
    var low = UInt64(index + 1)
    if case .attribute = kinds[index], !transformableIndexes.contains(index), !compositeIndexes.contains(index) {
    } else {
      low |= 0x8000_0000
    }
    return UInt64(serial) << 32 | low
  }
}
