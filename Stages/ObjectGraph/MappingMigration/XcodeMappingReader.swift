import Foundation

/// Reads an Xcode mapping model (`xcmapping.xml` in a `.xcmappingmodel` folder): Core Data's XML store
/// format holding one `XDDEVMAPPINGMODEL` (`sourcemodelpath`, `destinationmodelpath`, `entitymappings`),
/// `XDDEVENTITYMAPPING`s (`sourcename`, `destinationname`, `mappingtypename`, `mappingnumber`,
/// `migrationpolicyclassname`, `autogenerateexpression`, `attributemappings`, `relationshipmappings`) and
/// `XDDEVATTRIBUTEMAPPING` / `XDDEVRELATIONSHIPMAPPING`s (`name`, `valueexpressiondata`: an archived
/// `NSExpression`; a relationship mapping may instead name `sourcekeypath` and `sourcemappingname`, the "Key
/// Path" and "Mapping Name" of Xcode's inspector, read as
/// `FUNCTION($manager, "destinationInstancesForEntityMappingNamed:sourceInstances:", "<mapping>", $source.<keyPath>)`).
///
/// What the file leaves to the model compiler is done as the compiler does it (checked against the `.cdm`
/// compiled from the fixture): mappings run in `mappingnumber` order and are named `<Source>To<Destination>`
/// (an added entity's mapping by its destination, a removed one's by its source); an `Undefined` type becomes
/// `Custom` with a policy class, `Add` without a source, `Remove` without a destination, `Copy` for an entity
/// of the same name and `Transform` otherwise; a property mapping without an expression gets
/// `$source.<name>` (an attribute the source entity has), or for a relationship the source has,
/// `FUNCTION($manager, "destinationInstancesForEntityMappingNamed:sourceInstances:", "<Mapping>", $source.<name>)`
/// (the mapping of the relationship's destination) or, when that destination has subentities,
/// `FUNCTION($manager, "destinationInstancesForSourceRelationshipNamed:sourceInstances:", "<name>", $source.<name>)`.
struct XcodeMappingReader {
  typealias Problem = MappingFileReader.Problem

  let file: URL
  let data: Data
  let models: (source: NSManagedObjectModel, destination: NSManagedObjectModel)?

  static let entityMappingKeys: Set<String> = [
    "sourcename", "destinationname", "mappingtypename", "mappingnumber", "migrationpolicyclassname",
    "autogenerateexpression", "name",
  ]
  static let propertyMappingKeys: Set<String> = ["name", "valueexpressiondata", "autogenerateexpression"]
  /// What a relationship mapping may set besides: the key path and entity mapping of Xcode's inspector.
  static let relationshipMappingKeys = propertyMappingKeys.union(["sourcekeypath", "sourcemappingname"])

  /// The entity mappings, and the source model they were read against.
  func read() throws -> (mappings: [NSEntityMapping], source: NSManagedObjectModel) {
    let document = try CoreDataXMLDocument(data)
    let byID = document.recordsByID
    guard let model = document.records.first(where: { $0.type == "XDDEVMAPPINGMODEL" }) else {
      throw Problem(reason: "it holds no mapping model (no XDDEVMAPPINGMODEL object). Save it again in Xcode.")
    }
    let (sourceModel, destinationModel) = try models ?? locateModels(model)
    var records = try (model.relationships["entitymappings"] ?? []).map { id in
      guard let record = byID[id], record.type == "XDDEVENTITYMAPPING" else {
        throw Problem(reason: "the mapping model lists entity mapping '\(id)', which the file does not hold.")
      }
      return record
    }
    records.sort { Int($0.attributes["mappingnumber"] ?? "") ?? 0 < Int($1.attributes["mappingnumber"] ?? "") ?? 0 }
    let named = records.map { record in
      let source = nonEmpty(record.attributes["sourcename"])
      let destination = nonEmpty(record.attributes["destinationname"])
      let name =
        nonEmpty(record.attributes["name"])
        ?? (source.flatMap { s in destination.map { "\(s)To\($0)" } } ?? destination ?? source ?? record.id)
      return (record: record, name: name, source: source, destination: destination)
    }
    // The mapping that migrates each source entity, for relationship expressions.
    var mappingBySource: [String: String] = [:]
    for entry in named {
      if let source = entry.source, entry.destination != nil, mappingBySource[source] == nil {
        mappingBySource[source] = entry.name
      }
    }
    let mappings = try named.map { entry in
      let record = entry.record
      let what = "entity mapping '\(entry.name)'"
      if let unknown = record.attributes.keys.sorted().first(where: { !Self.entityMappingKeys.contains($0) }) {
        throw Problem(
          reason: "\(what) sets '\(unknown)', which ObjectGraph does not read, so it would migrate differently "
            + "from Core Data. Remove it in Xcode's mapping editor, or build the mapping in code.")
      }
      let policy = nonEmpty(record.attributes["migrationpolicyclassname"])
      let type = try mappingType(record.attributes["mappingtypename"], entry, policy: policy, what)
      let sourceEntity = entry.source.flatMap { sourceModel.entitiesByName[$0] }
      let autogenerate = record.attributes["autogenerateexpression"].map { $0 == "1" || $0 == "YES" } ?? true
      func properties(_ key: String, attributes: Bool) throws -> [NSPropertyMapping] {
        try (record.relationships[key] ?? []).map { id in
          guard let property = byID[id] else {
            throw Problem(reason: "\(what) lists property mapping '\(id)', which the file does not hold.")
          }
          guard let name = nonEmpty(property.attributes["name"]) else {
            throw Problem(reason: "\(what) has a property mapping ('\(id)') with no name.")
          }
          let known = attributes ? Self.propertyMappingKeys : Self.relationshipMappingKeys
          if let unknown = property.attributes.keys.sorted().first(where: { !known.contains($0) }) {
            throw Problem(
              reason: "\(what), property mapping '\(name)', sets '\(unknown)', which ObjectGraph does not read.")
          }
          var expression: String?
          if let archived = property.data("valueexpressiondata") {
            let archive = try KeyedArchive(BinaryPropertyList.read(archived))
            expression = try archive.expressionFormat(
              .uid(UInt64(archive.rootIndex)), "the value of \(what), property '\(name)'")
          } else if let keyPath = nonEmpty(property.attributes["sourcekeypath"]),
            let sourceEntity
          {
            expression = try related(
              keyPath, through: nonEmpty(property.attributes["sourcemappingname"]), source: sourceEntity,
              mappingBySource: mappingBySource, "\(what), relationship mapping '\(name)'")
          } else if let mappingName = nonEmpty(property.attributes["sourcemappingname"]), let sourceEntity {
            expression = try related(
              name, through: mappingName, source: sourceEntity, mappingBySource: mappingBySource,
              "\(what), relationship mapping '\(name)'")
          } else if autogenerate, let sourceEntity {
            expression = generated(
              name, attribute: attributes, source: sourceEntity, mappingBySource: mappingBySource)
          }
          return NSPropertyMapping(name: name, valueExpression: expression)
        }
        .sorted { $0.name < $1.name }
      }
      let mapping = NSEntityMapping(
        name: entry.name, mappingType: type, sourceEntityName: entry.source, destinationEntityName: entry.destination,
        attributeMappings: try properties("attributemappings", attributes: true),
        relationshipMappings: try properties("relationshipmappings", attributes: false))
      mapping.entityMigrationPolicyClassName = policy
      mapping.sourceEntityVersionHash = sourceEntity?.versionHash
      mapping.destinationEntityVersionHash = entry.destination.flatMap { destinationModel.entitiesByName[$0]?.versionHash }
      return mapping
    }
    try MappingFileReader.check(mappings, source: sourceModel, destination: destinationModel)
    return (mappings, sourceModel)
  }

  private func nonEmpty(_ text: String?) -> String? {
    guard let text, !text.isEmpty else { return nil }
    return text
  }

  private func mappingType(
    _ text: String?, _ entry: (record: CoreDataXMLDocument.Record, name: String, source: String?, destination: String?),
    policy: String?, _ what: String
  ) throws -> NSEntityMappingType {
    switch text ?? "Undefined" {
    case "Custom": return .customEntityMappingType
    case "Add": return .addEntityMappingType
    case "Remove": return .removeEntityMappingType
    case "Copy": return .copyEntityMappingType
    case "Transform": return .transformEntityMappingType
    case "Undefined", "":
      if policy != nil { return .customEntityMappingType }
      guard let source = entry.source else { return .addEntityMappingType }
      guard let destination = entry.destination else { return .removeEntityMappingType }
      return source == destination ? .copyEntityMappingType : .transformEntityMappingType
    case let other:
      throw Problem(
        reason: "\(what) has mapping type '\(other)', which is not one Xcode writes (Undefined, Custom, Add, Remove, "
          + "Copy, Transform).")
    }
  }

  /// The expression the model compiler writes for a property mapping left to it.
  private func generated(
    _ name: String, attribute: Bool, source: NSEntityDescription, mappingBySource: [String: String]
  ) -> String? {
    if attribute {
      return source.attributesByName[name] == nil ? nil : "$source.\(name)"
    }
    guard let relationship = source.relationshipsByName[name], let target = relationship.destinationEntity else {
      return nil
    }
    if !target.subentities.isEmpty {
      return "FUNCTION($manager, \"\(MappingExpression.sourceRelationshipSelector)\", \"\(name)\", $source.\(name))"
    }
    guard let mapping = mappingBySource[target.entityName] else { return nil }
    return "FUNCTION($manager, \"\(MappingExpression.selector)\", \"\(mapping)\", $source.\(name))"
  }

  /// The expression of a relationship mapping that names its source key path and entity mapping (Xcode's
  /// inspector's "Key Path" and "Mapping Name"): the destination instances that mapping made from the objects
  /// at the key path. Without a mapping name, the mapping of the entity the key path reaches.
  private func related(
    _ keyPath: String, through mappingName: String?, source: NSEntityDescription, mappingBySource: [String: String],
    _ what: String
  ) throws -> String {
    var mapping = mappingName
    if mapping == nil {
      var entity: NSEntityDescription? = source
      for key in keyPath.split(separator: ".").map(String.init) {
        entity = entity?.relationshipsByName[key]?.destinationEntity
      }
      mapping = entity.flatMap { mappingBySource[$0.entityName] }
    }
    guard let mapping else {
      throw Problem(
        reason: "\(what) reads the key path '\(keyPath)' without a mapping name, and no entity mapping migrates the "
          + "entity it reaches. Set its Mapping Name in Xcode's mapping editor.")
    }
    return "FUNCTION($manager, \"\(MappingExpression.selector)\", \"\(mapping)\", $source.\(keyPath))"
  }

  /// The source and destination models, from the paths the mapping model records (relative to the Xcode
  /// project): looked up from each folder above the `.xcmappingmodel`, dropping leading path components.
  private func locateModels(_ model: CoreDataXMLDocument.Record) throws -> (NSManagedObjectModel, NSManagedObjectModel) {
    func locate(_ key: String) throws -> NSManagedObjectModel {
      guard let path = nonEmpty(model.attributes[key]) else {
        throw Problem(
          reason: "it does not record its \(key) (the model it maps). Load it with "
            + "NSMappingModel(contentsOf:sourceModel:destinationModel:).")
      }
      let components = path.split(separator: "/").map(String.init)
      var folder = file.deletingLastPathComponent()
      for _ in 0..<8 {
        for start in components.indices {
          let candidate = components[start...].reduce(folder) { $0.appendingPathComponent($1) }
          if FileManager.default.fileExists(atPath: candidate.appendingPathComponent("contents").path) {
            do {
              return try NSManagedObjectModel(loadingContentsOf: candidate)
            } catch let error as ObjectGraphError {
              throw Problem(reason: "the model it maps, '\(candidate.path)', cannot be loaded: \(error.message)")
            }
          }
        }
        let parent = folder.deletingLastPathComponent()
        if parent.path == folder.path { break }
        folder = parent
      }
      throw Problem(
        reason: "the model it maps ('\(path)', its \(key), relative to the Xcode project) is not in any folder above "
          + "it. Load it with NSMappingModel(contentsOf:sourceModel:destinationModel:), passing the two models.")
    }
    return (try locate("sourcemodelpath"), try locate("destinationmodelpath"))
  }
}
