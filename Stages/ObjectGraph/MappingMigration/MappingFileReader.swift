import Foundation

/// Reads mapping model files into entity mappings: compiled `.cdm` files (an `NSKeyedArchiver` archive of
/// `NSMappingModel`) and Xcode's `.xcmappingmodel` folders (`xcmapping.xml`, in Core Data's XML store format).
/// Used by ``NSMappingModel/init(contentsOf:)``.
enum MappingFileReader {
  static let compiledExtension = "cdm"
  static let xcodeExtension = "xcmappingmodel"
  static let xcodeFileName = "xcmapping.xml"

  /// A file's problem, worded for the error message.
  struct Problem: Error {
    let reason: String
  }

  /// Reads `url` (a `.cdm`, a `.xcmappingmodel` folder or its `xcmapping.xml`) and, when `models` are given,
  /// checks the entity names against them. Unless `checkingExpressions` is `false` (the bundle search, which
  /// checks only the file that matches), every value expression is checked too
  /// (``checkExpressions(_:source:file:)``).
  static func read(
    _ url: URL, models: (source: NSManagedObjectModel, destination: NSManagedObjectModel)?, checkingExpressions: Bool = true
  ) throws -> [NSEntityMapping] {
    var isDirectory: ObjCBool = false
    guard FileManager.default.fileExists(atPath: url.path, isDirectory: &isDirectory) else {
      throw ObjectGraphError(
        .modelInvalid,
        "No mapping model at '\(url.path)': nothing exists at that path. Pass the app's .cdm file (or the "
          + ".xcmappingmodel folder), and check that the package copies it as a resource.",
        url: url)
    }
    let file =
      isDirectory.boolValue ? url.appendingPathComponent(xcodeFileName, isDirectory: false) : url
    let data = try ModelFile.read(
      file, what: "the mapping model file", remedy: "Pass a .cdm file or a .xcmappingmodel folder holding xcmapping.xml.")
    let mappings: [NSEntityMapping]
    let sourceModel: NSManagedObjectModel?
    do {
      if BinaryPropertyList.isBinaryPropertyList(data) {
        mappings = try readCompiled(data)
        sourceModel = models?.source
      } else {
        (mappings, sourceModel) = try XcodeMappingReader(file: file, data: data, models: models).read()
      }
      if let models { try check(mappings, source: models.source, destination: models.destination) }
      if checkingExpressions { try checkExpressions(mappings, source: sourceModel) }
    } catch let problem as Problem {
      throw ObjectGraphError(
        .modelInvalid, "The mapping model file '\(file.path)' cannot be used: \(problem.reason)", url: file)
    } catch let malformed as BinaryPropertyList.Malformed {
      throw ObjectGraphError(
        .modelInvalid,
        "The mapping model file '\(file.path)' is not a readable binary property list: \(malformed.reason). Copy "
          + "the .cdm Xcode compiled again.",
        url: file)
    } catch let malformed as KeyedArchive.Malformed {
      throw ObjectGraphError(
        .modelInvalid,
        "The mapping model file '\(file.path)' is not a readable mapping model archive: \(malformed.reason). Copy "
          + "the .cdm Xcode compiled again.",
        url: file)
    } catch let malformed as CoreDataXMLDocument.Malformed {
      throw ObjectGraphError(
        .modelInvalid,
        "The mapping model file '\(file.path)' is not a readable Xcode mapping model: \(malformed.reason). "
          + "Restore it from version control, or save it again in Xcode's mapping editor.",
        url: file)
    }
    return mappings
  }

  /// Refuses entity mappings naming entities the models do not have.
  static func check(_ mappings: [NSEntityMapping], source: NSManagedObjectModel, destination: NSManagedObjectModel) throws {
    for mapping in mappings {
      if let name = mapping.sourceEntityName, source.entitiesByName[name] == nil {
        throw Problem(
          reason: "entity mapping '\(mapping.name)' names source entity '\(name)', which the source model does not "
            + "have (it has \(source.entities.map(\.entityName).sorted().joined(separator: ", "))). Pass the models the "
            + "mapping was made for, or fix the mapping in Xcode's mapping editor.")
      }
      if let name = mapping.destinationEntityName, destination.entitiesByName[name] == nil {
        throw Problem(
          reason: "entity mapping '\(mapping.name)' names destination entity '\(name)', which the destination model "
            + "does not have (it has \(destination.entities.map(\.entityName).sorted().joined(separator: ", "))). Pass the "
            + "models the mapping was made for, or fix the mapping in Xcode's mapping editor.")
      }
    }
  }

  /// Whether every entity mapping's recorded version hashes are the models' hashes of its entities.
  static func matches(_ mappings: [NSEntityMapping], source: NSManagedObjectModel, destination: NSManagedObjectModel) -> Bool {
    !mappings.isEmpty
      && mappings.allSatisfy { mapping in
        let sourceMatches = mapping.sourceEntityName.map { name in
          mapping.sourceEntityVersionHash != nil
            && source.entitiesByName[name]?.versionHash == mapping.sourceEntityVersionHash
        }
        let destinationMatches = mapping.destinationEntityName.map { name in
          mapping.destinationEntityVersionHash != nil
            && destination.entitiesByName[name]?.versionHash == mapping.destinationEntityVersionHash
        }
        return sourceMatches != false && destinationMatches != false
      }
  }

  /// Core Data's `NSEntityMappingType` raw values.
  static func mappingType(rawValue: Int64) -> NSEntityMappingType? {
    switch rawValue {
    case 0: .undefinedEntityMappingType
    case 1: .customEntityMappingType
    case 2: .addEntityMappingType
    case 3: .removeEntityMappingType
    case 4: .copyEntityMappingType
    case 5: .transformEntityMappingType
    default: nil
    }
  }

  /// Refuses, naming the file, a mapping model holding a value expression ObjectGraph cannot evaluate
  /// (``checkExpressions(_:source:)``).
  static func checkExpressions(_ mappings: [NSEntityMapping], source: NSManagedObjectModel?, file: URL) throws {
    do {
      try checkExpressions(mappings, source: source)
    } catch let problem as Problem {
      throw ObjectGraphError(
        .modelInvalid, "The mapping model file '\(file.path)' cannot be used: \(problem.reason)", url: file)
    }
  }

  /// Refuses a value expression ObjectGraph cannot evaluate, naming the entity mapping, the property and the
  /// expression: its syntax, variables and functions always, its key paths and mapping names when the source
  /// model is known.
  static func checkExpressions(_ mappings: [NSEntityMapping], source: NSManagedObjectModel?) throws {
    let names = Set(mappings.map(\.name))
    for mapping in mappings {
      let context = MappingExpression.CheckContext(
        source: mapping.sourceEntityName.flatMap { source?.entitiesByName[$0] }, mappingNames: names,
        hasPolicy: mapping.entityMigrationPolicyClassName != nil)
      for property in mapping.attributeMappings + mapping.relationshipMappings {
        guard let text = property.valueExpression else { continue }
        do {
          _ = try MappingExpression.checked(text, in: context)
        } catch let unsupported as MappingExpression.Unsupported {
          throw Problem(
            reason: "entity mapping '\(mapping.name)', property mapping '\(property.name)' has the value expression "
              + "\(text), which ObjectGraph cannot evaluate: \(unsupported.reason). Change it in Xcode's mapping "
              + "editor, or load the mapping and give the property mapping a closure (NSPropertyMapping(name:value:)).")
        }
      }
    }
  }

  // MARK: - Compiled mapping models

  /// Reads a `.cdm` archive: `NSMappingModel` with `NSEntityMappings`, each an `NSEntityMapping`
  /// (`NSMappingName`, `NSMappingType`, `NSSourceEntityName`, `NSDestinationEntityName`,
  /// `NSSourceEntityVersionHash`, `NSDestinationEntityVersionHash`, `NSEntityMigrationPolicyClassName`,
  /// `NSSourceExpression`, `NSAttributeMappings`, `NSRelationshipMappings`, `NSUserInfo`), each property mapping
  /// an `NSPropertyMapping` (`NSDestinationPropertyName`, `NSValueExpression`, `NSUserInfo`).
  static func readCompiled(_ data: Data) throws -> [NSEntityMapping] {
    let archive = try KeyedArchive(BinaryPropertyList.read(data))
    let root = try archive.object(at: archive.rootIndex, "the archive's root object")
    guard root.isKind(of: "NSMappingModel") else {
      throw Problem(
        reason: "its root object is an \(root.className), not an NSMappingModel, so it is not a compiled mapping "
          + "model. Pass the .cdm Xcode compiled from the .xcmappingmodel.")
    }
    return try archive.members(root.fields["NSEntityMappings"], "the entity mappings").compactMap { value in
      guard let object = try archive.object(value, "an entity mapping") else { return nil }
      return try readEntityMapping(object, in: archive)
    }
  }

  private static func readEntityMapping(_ object: KeyedArchive.Object, in archive: KeyedArchive) throws -> NSEntityMapping {
    let fields = object.fields
    guard let name = try archive.string(fields["NSMappingName"], "the name of an entity mapping"), !name.isEmpty else {
      throw Problem(reason: "an entity mapping (object \(object.index)) has no name.")
    }
    let what = "entity mapping '\(name)'"
    let rawType = fields["NSMappingType"]?.integer ?? 0
    guard let type = mappingType(rawValue: rawType) else {
      throw Problem(reason: "\(what) has mapping type \(rawType), which is not an NSEntityMappingType (0 to 5).")
    }
    func hash(_ key: String) throws -> Data? {
      guard case .data(let bytes)? = try archive.resolve(fields[key], "\(key) of \(what)") else { return nil }
      return bytes
    }
    func properties(_ key: String) throws -> [NSPropertyMapping] {
      try archive.members(fields[key], "the property mappings of \(what)").compactMap { value in
        guard let property = try archive.object(value, "a property mapping of \(what)") else { return nil }
        guard let propertyName = try archive.string(property.fields["NSDestinationPropertyName"], "a property of \(what)")
        else { throw Problem(reason: "\(what) has a property mapping with no destination property name.") }
        let expression = try archive.expressionFormat(
          property.fields["NSValueExpression"], "the value of \(what), property '\(propertyName)'")
        let mapping = NSPropertyMapping(name: propertyName, valueExpression: expression)
        mapping.userInfo = try userInfo(property.fields["NSUserInfo"], in: archive, what)
        return mapping
      }
      .sorted { $0.name < $1.name }
    }
    let mapping = NSEntityMapping(
      name: name, mappingType: type,
      sourceEntityName: try archive.string(fields["NSSourceEntityName"], "the source entity of \(what)"),
      destinationEntityName: try archive.string(fields["NSDestinationEntityName"], "the destination entity of \(what)"),
      attributeMappings: try properties("NSAttributeMappings"),
      relationshipMappings: try properties("NSRelationshipMappings"),
      sourcePredicate: try sourcePredicate(fields["NSSourceExpression"], in: archive, mapping: name).map { FormatPredicate($0) })
    mapping.entityMigrationPolicyClassName = try archive.string(
      fields["NSEntityMigrationPolicyClassName"], "the policy class of \(what)")
    mapping.sourceEntityVersionHash = try hash("NSSourceEntityVersionHash")
    mapping.destinationEntityVersionHash = try hash("NSDestinationEntityVersionHash")
    mapping.userInfo = try userInfo(fields["NSUserInfo"], in: archive, what)
    return mapping
  }

  private static func userInfo(_ value: PropertyListValue?, in archive: KeyedArchive, _ what: String) throws
    -> [String: Any]
  {
    guard let plain = try archive.plainValue(value, "the user info of \(what)") else { return [:] }
    return plain as? [String: any Sendable] ?? [:]
  }

  /// The predicate of the source expression the model compiler writes (a fetch request expression of
  /// `fetchRequestForSourceEntityNamed:predicateString:`); `nil` for `TRUEPREDICATE` or none.
  private static func sourcePredicate(_ value: PropertyListValue?, in archive: KeyedArchive, mapping: String) throws
    -> FetchPredicate?
  {
    guard let expression = try archive.expressionObject(value, "the source expression of '\(mapping)'") else {
      return nil
    }
    let request = try archive.expressionObject(expression.fields["NSFRExpression"], "the source fetch of '\(mapping)'")
    let selector = try request.flatMap { try archive.string($0.fields["NSSelectorName"], "the source fetch of '\(mapping)'") }
    guard let request, selector == "fetchRequestForSourceEntityNamed:predicateString:" else {
      let text = try archive.expressionFormat(value, "the source expression of '\(mapping)'") ?? ""
      throw Problem(
        reason: "entity mapping '\(mapping)' has the source expression \(text), which ObjectGraph cannot run: it "
          + "reads only a fetch of the source entity with a predicate. Give the mapping a filter predicate instead "
          + "in Xcode's mapping editor, or set its sourcePredicate in code.")
    }
    let arguments = try archive.members(request.fields["NSArguments"], "the source fetch of '\(mapping)'")
    guard arguments.count == 2,
      let predicateExpression = try archive.expressionObject(arguments[1], "the source predicate of '\(mapping)'"),
      let text = try archive.plainValue(predicateExpression.fields["NSConstantValue"], "the source predicate") as? String
    else {
      throw Problem(reason: "entity mapping '\(mapping)' has a source fetch without a predicate string.")
    }
    return try predicate(text, mapping: mapping)
  }

  /// A filter predicate's text as a predicate; `nil` for an empty text or `TRUEPREDICATE`.
  static func predicate(_ text: String, mapping: String) throws -> FetchPredicate? {
    let trimmed = text.trimmingCharacters(in: .whitespacesAndNewlines)
    guard !trimmed.isEmpty, trimmed != "TRUEPREDICATE" else { return nil }
    do {
      return try FetchPredicate(format: trimmed)
    } catch {
      throw Problem(
        reason: "entity mapping '\(mapping)' filters its source instances with '\(trimmed)', which ObjectGraph cannot "
          + "read (\(error)). Fix the filter predicate in Xcode's mapping editor.")
    }
  }
}
