import Foundation

/// The mapping Core Data would infer between two versions of a model, for a lightweight migration.
///
/// Each entity of the new model takes its rows from the entity of the old model whose name is its
/// renaming identifier (Xcode's "Renaming ID", `elementID` in the file), or else its own name; each
/// stored property takes its values the same way, from a property of that source entity (inherited ones
/// included). Whatever has no source is new: new entities start empty, new attributes start with their
/// default value, new relationships start empty. Old entities and properties nothing maps from are
/// dropped.
///
/// Inference refuses, with error 134140 (`migrationMissingMappingModel`) naming the entity, the property and
/// the change, what Core Data cannot infer either: an attribute whose type changed (String to Integer 64),
/// a property that turned from an attribute into a relationship or back, a relationship whose destination
/// is no longer the entity its values point to, two new entities or properties claiming the same old one.
struct InferredMapping: Sendable {
  /// Where one entity of the new model takes its rows from.
  struct EntityMapping: Sendable {
    let destination: EntityDescription
    /// The old entity, or `nil` for an entity that is new.
    let source: EntityDescription?
    /// Per slot of the destination's layout: the old entity's slot its values come from, or `nil`.
    let sourceSlots: [EntityLayout.Slot?]
  }

  /// One mapping per entity of the new model (of the store's configuration), in the model's order.
  let entities: [EntityMapping]

  /// The new entity that takes the rows of `source`, or `nil` when its rows are dropped.
  func destination(of source: EntityDescription) -> EntityDescription? {
    entities.first { $0.source === source }?.destination
  }

  /// The mapping of a new entity.
  func mapping(of destination: EntityDescription) -> EntityMapping? {
    entities.first { $0.destination === destination }
  }

  /// Infers the mapping from the entities of the store's model to the entities of the app's model.
  /// - Throws: ``ObjectGraphError/Code/migrationMissingMappingModel`` for a change that cannot be inferred.
  static func infer(from sourceEntities: [EntityDescription], to destinationEntities: [EntityDescription]) throws
    -> InferredMapping
  {
    let sourcesByName = Dictionary(sourceEntities.map { ($0.name, $0) }, uniquingKeysWith: { first, _ in first })
    var claimedBy: [String: String] = [:]
    var pairs: [(EntityDescription, EntityDescription?)] = []
    for destination in destinationEntities {
      let sourceName = destination.renamingIdentifier ?? destination.name
      let source = sourcesByName[sourceName]
      if let source {
        if let other = claimedBy[source.name] {
          throw refusal(
            "\(other) and \(destination.name) both take their rows from \(source.name) (by name or renaming identifier). Give only one of them that renaming identifier."
          )
        }
        claimedBy[source.name] = destination.name
      }
      pairs.append((destination, source))
    }
    let renamed = Dictionary(
      pairs.compactMap { pair in pair.1.map { (ObjectIdentifier($0), pair.0.name) } }, uniquingKeysWith: { first, _ in first })
    var entities: [EntityMapping] = []
    for (destination, source) in pairs {
      entities.append(
        EntityMapping(
          destination: destination, source: source,
          sourceSlots: try sourceSlots(of: destination, from: source, renamed: renamed)))
    }
    return InferredMapping(entities: entities)
  }

  /// Matches each stored slot of `destination` with the slot of `source` it takes its values from.
  private static func sourceSlots(
    of destination: EntityDescription, from source: EntityDescription?, renamed: [ObjectIdentifier: String]
  ) throws -> [EntityLayout.Slot?] {
    let slots = destination.layout.slots
    guard let source else { return slots.map { _ in nil } }
    let sourceLayout = source.layout
    var result: [EntityLayout.Slot?] = []
    var claimedBy: [String: String] = [:]
    for slot in slots {
      guard slot.isPersistent else {
        result.append(nil)
        continue
      }
      let renamingIdentifier = slot.attribute?.renamingIdentifier ?? slot.relationship?.renamingIdentifier
      let sourceName = renamingIdentifier ?? slot.name
      guard let index = sourceLayout.indexByName[sourceName], sourceLayout.slots[index].isPersistent else {
        result.append(nil)
        continue
      }
      let old = sourceLayout.slots[index]
      if let other = claimedBy[old.name] {
        throw refusal(
          "\(destination.name).\(other) and \(destination.name).\(slot.name) both take their values from \(source.name).\(old.name). Give only one of them that renaming identifier."
        )
      }
      claimedBy[old.name] = slot.name
      try check(slot, of: destination, against: old, of: source, renamed: renamed)
      result.append(old)
    }
    return result
  }

  /// Refuses a change of a property that a lightweight migration cannot carry over.
  private static func check(
    _ slot: EntityLayout.Slot, of destination: EntityDescription, against old: EntityLayout.Slot, of source: EntityDescription,
    renamed: [ObjectIdentifier: String]
  ) throws {
    let property = "\(destination.name).\(slot.name)"
    let was = old.name == slot.name ? "" : " (renamed from \(source.name).\(old.name))"
    switch (slot.attribute, old.attribute) {
    case (let new?, let previous?):
      if new.attributeType != previous.attributeType {
        throw refusal(
          "\(property)\(was) changed type from \(previous.attributeType.xcodeName) to \(new.attributeType.xcodeName); a lightweight migration cannot convert values. Keep the type and add a new attribute, or migrate the values yourself."
        )
      }
      return
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
    else { return }
    // The values are rows of the old destination: they must be rows of the new destination (or of one of
    // its subentities) after the migration.
    let carriedTo = renamed[ObjectIdentifier(oldDestination)]
    let accepted = Set(newDestination.selfAndDescendants.map(\.name))
    guard let carriedTo, accepted.contains(carriedTo) else {
      throw refusal(
        "\(property)\(was) pointed to \(oldDestination.name) and now points to \(newDestination.name), which does not take the rows of \(oldDestination.name). Point it to the entity that does, or give \(newDestination.name) the renaming identifier \(oldDestination.name)."
      )
    }
  }

  private static func refusal(_ message: String) -> ObjectGraphError {
    ObjectGraphError(.migrationMissingMappingModel, "Cannot infer a mapping model: \(message)")
  }
}
