import Foundation

/// Turns the keyed archive of a compiled model (`.mom`) into the engine's descriptions.
///
/// The keys read, by archived class (the names Core Data's `encodeWithCoder:` writes):
/// - `NSManagedObjectModel`: `NSEntities` (name → entity), `NSVersionIdentifiers`, `NSFetchRequestTemplates`,
///   `NSConfigurations` (name → entities; not in the fixtures, read when present);
/// - `NSEntityDescription`: `NSEntityName`, `NSClassNameForEntity`, `NSIsAbstract`, `NSSuperentity`,
///   `NSProperties` (name → property), `NSRenamingIdentifier`, `NSVersionHashModifier`, `NSUserInfo`,
///   `NSUniqueTuples`, `NSFetchIndexDescriptions` (`NSIndexName`, `NSIndexElements`: `NSPropertyName`,
///   `NSFetchIndexElementType`, `NSAscending`);
/// - `NSPropertyDescription`: `NSPropertyName`, `NSIsOptional`, `NSIsTransient`, `NSRenamingIdentifier`,
///   `NSVersionHashModifier`, `NSUserInfo`;
/// - `NSAttributeDescription`: `NSAttributeType` (Core Data's `NSAttributeType` raw values), `NSDefaultValue`,
///   `NSValueTransformerName`, `NSFlagsKey` (bit 0: allows external storage), and for a derived attribute
///   `NSDerivationExpression`;
/// - `NSRelationshipDescription`: `NSDestinationEntity` / `_NSDestinationEntityName`, `NSInverseRelationship`
///   / `_NSInverseRelationshipName`, `NSMinCount`, `NSMaxCount` (1: to-one), `NSDeleteRule`, `NSIsOrdered`;
/// - `NSPropertyDescription`'s `NSValidationPredicates` (archived `NSPredicate`s) and `NSValidationWarnings`
///   (strings, or Core Data's validation error codes);
/// - `NSFetchedPropertyDescription` (`NSFetchRequest`, `NSUserInfo`) and fetch request templates: the fetch
///   request's entity (`NSEntity` or `NSEntityName`), predicate (`NSPredicate`), `NSFetchLimit` and `NSBatchSize`.
///
/// Archived predicates are written back as format strings (``KeyedArchive/predicateFormat(_:_:)``); a form the
/// predicate language cannot write becomes text no parser accepts, so a fetch or validation that uses it throws,
/// naming it.
///
/// Not read: `NSSubentities` (the engine derives subentities from superentities), `NSCompoundIndexes` (the
/// compiler's copy of the fetch indexes), `NSAttributeValueClassName` (follows from the type), `_P` (Apple's
/// private packed flags, duplicated by the keys above), the sort descriptors, offset and flags of archived fetch
/// requests.
struct CompiledModelReader {
  let archive: KeyedArchive

  typealias Malformed = KeyedArchive.Malformed

  // MARK: - The model

  func read() throws -> XcodeModelLoader.ParsedModel {
    let root = try archive.object(at: archive.rootIndex, "the archive's root object")
    guard root.isKind(of: "NSManagedObjectModel") else {
      throw Malformed(
        reason: "its root object is an \(root.className), not an NSManagedObjectModel, so it is not a compiled "
          + "model")
    }
    var parsed = XcodeModelLoader.ParsedModel()
    var byIndex: [Int: NSEntityDescription] = [:]
    var parents: [(entity: NSEntityDescription, parentIndex: Int)] = []
    for (_, value) in try archive.entries(root.fields["NSEntities"], "the model's entities") {
      guard let index = try archive.index(value, "an entity of the model") else { continue }
      guard byIndex[index] == nil else { continue }
      let (entity, parentIndex) = try readEntity(at: index)
      byIndex[index] = entity
      parsed.entities.append(entity)
      if let parentIndex { parents.append((entity, parentIndex)) }
    }
    for (entity, parentIndex) in parents {
      guard let parent = byIndex[parentIndex] else {
        throw Malformed(
          reason: "entity '\(entity.entityName)' has a superentity (object \(parentIndex)) that is not one of the model's entities")
      }
      entity.superentity = parent
    }
    // Xcode writes entities and properties sorted by name; the archive keeps them in hash order.
    parsed.entities.sort { $0.entityName < $1.entityName }
    for entity in parsed.entities where !entity.indexes.isEmpty {
      entity.indexes = XcodeModelLoader.ModelReader.storableIndexes(of: entity)
    }
    for value in try archive.members(root.fields["NSVersionIdentifiers"], "the model's version identifiers") {
      if let identifier = try archive.string(value, "a version identifier"), !identifier.isEmpty {
        parsed.versionIdentifiers.insert(identifier)
      }
    }
    for (key, value) in try archive.entries(root.fields["NSConfigurations"], "the model's configurations") {
      guard let name = try archive.string(key, "a configuration name") else { continue }
      parsed.configurations[name] = try archive.members(value, "configuration '\(name)'").compactMap {
        try entityName($0, "a member of configuration '\(name)'")
      }
    }
    for (key, value) in try archive.entries(root.fields["NSFetchRequestTemplates"], "the fetch request templates") {
      guard let name = try archive.string(key, "a fetch request template's name") else { continue }
      parsed.fetchRequestTemplates.append(try readFetchRequest(value, name: name, "fetch request template '\(name)'"))
    }
    parsed.fetchRequestTemplates.sort { $0.name < $1.name }
    return parsed
  }

  /// An entity's name, from a reference to the entity object or to its name.
  private func entityName(_ value: PropertyListValue?, _ what: String) throws -> String? {
    guard let resolved = try archive.resolve(value, what) else { return nil }
    if let name = resolved.string { return name }
    guard let object = try archive.object(value, what) else { return nil }
    return try archive.string(object.fields["NSEntityName"], "the name of \(what)")
  }

  /// The entity an archived fetch request fetches (`NSEntity` or `NSEntityName`).
  private func fetchEntityName(_ value: PropertyListValue?, _ what: String) throws -> String? {
    guard let request = try archive.object(value, what) else { return nil }
    if let name = try entityName(request.fields["NSEntity"], "the entity of \(what)") { return name }
    return try archive.string(request.fields["NSEntityName"], "the entity of \(what)")
  }

  /// An archived fetch request (a template's, a fetched property's) as the model keeps it: its entity
  /// (`NSEntity` or `NSEntityName`), its predicate (`NSPredicate`) as its format, `NSFetchLimit` and `NSBatchSize`.
  private func readFetchRequest(_ value: PropertyListValue?, name: String, _ what: String) throws -> FetchRequestTemplate {
    var template = FetchRequestTemplate(
      name: name, entityName: try fetchEntityName(value, what) ?? "",
      predicateFormat: try archive.object(value, what).flatMap {
        try archive.predicateFormat($0.fields["NSPredicate"], "the predicate of \(what)")
      })
    guard let request = try archive.object(value, what) else { return template }
    for (key, keyPath) in [("NSFetchLimit", \FetchRequestTemplate.fetchLimit), ("NSBatchSize", \.fetchBatchSize)] {
      guard let number = request.fields[key]?.integer else { continue }
      guard let count = Int(exactly: number), count >= 0 else {
        throw Malformed(reason: "\(what) has \(key) \(number), which is not a count")
      }
      template[keyPath: keyPath] = count
    }
    return template
  }

  /// A property's validation predicates and warnings (`NSValidationPredicates`, `NSValidationWarnings`), as the
  /// model keeps them; the model parses each predicate when it is first used.
  private func validationRules(_ fields: [String: PropertyListValue], _ what: String) throws -> [PropertyValidationRule] {
    let predicates = try archive.members(fields["NSValidationPredicates"], "the validation predicates of \(what)")
    guard !predicates.isEmpty else { return [] }
    let warnings = try archive.members(fields["NSValidationWarnings"], "the validation warnings of \(what)")
    return try predicates.enumerated().map { index, value in
      let format = try archive.predicateFormat(value, "validation predicate \(index) of \(what)") ?? "TRUEPREDICATE"
      var warning: Any = "The value does not satisfy the predicate \(format)."
      if index < warnings.count {
        switch try archive.plainValue(warnings[index], "validation warning \(index) of \(what)") {
        case let text as String: warning = text
        case let number as Int64: warning = Int(number)
        case let other?: warning = "\(other)"
        case nil: break
        }
      }
      return PropertyValidationRule(parsed: ArchivedValidationPredicate(format: format), given: nil, warning: warning)
    }
  }

  private func nonEmpty(_ text: String?) -> String? {
    guard let text, !text.isEmpty else { return nil }
    return text
  }

  // MARK: - Entities

  private func readEntity(at index: Int) throws -> (NSEntityDescription, parentIndex: Int?) {
    let object = try archive.object(at: index, "an entity of the model")
    guard object.isKind(of: "NSEntityDescription") else {
      throw Malformed(reason: "an entity of the model (object \(index)) is an \(object.className)")
    }
    let fields = object.fields
    guard let name = nonEmpty(try archive.string(fields["NSEntityName"], "the name of entity object \(index)")) else {
      throw Malformed(reason: "entity object \(index) has no name")
    }
    var properties: [NSPropertyDescription] = []
    var fetchedProperties: [NSFetchedPropertyDescription] = []
    for (_, value) in try archive.entries(fields["NSProperties"], "the properties of entity '\(name)'") {
      let what = "a property of entity '\(name)'"
      guard let property = try archive.object(value, what) else { continue }
      if property.isKind(of: "NSFetchedPropertyDescription") {
        let propertyName = try archive.string(property.fields["NSPropertyName"], what) ?? ""
        let described = "fetched property '\(name).\(propertyName)'"
        var fetched = NSFetchedPropertyDescription()
        fetched.name = propertyName
        fetched.request = try readFetchRequest(property.fields["NSFetchRequest"], name: propertyName, described)
        fetched.userInfo = try archive.stringDictionary(property.fields["NSUserInfo"], "the user info of \(described)")
        fetchedProperties.append(fetched)
      } else if property.isKind(of: "NSRelationshipDescription") {
        properties.append(.relationship(try readRelationship(property, entity: name)))
      } else if property.isKind(of: "NSAttributeDescription") {
        properties.append(.attribute(try readAttribute(property, entity: name)))
      } else {
        throw Malformed(reason: "\(what) is an \(property.className), which is not a kind of property the engine knows")
      }
    }
    // Xcode writes an entity's attributes, then its relationships, each sorted by name; the archive keeps
    // them in hash order.
    properties.sort { lhs, rhs in
      switch (lhs.kind, rhs.kind) {
      case (.attribute, .relationship): true
      case (.relationship, .attribute): false
      default: lhs.name < rhs.name
      }
    }
    fetchedProperties.sort { $0.name < $1.name }
    let entity = NSEntityDescription(name: name, properties: properties)
    let className = try archive.string(fields["NSClassNameForEntity"], "the class of entity '\(name)'")
    entity.representedClassName = className == "NSManagedObject" ? nil : nonEmpty(className)
    entity.isAbstract = fields["NSIsAbstract"]?.bool ?? false
    let renaming = try archive.string(fields["NSRenamingIdentifier"], "the renaming identifier of '\(name)'")
    entity.renamingIdentifier = renaming == name ? nil : nonEmpty(renaming)
    entity.versionHashModifier = nonEmpty(
      try archive.string(fields["NSVersionHashModifier"], "the version hash modifier of '\(name)'"))
    entity.userInfo = try archive.stringDictionary(fields["NSUserInfo"], "the user info of entity '\(name)'")
    entity.fetchedProperties = fetchedProperties
    entity.uniquenessConstraints = try archive.members(fields["NSUniqueTuples"], "the constraints of '\(name)'")
      .map { tuple in
        try archive.members(tuple, "a uniqueness constraint of '\(name)'").compactMap {
          try propertyName($0, "a uniqueness constraint of '\(name)'")
        }
      }
      .filter { !$0.isEmpty }
    entity.indexes = try archive.members(fields["NSFetchIndexDescriptions"], "the fetch indexes of '\(name)'").compactMap {
      try readFetchIndex($0, entity: name)
    }
    let parentIndex = try archive.index(fields["NSSuperentity"], "the superentity of '\(name)'")
    return (entity, parentIndex)
  }

  // MARK: - Properties and indexes

  /// A property's name, from a reference to its name or to the property object.
  private func propertyName(_ value: PropertyListValue, _ what: String) throws -> String? {
    guard let resolved = try archive.resolve(value, what) else { return nil }
    if let name = resolved.string { return name }
    guard let object = try archive.object(value, what) else { return nil }
    return try archive.string(object.fields["NSPropertyName"], what)
  }

  private func readFetchIndex(_ value: PropertyListValue, entity: String) throws -> NSFetchIndexDescription? {
    guard let index = try archive.object(value, "a fetch index of '\(entity)'") else { return nil }
    let name = try archive.string(index.fields["NSIndexName"], "a fetch index name of '\(entity)'") ?? ""
    let what = "fetch index '\(entity).\(name)'"
    let elements = try archive.members(index.fields["NSIndexElements"], "the elements of \(what)").compactMap {
      value -> NSFetchIndexElementDescription? in
      guard let element = try archive.object(value, "an element of \(what)") else { return nil }
      guard
        let property = try propertyName(element.fields["NSPropertyName"] ?? .uid(0), "an element of \(what)")
          ?? propertyName(element.fields["NSProperty"] ?? .uid(0), "an element of \(what)")
      else {
        throw Malformed(reason: "an element of \(what) names no property")
      }
      let type = element.fields["NSFetchIndexElementType"]?.integer ?? 0
      guard type == 0 || type == 1 else {
        throw Malformed(reason: "an element of \(what) has index type \(type) (0 binary or 1 R-tree expected)")
      }
      return NSFetchIndexElementDescription(
        propertyName: property, isAscending: element.fields["NSAscending"]?.bool ?? true,
        collationType: type == 1 ? .rTree : .binary)
    }
    return NSFetchIndexDescription(name: name, elements: elements)
  }

  private func readCommon(_ object: KeyedArchive.Object, entity: String) throws -> String {
    guard let name = nonEmpty(try archive.string(object.fields["NSPropertyName"], "a property of '\(entity)'")) else {
      throw Malformed(reason: "a property of entity '\(entity)' (object \(object.index)) has no name")
    }
    return name
  }

  private func readAttribute(_ object: KeyedArchive.Object, entity: String) throws -> NSAttributeDescription {
    let fields = object.fields
    let name = try readCommon(object, entity: entity)
    let what = "attribute '\(entity).\(name)'"
    let raw = fields["NSAttributeType"]?.integer ?? 0
    guard let type = UInt(exactly: raw).flatMap(NSAttributeType.init(rawValue:)) else {
      throw Malformed(reason: "\(what) has attribute type \(raw), which is not a Core Data NSAttributeType")
    }
    let derived = object.isKind(of: "NSDerivedAttributeDescription")
    let attribute =
      derived
      ? NSDerivedAttributeDescription(name: name, type: .init(rawValue: type), isOptional: fields["NSIsOptional"]?.bool ?? false)
      : NSAttributeDescription(name: name, type: .init(rawValue: type), isOptional: fields["NSIsOptional"]?.bool ?? false)
    attribute.isTransient = fields["NSIsTransient"]?.bool ?? false
    attribute.defaultValue = try defaultValue(
      archive.plainValue(fields["NSDefaultValue"], "the default value of \(what)"), type: type, what)
    attribute.valueTransformerName = nonEmpty(
      try archive.string(fields["NSValueTransformerName"], "the value transformer of \(what)"))
    let renaming = try archive.string(fields["NSRenamingIdentifier"], "the renaming identifier of \(what)")
    attribute.renamingIdentifier = renaming == name ? nil : nonEmpty(renaming)
    attribute.versionHashModifier = nonEmpty(
      try archive.string(fields["NSVersionHashModifier"], "the version hash modifier of \(what)"))
    attribute.userInfo = try archive.stringDictionary(fields["NSUserInfo"], "the user info of \(what)")
    attribute.validationRules = try validationRules(fields, what)
    attribute.allowsExternalBinaryDataStorage = (fields["NSFlagsKey"]?.integer ?? 0) & 1 != 0
    // Bit 4: the attribute keeps its value in history on deletion (the fixture's Person.id, whose model
    // says "Preserve After Deletion"): part of Core Data's version hash.
    attribute.preservesValueInHistoryOnDeletion = (fields["NSFlagsKey"]?.integer ?? 0) & 16 != 0
    if derived {
      attribute.derivationFormat =
        try archive.expressionFormat(fields["NSDerivationExpression"], "the derivation of \(what)") ?? ""
    }
    return attribute
  }

  /// An archived default value as the attribute type's Swift value (an `Integer 16` default is an `Int16`).
  private func defaultValue(_ value: (any Sendable)?, type: NSAttributeType, _ what: String) throws -> (any Sendable)? {
    guard let value else { return nil }
    func integer<T: FixedWidthInteger & Sendable>(_: T.Type) throws -> T {
      let converted: T? =
        switch value {
        case let number as Int64: T(exactly: number)
        case let number as Double: T(exactly: number)
        case let flag as Bool: flag ? 1 : 0
        default: nil
        }
      guard let converted else { throw Malformed(reason: "\(what) has default value \(value), not a \(T.self)") }
      return converted
    }
    func real() throws -> Double {
      switch value {
      case let number as Double: return number
      case let number as Int64: return Double(number)
      case let flag as Bool: return flag ? 1 : 0
      default: throw Malformed(reason: "\(what) has default value \(value), which is not a number")
      }
    }
    switch type {
    case .integer16AttributeType: return try integer(Int16.self)
    case .integer32AttributeType: return try integer(Int32.self)
    case .integer64AttributeType: return try integer(Int64.self)
    case .doubleAttributeType: return try real()
    case .floatAttributeType: return Float(try real())
    case .booleanAttributeType:
      switch value {
      case let flag as Bool: return flag
      case let number as Int64: return number != 0
      default: throw Malformed(reason: "\(what) has default value \(value), which is not a Boolean")
      }
    case .decimalAttributeType:
      if let decimal = value as? Decimal { return decimal }
      if let number = value as? Int64 { return Decimal(number) }
      return Decimal(try real())
    case .stringAttributeType, .dateAttributeType, .UUIDAttributeType, .URIAttributeType, .binaryDataAttributeType:
      let matches: Bool =
        switch type {
        case .stringAttributeType: value is String
        case .dateAttributeType: value is Date
        case .UUIDAttributeType: value is UUID
        case .URIAttributeType: value is URL
        default: value is Data
        }
      guard matches else { throw Malformed(reason: "\(what) has default value \(value), not a \(type.swiftTypeName)") }
      return value
    case .transformableAttributeType, .compositeAttributeType, .objectIDAttributeType, .undefinedAttributeType:
      // The engine keeps no default for types it does not store (as it reads Xcode models).
      return nil
    }
  }

  private func readRelationship(_ object: KeyedArchive.Object, entity: String) throws -> NSRelationshipDescription {
    let fields = object.fields
    let name = try readCommon(object, entity: entity)
    let what = "relationship '\(entity).\(name)'"
    let destination =
      try entityName(fields["NSDestinationEntity"], "the destination of \(what)")
      ?? archive.string(fields["_NSDestinationEntityName"], "the destination of \(what)")
    guard let destination = nonEmpty(destination) else {
      throw Malformed(reason: "\(what) has no destination entity")
    }
    var inverse = try archive.string(fields["_NSInverseRelationshipName"], "the inverse of \(what)")
    if inverse == nil, let inverseObject = try archive.object(fields["NSInverseRelationship"], "the inverse of \(what)") {
      inverse = try archive.string(inverseObject.fields["NSPropertyName"], "the inverse of \(what)")
    }
    let deleteRule: NSDeleteRule
    switch fields["NSDeleteRule"]?.integer ?? 1 {
    case 0: deleteRule = .noActionDeleteRule
    case 1: deleteRule = .nullifyDeleteRule
    case 2: deleteRule = .cascadeDeleteRule
    case 3: deleteRule = .denyDeleteRule
    case let other:
      throw Malformed(reason: "\(what) has delete rule \(other) (0 to 3 expected)")
    }
    let minCount = fields["NSMinCount"]?.integer ?? 0
    let maxCount = fields["NSMaxCount"]?.integer ?? 0
    guard minCount >= 0, maxCount >= 0, minCount <= Int64(Int32.max), maxCount <= Int64(Int32.max) else {
      throw Malformed(reason: "\(what) has counts \(minCount)...\(maxCount), which are not counts")
    }
    let isToMany = maxCount != 1
    let relationship = NSRelationshipDescription(
      name: name, destination: destination, inverse: nonEmpty(inverse), toMany: isToMany, deleteRule: deleteRule,
      isOptional: fields["NSIsOptional"]?.bool ?? false)
    relationship.isOrdered = fields["NSIsOrdered"]?.bool ?? false
    relationship.isTransient = fields["NSIsTransient"]?.bool ?? false
    if isToMany {
      relationship.minCount = Int(minCount)
      relationship.maxCount = Int(maxCount)
    }
    let renaming = try archive.string(fields["NSRenamingIdentifier"], "the renaming identifier of \(what)")
    relationship.renamingIdentifier = renaming == name ? nil : nonEmpty(renaming)
    relationship.versionHashModifier = nonEmpty(
      try archive.string(fields["NSVersionHashModifier"], "the version hash modifier of \(what)"))
    relationship.userInfo = try archive.stringDictionary(fields["NSUserInfo"], "the user info of \(what)")
    relationship.validationRules = try validationRules(fields, what)
    return relationship
  }
}
