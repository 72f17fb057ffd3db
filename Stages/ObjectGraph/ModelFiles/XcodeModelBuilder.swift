import Foundation

/// Building the model descriptions (entities, attributes and their default values, relationships, fetched
/// properties, configurations) from the XML tree of one `contents` file.
extension XcodeModelLoader {
  /// A model file's contents, ready for ``NSManagedObjectModel``'s designated initializer.
  struct ParsedModel {
    var entities: [NSEntityDescription] = []
    var versionIdentifiers: Set<String> = []
    var configurations: [String: [String]] = [:]
    var fetchRequestTemplates: [FetchRequestTemplate] = []
    /// What was odd in the file and read leniently, in file order.
    var warnings: [ModelLoadWarning] = []
  }

  /// Turns the XML tree of one `contents` file into descriptions, throwing errors that name the file and line.
  struct ModelReader {
    /// Where the XML came from, as error messages name it.
    let source: ModelSource
    /// The lenient readings so far.
    var warnings: [ModelLoadWarning] = []
    /// The file's `<composite>` blocks by name: the elements of the composite attributes that name them.
    var composites: [String: ModelNode] = [:]
    /// The composite blocks being read, outermost first: a block that contains itself is refused.
    var readingComposites: [String] = []

    init(source: ModelSource) { self.source = source }

    init(file: URL) { self.init(source: .file(file)) }

    func failure(_ element: ModelNode?, _ what: String, _ fix: String) -> ObjectGraphError {
      let place = element.map { " (line \($0.line))" } ?? ""
      return ObjectGraphError(.modelInvalid, "In \(source.name)\(place): \(what). \(fix)", url: source.url)
    }

    func required(_ element: ModelNode, _ attribute: String, of what: String) throws -> String {
      guard let value = element[attribute], !value.isEmpty else {
        throw failure(
          element, "\(what) has no \(attribute)", "Give it one in Xcode's model editor (or add \(attribute)=\"…\").")
      }
      return value
    }

    // MARK: - The model

    mutating func read(_ root: ModelNode) throws -> ParsedModel {
      guard root.name == "model" else {
        throw failure(
          root, "the root element is <\(root.name)>, not <model>, so this is not an Xcode model file",
          "Pass the .xcdatamodeld or .xcdatamodel folder Xcode made.")
      }
      var parsed = ParsedModel()
      if let identifier = root["userDefinedModelVersionIdentifier"], !identifier.isEmpty {
        parsed.versionIdentifiers = [identifier]
      }
      var parents: [(entity: NSEntityDescription, parentName: String, element: ModelNode)] = []
      for child in root.children(named: "composite") {
        // Composites follow the entities in Xcode's files: known before any entity is read.
        let name = try required(child, "name", of: "a composite")
        composites[name] = child
      }
      for child in root.children {
        switch child.name {
        case "entity":
          let entity = try readEntity(child)
          parsed.entities.append(entity)
          if let parentName = child["parentEntity"], !parentName.isEmpty {
            parents.append((entity, parentName, child))
          }
        case "versionIdentifier":
          // ObjectGraph's own: the further identifiers of a model with several, which Xcode's single
          // userDefinedModelVersionIdentifier cannot hold (written by XcodeModelWriter).
          parsed.versionIdentifiers.insert(child["value"] ?? "")
        case "fetchRequest":
          parsed.fetchRequestTemplates.append(try readFetchRequestTemplate(child))
        case "configuration":
          let name = try required(child, "name", of: "a configuration")
          guard parsed.configurations[name] == nil else {
            throw failure(child, "two configurations are named '\(name)'", "Rename one in Xcode's model editor.")
          }
          parsed.configurations[name] = try child.children(named: "memberEntity").map {
            try required($0, "name", of: "a member entity of configuration '\(name)'")
          }
        default:
          // `elements` (diagram layout) is not part of what the engine describes, and `composite` blocks were
          // read first; unknown elements from newer Xcode versions are skipped the same way.
          continue
        }
      }
      let byName = Dictionary(parsed.entities.map { ($0.entityName, $0) }, uniquingKeysWith: { first, _ in first })
      for (entity, parentName, element) in parents {
        guard let parent = byName[parentName] else {
          throw failure(
            element, "entity '\(entity.entityName)' has parentEntity '\(parentName)', which the model does not have",
            "Add entity '\(parentName)' or fix the entity's parent in Xcode's model editor. Known entities: "
              + "\(byName.keys.sorted().joined(separator: ", ")).")
        }
        entity.superentity = parent
      }
      // A parent cycle would make every later look at an entity's properties recurse forever.
      for (entity, _, element) in parents {
        var chain = [entity.entityName]
        var current = entity.superentity
        while let next = current {
          guard !chain.contains(next.entityName) else {
            throw failure(
              element, "entity '\(entity.entityName)' inherits from itself (\((chain + [next.entityName]).joined(separator: " → ")))",
              "Break the inheritance cycle: give one of these entities another parent, or none, in Xcode's model editor.")
          }
          chain.append(next.entityName)
          current = next.superentity
        }
      }
      for entity in parsed.entities where !entity.indexes.isEmpty {
        entity.indexes = Self.storableIndexes(of: entity)
      }
      for (name, members) in parsed.configurations {
        if let missing = members.first(where: { byName[$0] == nil }) {
          throw failure(
            nil, "configuration '\(name)' lists entity '\(missing)', which the model does not have",
            "Remove it from the configuration in Xcode's model editor.")
        }
      }
      parsed.warnings = warnings
      return parsed
    }

    // MARK: - Entities and indexes

    mutating func readEntity(_ element: ModelNode) throws -> NSEntityDescription {
      let name = try required(element, "name", of: "an entity")
      var properties: [NSPropertyDescription] = []
      var fetchedProperties: [NSFetchedPropertyDescription] = []
      var uniquenessConstraints: [[String]] = []
      var indexes: [NSFetchIndexDescription] = []
      var legacyIndexes: [NSFetchIndexDescription] = []
      var compoundIndexes: [[String]] = []
      var userInfo: [String: String] = [:]
      for child in element.children {
        switch child.name {
        case "attribute":
          let attribute = try readAttribute(child, entity: name)
          properties.append(.attribute(attribute))
          // A transient attribute has no column, so its legacy flag asks for nothing; the flag on a relationship is
          // not read either (a store indexes its to-one foreign keys of its own accord).
          if child.flag("indexed") && !attribute.isTransient {
            legacyIndexes.append(Self.legacyIndex(on: attribute.name))
          }
        case "fetchIndex":
          indexes.append(try readFetchIndex(child, entity: name))
        case "relationship":
          properties.append(.relationship(try readRelationship(child, entity: name)))
        case "fetchedProperty":
          fetchedProperties.append(try readFetchedProperty(child, entity: name))
        case "uniquenessConstraints":
          for constraint in child.children(named: "uniquenessConstraint") {
            let keys = try constraint.children(named: "constraint").map {
              try required($0, "value", of: "a uniqueness constraint of entity '\(name)'")
            }
            if !keys.isEmpty { uniquenessConstraints.append(keys) }
          }
        case "userInfo":
          userInfo = readUserInfo(child)
        case "compoundIndexes":
          for compound in child.children(named: "compoundIndex") {
            let names = try compound.children(named: "index").map {
              try required($0, "value", of: "a compound index of entity '\(name)'")
            }
            if !names.isEmpty { compoundIndexes.append(names) }
          }
        default:
          // Other storage hints (Spotlight flags) are not described by the engine.
          continue
        }
      }
      let entity = NSEntityDescription(name: name, properties: properties)
      entity.representedClassName = nonEmpty(element["representedClassName"])
      entity.isAbstract = element.flag("isAbstract")
      entity.renamingIdentifier = nonEmpty(element["elementID"])
      entity.versionHashModifier = nonEmpty(element["versionHashModifier"])
      entity.userInfo = userInfo
      entity.fetchedProperties = fetchedProperties
      entity.uniquenessConstraints = uniquenessConstraints
      // A legacy flag or compound index whose index Xcode has already written as a <fetchIndex> of the same name
      // is not added twice.
      let written = Set(indexes.map(\.name))
      let legacy = legacyIndexes + Self.compoundIndexes(compoundIndexes, stored: properties)
      entity.indexes = indexes + legacy.filter { !written.contains($0.name) }
      return entity
    }

    /// The fetch indexes Xcode converts an older file's `<compoundIndexes>` to: one per compound index, its
    /// properties ascending, named `compoundIndex`, `compoundIndex1`, `compoundIndex2`… in file order (the names
    /// converted files carry, as Wikipedia's model shows). A storage hint: a name that is no stored property of
    /// the entity's own is left out, and an index left with none is dropped.
    static func compoundIndexes(_ lists: [[String]], stored properties: [NSPropertyDescription]) -> [NSFetchIndexDescription] {
      let storable = Set(properties.filter { !$0.isTransient }.map(\.name))
      return lists.enumerated().compactMap { position, names in
        let kept = names.filter(storable.contains)
        guard !kept.isEmpty else { return nil }
        return NSFetchIndexDescription(
          name: "compoundIndex" + (position == 0 ? "" : String(position)),
          elements: kept.map { NSFetchIndexElementDescription(propertyName: $0) })
      }
    }

    /// The entity's indexes without their elements that name a to-many relationship, and without an index left
    /// with no element. Xcode's model compiler accepts such elements and apps ship them (Wikipedia's
    /// `WMFArticle.compoundIndex3` starts with the to-many `readingLists`), but a to-many has no column in the
    /// entity's table, so there is nothing to index; a model made in code that asks for one is refused instead.
    static func storableIndexes(of entity: NSEntityDescription) -> [NSFetchIndexDescription] {
      let relationships = entity.relationshipsByName
      return entity.indexes.compactMap { index in
        let kept = index.elements.filter { relationships[$0.indexedPropertyName]?.isToMany != true }
        if kept.isEmpty && !index.elements.isEmpty { return nil }
        if kept.count != index.elements.count { index.elements = kept }
        return index
      }
    }

    /// The single-element ascending index Xcode makes of an attribute's legacy `indexed="YES"` flag:
    /// `by<Attribute>Index`, with the attribute name's first letter upper-cased.
    static func legacyIndex(on attribute: String) -> NSFetchIndexDescription {
      NSFetchIndexDescription(
        name: "by" + attribute.prefix(1).uppercased() + attribute.dropFirst() + "Index",
        elements: [NSFetchIndexElementDescription(propertyName: attribute)])
    }

    /// `<fetchIndex name="…">` with its `<fetchIndexElement property="…" type="Binary" order="ascending"/>`
    /// children; a missing `type` is Binary, a missing `order` ascending.
    func readFetchIndex(_ element: ModelNode, entity: String) throws -> NSFetchIndexDescription {
      let name = try required(element, "name", of: "a fetch index of entity '\(entity)'")
      let elements = try element.children(named: "fetchIndexElement").map { child in
        let property = try required(child, "property", of: "an element of fetch index '\(entity).\(name)'")
        let collation: NSFetchIndexElementType
        if let type = nonEmpty(child["type"]) {
          guard let known = NSFetchIndexElementType(xcodeName: type) else {
            throw failure(
              child, "fetch index '\(entity).\(name)' has an element of type '\(type)', which is not an index type",
              "Use 'Binary' or 'RTree' (pick it in Xcode's model editor).")
          }
          collation = known
        } else {
          collation = .binary
        }
        let isAscending: Bool
        switch child["order"]?.lowercased() {
        case nil, "", "ascending": isAscending = true
        case "descending": isAscending = false
        case let other?:
          throw failure(
            child, "fetch index '\(entity).\(name)' has an element with order '\(other)', which is not an order",
            "Use 'ascending' or 'descending' (pick it in Xcode's model editor).")
        }
        return NSFetchIndexElementDescription(propertyName: property, isAscending: isAscending, collationType: collation)
      }
      return NSFetchIndexDescription(name: name, elements: elements)
    }

    // MARK: - User info

    func readUserInfo(_ element: ModelNode) -> [String: String] {
      var result: [String: String] = [:]
      for entry in element.children(named: "entry") {
        guard let key = entry["key"] else { continue }
        result[key] = entry["value"] ?? ""
      }
      return result
    }

    func userInfo(of element: ModelNode) -> [String: String] {
      element.children(named: "userInfo").reduce(into: [:]) { result, info in
        result.merge(readUserInfo(info), uniquingKeysWith: { _, last in last })
      }
    }

    // MARK: - Attributes

    mutating func readAttribute(_ element: ModelNode, entity: String) throws -> NSAttributeDescription {
      let name = try required(element, "name", of: "an attribute of entity '\(entity)'")
      let type: NSAttributeType
      if let typeName = element["attributeType"], !typeName.isEmpty {
        guard let known = NSAttributeType(xcodeName: typeName) else {
          let all: [NSAttributeType] = [
            .stringAttributeType, .integer16AttributeType, .integer32AttributeType, .integer64AttributeType, .decimalAttributeType,
            .doubleAttributeType, .floatAttributeType, .booleanAttributeType, .dateAttributeType, .binaryDataAttributeType,
            .UUIDAttributeType, .URIAttributeType, .transformableAttributeType, .compositeAttributeType, .objectIDAttributeType,
            .undefinedAttributeType,
          ]
          throw failure(
            element, "attribute '\(entity).\(name)' has attributeType '\(typeName)', which is not an Xcode type",
            "Use one of \(all.map { "'\($0.xcodeName)'" }.joined(separator: ", ")) (pick it in Xcode's model "
              + "editor).")
        }
        type = known
      } else {
        type = .undefinedAttributeType
      }
      let attribute =
        type == .compositeAttributeType
        ? try readComposite(element, name: name, entity: entity)
        : element.flag("derived") || nonEmpty(element["derivationExpression"]) != nil
          ? NSDerivedAttributeDescription(name: name, type: .init(rawValue: type), isOptional: element.flag("optional"))
          : NSAttributeDescription(name: name, type: .init(rawValue: type), isOptional: element.flag("optional"))
      attribute.defaultValue = try defaultValue(of: element, type: type, entity: entity, attribute: name)
      attribute.isTransient = element.flag("transient")
      attribute.allowsExternalBinaryDataStorage = element.flag("allowsExternalBinaryDataStorage")
      attribute.preservesValueInHistoryOnDeletion = element.flag("preserveAfterDeletion")
      if let expression = nonEmpty(element["derivationExpression"]) {
        attribute.derivationFormat = expression
      } else if element.flag("derived") {
        attribute.derivationFormat = ""
      }
      attribute.valueTransformerName = nonEmpty(element["valueTransformerName"]).map(Self.transformerName)
      attribute.attributeValueClassName = nonEmpty(element["customClassName"])
      attribute.allowsCloudEncryption = element.flag("allowsCloudEncryption")
      attribute.renamingIdentifier = nonEmpty(element["elementID"])
      attribute.versionHashModifier = nonEmpty(element["versionHashModifier"])
      attribute.userInfo = userInfo(of: element)
      try readValidationRules(element, into: attribute, entity: entity)
      return attribute
    }

    /// A composite attribute with the elements of the `<composite>` block it names (`composite="Location"`).
    /// A composite naming no block, or an unknown one, has no elements: it loads, described, and is refused at
    /// run time as the engine refuses what it cannot store.
    mutating func readComposite(_ element: ModelNode, name: String, entity: String) throws -> NSCompositeAttributeDescription {
      let attribute = NSCompositeAttributeDescription(name: name, elements: [], isOptional: element.flag("optional"))
      guard let shape = element["composite"], let block = composites[shape] else { return attribute }
      guard !readingComposites.contains(shape) else {
        throw failure(
          block, "composite '\(shape)' contains itself (\((readingComposites + [shape]).joined(separator: " → ")))",
          "Remove the cycle in Xcode's model editor.")
      }
      readingComposites.append(shape)
      defer { readingComposites.removeLast() }
      attribute.elements = try block.children(named: "attribute").map { try readAttribute($0, entity: "\(entity).\(name)") }
      return attribute
    }

    /// A transformer name as the model compiler resolves it: Xcode's editor writes the name of Foundation's
    /// constant (`NSSecureUnarchiveFromDataTransformerName`), and Core Data reports the constant's value
    /// (`NSSecureUnarchiveFromData`); any other name is an app's own and stays as written.
    static func transformerName(_ written: String) -> String {
      transformerConstants[written] ?? written
    }

    /// Foundation's transformer name constants, as Xcode writes them, and their values.
    static let transformerConstants = [
      "NSSecureUnarchiveFromDataTransformerName": "NSSecureUnarchiveFromData",
      "NSKeyedUnarchiveFromDataTransformerName": "NSKeyedUnarchiveFromData",
      "NSUnarchiveFromDataTransformerName": "NSUnarchiveFromData",
      "NSNegateBooleanTransformerName": "NSNegateBoolean",
      "NSIsNilTransformerName": "NSIsNil",
      "NSIsNotNilTransformerName": "NSIsNotNil",
    ]

    /// The attribute's minimum, maximum and pattern. Dates keep their bounds as seconds since 2001 in
    /// `min/maxDateTimeInterval` (their `min/maxValueString` is only the editor's display text); numbers
    /// and string lengths in `min/maxValueString`.
    mutating func readValidationRules(_ element: ModelNode, into attribute: NSAttributeDescription, entity: String) throws {
      let type = attribute.attributeType
      for (isMinimum, valueKey, dateKey) in [
        (true, "minValueString", "minDateTimeInterval"), (false, "maxValueString", "maxDateTimeInterval"),
      ] {
        let key = type == .dateAttributeType ? dateKey : valueKey
        guard let text = nonEmpty(element[key].map { Self.trimmed($0, .whitespaces) }) else { continue }
        guard let bound = Double(text), bound.isFinite else {
          throw failure(
            element, "attribute '\(entity).\(attribute.name)' has \(key) '\(text)', which is not a number",
            "Fix the attribute's \(isMinimum ? "minimum" : "maximum") in Xcode's model editor, or remove it.")
        }
        if isMinimum { attribute.minValue = bound } else { attribute.maxValue = bound }
      }
      attribute.regularExpression = nonEmpty(element["regularExpressionString"])
    }

    /// The attribute's default value as its type's Swift value; `nil` when there is none. Text that is not in
    /// the type's canonical form is read as Core Data reads it (``XcodeModelLoader/readDefault(_:type:)``) and
    /// noted in ``warnings``; only a number outside an integer type's range is refused.
    mutating func defaultValue(of element: ModelNode, type: NSAttributeType, entity: String, attribute: String) throws
      -> (any Sendable)?
    {
      let written: String
      if type == .dateAttributeType, let interval = element["defaultDateTimeInterval"] {
        written = interval
      } else if let text = element["defaultValueString"] {
        written = text
      } else {
        return nil
      }
      if type == .stringAttributeType { return written }
      let text = Self.trimmed(written, .whitespacesAndNewlines)
      let spaces = text == written ? nil : "the spaces around it are ignored, as Foundation's conversions skip them"
      guard !text.isEmpty else {
        if let spaces { warn(element, type: type, entity: entity, attribute: attribute, written, nil, spaces) }
        return nil
      }
      switch XcodeModelLoader.readDefault(text, type: type) {
      case .exact(let value):
        if let spaces { warn(element, type: type, entity: entity, attribute: attribute, written, value, spaces) }
        return value
      case .lenient(let value, let rule):
        let rules = [spaces, rule].compactMap { $0 }.joined(separator: "; ")
        warn(element, type: type, entity: entity, attribute: attribute, written, value, rules)
        return value
      case .none(let rule):
        let rules = [spaces, rule].compactMap { $0 }.joined(separator: "; ")
        warn(element, type: type, entity: entity, attribute: attribute, written, nil, rules)
        return nil
      case .outOfRange(let expected):
        throw failure(
          element,
          "attribute '\(entity).\(attribute)' (\(type.xcodeName)) has default value '\(written)', which is not "
            + "\(expected)",
          "Fix the default value in Xcode's model editor, or remove it.")
      }
    }

    // MARK: - Warnings

    /// Notes a default value read leniently.
    mutating func warn(
      _ element: ModelNode, type: NSAttributeType, entity: String, attribute: String, _ written: String,
      _ value: (any Sendable)?, _ rule: String
    ) {
      // XML that is not a file (a model kept in a store) is written by ObjectGraph in canonical form; a warning
      // names a file, so there is none to give for it.
      guard let file = source.url else { return }
      warnings.append(
        ModelLoadWarning(
          file: file, line: element.line, entity: entity, property: attribute, attributeType: type.xcodeName,
          writtenValue: written, readValue: value.map(Self.describe) ?? "no default (nil)", message: rule))
    }

    /// A read value with its Swift type: `Int16 1`, `Bool true`, `Date 2001-01-01T00:01:00Z`.
    static func describe(_ value: any Sendable) -> String {
      switch value {
      case let date as Date: "Date \(date.ISO8601Format())"
      case let url as URL: "URL \(url.absoluteString)"
      default: "\(type(of: value)) \(value)"
      }
    }

    // MARK: - Relationships and fetched properties

    func readRelationship(_ element: ModelNode, entity: String) throws -> NSRelationshipDescription {
      let name = try required(element, "name", of: "a relationship of entity '\(entity)'")
      let destination = try required(element, "destinationEntity", of: "relationship '\(entity).\(name)'")
      let deleteRule: NSDeleteRule
      switch element["deletionRule"] {
      case nil, "Nullify": deleteRule = .nullifyDeleteRule
      case "Cascade": deleteRule = .cascadeDeleteRule
      case "Deny": deleteRule = .denyDeleteRule
      case "No Action": deleteRule = .noActionDeleteRule
      case let other?:
        throw failure(
          element, "relationship '\(entity).\(name)' has deletionRule '\(other)', which is not an Xcode delete rule",
          "Use 'Nullify', 'Cascade', 'Deny' or 'No Action' (pick it in Xcode's model editor).")
      }
      let isToMany = element.flag("toMany")
      let relationship = NSRelationshipDescription(
        name: name, destination: destination, inverse: nonEmpty(element["inverseName"]), toMany: isToMany,
        deleteRule: deleteRule, isOptional: element.flag("optional"))
      relationship.isOrdered = element.flag("ordered")
      relationship.isTransient = element.flag("transient")
      // Xcode also writes maxCount 1 (and for a required one minCount 1) on to-one relationships. Only a
      // to-many's counts are validated, but a to-one's minimum is part of Core Data's version hash.
      relationship.minCount = try count(element, "minCount", entity: entity, relationship: name)
      if isToMany { relationship.state.write(\.maxCount, try count(element, "maxCount", entity: entity, relationship: name), what: name) }
      relationship.renamingIdentifier = nonEmpty(element["elementID"])
      relationship.versionHashModifier = nonEmpty(element["versionHashModifier"])
      relationship.userInfo = userInfo(of: element)
      return relationship
    }

    /// A `<fetchRequest>`: its name, entity, predicate and the flags Xcode's editor writes (each absent one is
    /// `NSFetchRequest`'s default).
    func readFetchRequestTemplate(_ element: ModelNode) throws -> FetchRequestTemplate {
      let name = try required(element, "name", of: "a fetch request template")
      var template = FetchRequestTemplate(
        name: name, entityName: try required(element, "entity", of: "fetch request template '\(name)'"),
        predicateFormat: nonEmpty(element["predicateString"]))
      for (attribute, keyPath) in [("fetchLimit", \FetchRequestTemplate.fetchLimit), ("fetchBatchSize", \.fetchBatchSize)] {
        guard let text = element[attribute] else { continue }
        guard let value = Int(Self.trimmed(text, .whitespaces)), value >= 0 else {
          throw failure(
            element, "fetch request template '\(name)' has \(attribute) '\(text)', which is not a count",
            "Use a whole number of 0 or more (0: none) in Xcode's model editor.")
        }
        template[keyPath: keyPath] = value
      }
      let flags: [(String, WritableKeyPath<FetchRequestTemplate, Bool>)] = [
        ("includeSubentities", \.includesSubentities), ("includePropertyValues", \.includesPropertyValues),
        ("includesPendingChanges", \.includesPendingChanges), ("returnObjectsAsFaults", \.returnsObjectsAsFaults),
        ("returnDistinctResults", \.returnsDistinctResults),
      ]
      for (attribute, keyPath) in flags where element[attribute] != nil {
        template[keyPath: keyPath] = element.flag(attribute)
      }
      return template
    }

    func count(_ element: ModelNode, _ attribute: String, entity: String, relationship: String) throws -> Int {
      guard let text = element[attribute] else { return 0 }
      guard let value = Int(Self.trimmed(text, .whitespaces)), value >= 0 else {
        throw failure(
          element, "relationship '\(entity).\(relationship)' has \(attribute) '\(text)', which is not a count",
          "Use a whole number of 0 or more (0: no limit) in Xcode's model editor.")
      }
      return value
    }

    func readFetchedProperty(_ element: ModelNode, entity: String) throws -> NSFetchedPropertyDescription {
      let name = try required(element, "name", of: "a fetched property of entity '\(entity)'")
      guard let request = element.children(named: "fetchRequest").first else {
        throw failure(
          element, "fetched property '\(entity).\(name)' has no <fetchRequest>",
          "Give it a destination entity in Xcode's model editor.")
      }
      var fetched = NSFetchedPropertyDescription(
        name: name,
        destinationEntityName: try required(request, "entity", of: "fetched property '\(entity).\(name)'"),
        predicateFormat: nonEmpty(request["predicateString"]))
      fetched.userInfo = userInfo(of: element)
      return fetched
    }

    /// `text.trimmingCharacters(in: set)` for `.whitespaces` or `.whitespacesAndNewlines`, without bridging to
    /// `NSString` when neither end can be trimmed: a printable ASCII character other than the space is in neither
    /// set. (The bridging was a tenth of reading stage 3's model, perf `-F 30000 -g` over its demo's launches.)
    static func trimmed(_ text: String, _ set: CharacterSet) -> String {
      if let first = text.utf8.first, let last = text.utf8.last, (0x21...0x7E).contains(first), (0x21...0x7E).contains(last) {
        return text
      }
      return text.trimmingCharacters(in: set)
    }

    func nonEmpty(_ text: String?) -> String? {
      guard let text, !text.isEmpty else { return nil }
      return text
    }
  }
}
