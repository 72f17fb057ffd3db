import Foundation

/// How to migrate a store from one version of a model to another, entity by entity (Core Data's
/// `NSMappingModel`): what ``NSMigrationManager`` runs for a migration that inference cannot do, such as an
/// attribute whose type changes or one attribute split into two.
///
/// A mapping model is read from a file (``init(contentsOf:)``: a compiled `.cdm`, or the `.xcmappingmodel`
/// folder Xcode edits), found among bundles by its entities' version hashes
/// (``init(from:forSourceModel:destinationModel:)``), built in code, or inferred with
/// ``inferredMappingModel(forSourceModel:destinationModel:)`` and then edited.
///
/// ```swift
/// let mapping = try NSMappingModel.inferredMappingModel(forSourceModel: v1, destinationModel: v2)
/// let note = mapping.entityMappings.first { $0.name == "NoteToNote" }!
/// note.mappingType = .customEntityMappingType
/// note.migrationPolicy = SplitFullNamePolicy()
/// ```
public final class NSMappingModel {
  /// The entity mappings, in the order the migration manager runs them.
  public var entityMappings: [NSEntityMapping]

  /// Makes a mapping model from its entity mappings.
  public init(entityMappings: [NSEntityMapping] = []) {
    self.entityMappings = entityMappings
  }

  /// The entity mappings by name (the first of two with the same name).
  public var entityMappingsByName: [String: NSEntityMapping] {
    Dictionary(entityMappings.map { ($0.name, $0) }, uniquingKeysWith: { first, _ in first })
  }

  /// The mapping model a lightweight migration would use between the two models (Core Data's
  /// `inferredMappingModel(forSourceModel:destinationModel:)`), matching entities and properties by
  /// renaming identifier, else by name, as inferred migration does.
  ///
  /// Each destination entity with a source gets an ``NSEntityMappingType/copyEntityMappingType`` mapping (unchanged entity) or
  /// an ``NSEntityMappingType/transformEntityMappingType`` one, named `<Source>To<Destination>`, whose attribute mappings read
  /// `$source.<name>` and whose relationship mappings read
  /// `FUNCTION($manager, "destinationInstancesForEntityMappingNamed:sourceInstances:", "<Mapping>", $source.<name>)`
  /// (a relationship whose old destination has subentities reads
  /// `FUNCTION($manager, "destinationInstancesForSourceRelationshipNamed:sourceInstances:", "<name>", $source.<name>)`,
  /// which looks the objects up in the mappings of that entity and its subentities, as the model compiler writes). New entities get an ``NSEntityMappingType/addEntityMappingType`` mapping, dropped ones a
  /// ``NSEntityMappingType/removeEntityMappingType`` mapping.
  /// - Throws: ``NSMigrationMissingMappingModelError`` (134140) naming what cannot be
  ///   inferred, as opening the store would.
  public static func inferredMappingModel(forSourceModel sourceModel: NSManagedObjectModel, destinationModel: NSManagedObjectModel)
    throws -> NSMappingModel
  {
    let inferred = try InferredMapping.infer(from: sourceModel.entities, to: destinationModel.entities)
    func mappingName(from source: NSEntityDescription, to destination: NSEntityDescription) -> String {
      "\(source.entityName)To\(destination.entityName)"
    }
    var mappings: [NSEntityMapping] = []
    for entity in inferred.entities {
      let destination = entity.destination
      guard let source = entity.source else {
        mappings.append(
          NSEntityMapping(
            name: destination.entityName, mappingType: .addEntityMappingType, sourceEntityName: nil, destinationEntityName: destination.name
          ))
        continue
      }
      var attributes: [NSPropertyMapping] = []
      var relationships: [NSPropertyMapping] = []
      for (slot, old) in zip(destination.layout.slots, entity.sourceSlots) {
        guard let old else { continue }
        if slot.attribute != nil {
          attributes.append(NSPropertyMapping(name: slot.name, valueExpression: "$source.\(old.name)"))
        } else if let oldDestination = old.relationship?.destinationEntity,
          let carriedTo = inferred.destination(of: oldDestination)
        {
          if oldDestination.subentities.isEmpty {
            let target = mappingName(from: oldDestination, to: carriedTo)
            relationships.append(
              NSPropertyMapping(
                name: slot.name,
                valueExpression:
                  "FUNCTION($manager, \"destinationInstancesForEntityMappingNamed:sourceInstances:\", \"\(target)\", $source.\(old.name))"
              ))
          } else {
            relationships.append(
              NSPropertyMapping(
                name: slot.name,
                valueExpression:
                  "FUNCTION($manager, \"\(MappingExpression.sourceRelationshipSelector)\", \"\(old.name)\", $source.\(old.name))"
              ))
          }
        }
      }
      let unchanged = source.name == destination.name && source.versionHash == destination.versionHash
      mappings.append(
        NSEntityMapping(
          name: mappingName(from: source, to: destination), mappingType: unchanged ? .copyEntityMappingType : .transformEntityMappingType,
          sourceEntityName: source.name, destinationEntityName: destination.name, attributeMappings: attributes,
          relationshipMappings: relationships))
    }
    for source in sourceModel.entities where inferred.destination(of: source) == nil {
      mappings.append(
        NSEntityMapping(
          name: source.entityName, mappingType: .removeEntityMappingType, sourceEntityName: source.name, destinationEntityName: nil)
      )
    }
    return NSMappingModel(entityMappings: mappings)
  }
}
