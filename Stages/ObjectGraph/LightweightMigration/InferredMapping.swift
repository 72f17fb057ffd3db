import Foundation

/// The mapping Core Data would infer between two versions of a model, for a lightweight migration.
///
/// Entities and properties are matched identifier to identifier, as Core Data documents for
/// `NSEntityDescription.renamingIdentifier` and `NSPropertyDescription.renamingIdentifier`: an element's
/// identifier is its renaming identifier (Xcode's "Renaming ID", `elementID` in the file), or its name
/// when it has none, on both sides. Each entity of the new model takes its rows from the entity of the old
/// model that has the same identifier; each stored property takes its values from the stored property of
/// that source entity (inherited ones included) that has the same identifier. So an entity that keeps its
/// `elementID` from version to version (Xcode copies it into each new version) maps to itself, and a
/// rename chain (`color` → `paintColor` with identifier `color` → `shade` with identifier `color`) maps
/// from any version to any other. Whatever has no source is new: new entities start empty, new attributes
/// start with their default value, new relationships start empty. Old entities and properties nothing
/// maps from are dropped.
///
/// Inference refuses, with error 134140 (`migrationMissingMappingModel`) naming the entity, the property and
/// the change, what Core Data cannot infer either: an attribute whose type changed (String to Integer 64),
/// a property that turned from an attribute into a relationship or back, a relationship whose destination
/// is no longer the entity its values point to, two new entities or properties claiming the same old one,
/// two old entities or properties that share the identifier a new one looks for.
struct InferredMapping: Sendable {
  /// Where one entity of the new model takes its rows from.
  struct EntityPair: Sendable {
    let destination: NSEntityDescription
    /// The old entity, or `nil` for an entity that is new.
    let source: NSEntityDescription?
    /// Per slot of the destination's layout: the old entity's slot its values come from, or `nil`.
    let sourceSlots: [EntityLayout.Slot?]
    /// Slots of relationships whose destination changed (narrowed to a subentity of the entity that takes the
    /// old destination's rows, or another entity): the migration carries them only when no member is outside
    /// the new destination.
    var narrowedSlots: Set<Int> = []
  }

  /// One mapping per entity of the new model (of the store's configuration), in the model's order.
  let entities: [EntityPair]

  /// The new entity that takes the rows of `source`, or `nil` when its rows are dropped.
  func destination(of source: NSEntityDescription) -> NSEntityDescription? {
    entities.first { $0.source === source }?.destination
  }

  /// The mapping of a new entity.
  func mapping(of destination: NSEntityDescription) -> EntityPair? {
    entities.first { $0.destination === destination }
  }

  /// Infers the mapping from the entities of the store's model to the entities of the app's model.
  /// - Throws: ``NSMigrationMissingMappingModelError`` for a change that cannot be inferred.
  static func infer(from sourceEntities: [NSEntityDescription], to destinationEntities: [NSEntityDescription]) throws
    -> InferredMapping
  {
    let sourcesByIdentifier = Dictionary(grouping: sourceEntities, by: identifier(of:))
    var claimedBy: [String: String] = [:]
    var pairs: [(NSEntityDescription, NSEntityDescription?)] = []
    for destination in destinationEntities {
      let wanted = identifier(of: destination)
      let candidates = sourcesByIdentifier[wanted] ?? []
      if candidates.count > 1 {
        throw refusal(
          "\(destination.entityName) has the identifier '\(wanted)', which the old entities \(candidates.map(\.entityName).sorted().joined(separator: " and ")) share, so which one's rows it takes is ambiguous. Give the old model's entities different renaming identifiers."
        )
      }
      let source = candidates.first
      if let source {
        if let other = claimedBy[source.entityName] {
          throw refusal(
            "\(other) and \(destination.entityName) both take their rows from \(source.entityName) (by the identifier '\(wanted)', the renaming identifier or else the name). Give only one of them that identifier."
          )
        }
        claimedBy[source.entityName] = destination.entityName
      }
      pairs.append((destination, source))
    }
    let renamed = Dictionary(
      pairs.compactMap { pair in pair.1.map { (ObjectIdentifier($0), pair.0.entityName) } }, uniquingKeysWith: { first, _ in first })
    var entities: [EntityPair] = []
    for (destination, source) in pairs {
      let slots = try sourceSlots(of: destination, from: source, renamed: renamed)
      entities.append(EntityPair(destination: destination, source: source, sourceSlots: slots.slots, narrowedSlots: slots.narrowed))
    }
    return InferredMapping(entities: entities)
  }

  /// Matches each stored slot of `destination` with the slot of `source` it takes its values from.
  private static func sourceSlots(
    of destination: NSEntityDescription, from source: NSEntityDescription?, renamed: [ObjectIdentifier: String]
  ) throws -> (slots: [EntityLayout.Slot?], narrowed: Set<Int>) {
    let slots = destination.layout.slots
    guard let source else { return (slots.map { _ in nil }, []) }
    let sourceSlotsByIdentifier = Dictionary(grouping: source.layout.slots.filter(\.isPersistent), by: identifier(of:))
    var result: [EntityLayout.Slot?] = []
    var narrowed: Set<Int> = []
    var claimedBy: [String: String] = [:]
    for slot in slots {
      guard slot.isPersistent else {
        result.append(nil)
        continue
      }
      let wanted = identifier(of: slot)
      let candidates = sourceSlotsByIdentifier[wanted] ?? []
      if candidates.count > 1 {
        throw refusal(
          "\(destination.entityName).\(slot.name) has the identifier '\(wanted)', which the old properties \(candidates.map { "\(source.entityName).\($0.name)" }.sorted().joined(separator: " and ")) share, so which one's values it takes is ambiguous. Give the old model's properties different renaming identifiers."
        )
      }
      guard let old = candidates.first else {
        result.append(nil)
        continue
      }
      if let other = claimedBy[old.name] {
        throw refusal(
          "\(destination.entityName).\(other) and \(destination.entityName).\(slot.name) both take their values from \(source.entityName).\(old.name). Give only one of them that renaming identifier."
        )
      }
      claimedBy[old.name] = slot.name
      if try check(slot, of: destination, against: old, of: source, renamed: renamed) { narrowed.insert(slot.index) }
      result.append(old)
    }
    return (result, narrowed)
  }

  /// Refuses a change of a property that a lightweight migration cannot carry over. Returns whether the
  /// property is a relationship whose destination changed, to a subentity of the entity that takes the old
  /// destination's rows or to another entity (its members are checked against the store's rows when the
  /// migration is planned).
  private static func check(
    _ slot: EntityLayout.Slot, of destination: NSEntityDescription, against old: EntityLayout.Slot, of source: NSEntityDescription,
    renamed: [ObjectIdentifier: String]
  ) throws -> Bool {
    let property = "\(destination.entityName).\(slot.name)"
    let was = old.name == slot.name ? "" : " (renamed from \(source.entityName).\(old.name))"
    switch (slot.attribute, old.attribute) {
    case (let new?, let previous?):
      if new.attributeType != previous.attributeType {
        throw refusal(
          "\(property)\(was) changed type from \(previous.attributeType.xcodeName) to \(new.attributeType.xcodeName); a lightweight migration cannot convert values. Keep the type and add a new attribute, or migrate the values yourself."
        )
      }
      return false
    case (nil, nil):
      break
    case (_?, nil):
      throw refusal(
        "\(property)\(was) was a relationship and is now an attribute; a lightweight migration cannot turn one into the other. Add a new attribute under another name instead."
      )
    case (nil, _?):
      throw refusal(
        "\(property)\(was) was an attribute and is now a relationship; a lightweight migration cannot turn one into the other. Add a new relationship under another name instead."
      )
    }
    guard let newDestination = slot.relationship?.destinationEntity, let oldDestination = old.relationship?.destinationEntity
    else { return false }
    // The values are rows of the old destination: they must be rows of the new destination (or of one of
    // its subentities) after the migration.
    let carriedTo = renamed[ObjectIdentifier(oldDestination)]
    let accepted = Set(newDestination.selfAndDescendants.map(\.name))
    if let carriedTo, accepted.contains(carriedTo) { return false }
    // Or the destination changed: narrowed to a subentity of the entity that takes them (ArtsyFolio v2.1
    // points Show.installationImages at InstallShotImage, new below Image), or moved to another entity
    // (ArtsyFolio v2.0 points Album.cover at Image, v1.5 at Artwork). Core Data infers both (the app's own
    // migration tests open its v1.6 and v2.0 stores so); a member that is not of the new destination is
    // refused when the migration is planned, with nothing written, never dropped.
    return true
  }

  /// An entity's identifier for matching: its renaming identifier, or its name when it has none (Core
  /// Data's `NSEntityDescription.renamingIdentifier` returns the name when none is set).
  static func identifier(of entity: NSEntityDescription) -> String { entity.renamingIdentifier ?? entity.entityName }

  /// A stored property's identifier for matching: its renaming identifier, or its name when it has none.
  static func identifier(of slot: EntityLayout.Slot) -> String {
    slot.attribute?.renamingIdentifier ?? slot.relationship?.renamingIdentifier ?? slot.name
  }

  private static func refusal(_ message: String) -> ObjectGraphError {
    ObjectGraphError(.migrationMissingMappingModel, "Cannot infer a mapping model: \(message)")
  }
}
