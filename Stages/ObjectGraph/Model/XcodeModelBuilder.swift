import Foundation

/// Building the model descriptions (entities, attributes and their default values, relationships, fetched
/// properties, configurations) from the XML tree of one `contents` file.
extension XcodeModelLoader {
  /// A model file's contents, ready for ``ManagedObjectModel``'s designated initializer.
  struct ParsedModel {
    var entities: [EntityDescription] = []
    var versionIdentifiers: Set<String> = []
    var configurations: [String: [String]] = [:]
    var fetchRequestTemplates: [FetchRequestTemplate] = []
  }

  /// Turns the XML tree of one `contents` file into descriptions, throwing errors that name the file and line.
  struct ModelReader {
    let file: URL

    func failure(_ element: ModelNode?, _ what: String, _ fix: String) -> ObjectGraphError {
      let place = element.map { " (line \($0.line))" } ?? ""
      return ObjectGraphError(
        .modelInvalid, "In the Xcode model file '\(file.path)'\(place): \(what). \(fix)", url: file)
    }

    func required(_ element: ModelNode, _ attribute: String, of what: String) throws -> String {
      guard let value = element[attribute], !value.isEmpty else {
        throw failure(
          element, "\(what) has no \(attribute)", "Give it one in Xcode's model editor (or add \(attribute)=\"…\").")
      }
      return value
    }

    func read(_ root: ModelNode) throws -> ParsedModel {
      guard root.name == "model" else {
        throw failure(
          root, "the root element is <\(root.name)>, not <model>, so this is not an Xcode model file",
          "Pass the .xcdatamodeld or .xcdatamodel folder Xcode made.")
      }
      var parsed = ParsedModel()
      if let identifier = root["userDefinedModelVersionIdentifier"], !identifier.isEmpty {
        parsed.versionIdentifiers = [identifier]
      }
      var parents: [(entity: EntityDescription, parentName: String, element: ModelNode)] = []
      for child in root.children {
        switch child.name {
        case "entity":
          let entity = try readEntity(child)
          parsed.entities.append(entity)
          if let parentName = child["parentEntity"], !parentName.isEmpty {
            parents.append((entity, parentName, child))
          }
        case "fetchRequest":
          parsed.fetchRequestTemplates.append(
            FetchRequestTemplate(
              name: try required(child, "name", of: "a fetch request template"),
              entityName: try required(child, "entity", of: "fetch request template '\(child["name"] ?? "")'"),
              predicateFormat: nonEmpty(child["predicateString"])))
        case "configuration":
          let name = try required(child, "name", of: "a configuration")
          guard parsed.configurations[name] == nil else {
            throw failure(child, "two configurations are named '\(name)'", "Rename one in Xcode's model editor.")
          }
          parsed.configurations[name] = try child.children(named: "memberEntity").map {
            try required($0, "name", of: "a member entity of configuration '\(name)'")
          }
        default:
          // `elements` (diagram layout) and `composite` (composite attribute shapes) are not part of what the
          // engine describes; unknown elements from newer Xcode versions are skipped the same way.
          continue
        }
      }
      let byName = Dictionary(parsed.entities.map { ($0.name, $0) }, uniquingKeysWith: { first, _ in first })
      for (entity, parentName, element) in parents {
        guard let parent = byName[parentName] else {
          throw failure(
            element, "entity '\(entity.name)' has parentEntity '\(parentName)', which the model does not have",
            "Add entity '\(parentName)' or fix the entity's parent in Xcode's model editor. Known entities: "
              + "\(byName.keys.sorted().joined(separator: ", ")).")
        }
        entity.superentity = parent
      }
      for (name, members) in parsed.configurations {
        if let missing = members.first(where: { byName[$0] == nil }) {
          throw failure(
            nil, "configuration '\(name)' lists entity '\(missing)', which the model does not have",
            "Remove it from the configuration in Xcode's model editor.")
        }
      }
      return parsed
    }

    func readEntity(_ element: ModelNode) throws -> EntityDescription {
      let name = try required(element, "name", of: "an entity")
      var properties: [PropertyDescription] = []
      var fetchedProperties: [FetchedPropertyDescription] = []
      var uniquenessConstraints: [[String]] = []
      var userInfo: [String: String] = [:]
      for child in element.children {
        switch child.name {
        case "attribute":
          properties.append(.attribute(try readAttribute(child, entity: name)))
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
        default:
          // fetchIndex, compoundIndexes and other storage hints are not described by the engine.
          continue
        }
      }
      let entity = EntityDescription(name: name, properties: properties)
      entity.representedClassName = nonEmpty(element["representedClassName"])
      entity.isAbstract = element.flag("isAbstract")
      entity.renamingIdentifier = nonEmpty(element["elementID"])
      entity.versionHashModifier = nonEmpty(element["versionHashModifier"])
      entity.userInfo = userInfo
      entity.fetchedProperties = fetchedProperties
      entity.uniquenessConstraints = uniquenessConstraints
      return entity
    }

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

    func readAttribute(_ element: ModelNode, entity: String) throws -> AttributeDescription {
      let name = try required(element, "name", of: "an attribute of entity '\(entity)'")
      let type: AttributeType
      if let typeName = element["attributeType"], !typeName.isEmpty {
        guard let known = AttributeType(xcodeName: typeName) else {
          let all: [AttributeType] = [
            .string, .integer16, .integer32, .integer64, .decimal, .double, .float, .boolean, .date, .binaryData,
            .uuid, .uri, .transformable, .composite, .objectID, .undefined,
          ]
          throw failure(
            element, "attribute '\(entity).\(name)' has attributeType '\(typeName)', which is not an Xcode type",
            "Use one of \(all.map { "'\($0.xcodeName)'" }.joined(separator: ", ")) (pick it in Xcode's model "
              + "editor).")
        }
        type = known
      } else {
        type = .undefined
      }
      let attribute = AttributeDescription(name: name, type: type, isOptional: element.flag("optional"))
      attribute.defaultValue = try defaultValue(of: element, type: type, entity: entity, attribute: name)
      attribute.isTransient = element.flag("transient")
      if let expression = nonEmpty(element["derivationExpression"]) {
        attribute.derivationExpression = expression
      } else if element.flag("derived") {
        attribute.derivationExpression = ""
      }
      attribute.valueTransformerName = nonEmpty(element["valueTransformerName"])
      attribute.renamingIdentifier = nonEmpty(element["elementID"])
      attribute.versionHashModifier = nonEmpty(element["versionHashModifier"])
      attribute.userInfo = userInfo(of: element)
      return attribute
    }

    /// The attribute's default value as its type's Swift value; `nil` when there is none. Defaults of types
    /// the engine does not store (transformable, composite, object ID, undefined) are not kept.
    func defaultValue(of element: ModelNode, type: AttributeType, entity: String, attribute: String) throws
      -> (any Sendable)?
    {
      let written: String
      if type == .date, let interval = element["defaultDateTimeInterval"] {
        written = interval
      } else if let text = element["defaultValueString"] {
        written = text
      } else {
        return nil
      }
      let text = type == .string ? written : written.trimmingCharacters(in: .whitespacesAndNewlines)
      if text.isEmpty && type != .string { return nil }
      let value: (any Sendable)?
      let expected: String
      switch type {
      case .string:
        value = text
        expected = "text"
      case .integer16:
        value = integer(text, as: Int16.self)
        expected = "a whole number from \(Int16.min) to \(Int16.max)"
      case .integer32:
        value = integer(text, as: Int32.self)
        expected = "a whole number from \(Int32.min) to \(Int32.max)"
      case .integer64:
        value = integer(text, as: Int64.self)
        expected = "a whole number from \(Int64.min) to \(Int64.max)"
      case .double:
        value = isDecimalNumber(text) ? Double(text) : nil
        expected = "a number such as 0.5"
      case .float:
        value = isDecimalNumber(text) ? Float(text) : nil
        expected = "a number such as 0.5"
      case .decimal:
        value = isDecimalNumber(text) ? Decimal(string: text, locale: Locale(identifier: "en_US_POSIX")) : nil
        expected = "a decimal number such as 12.50"
      case .boolean:
        switch text.lowercased() {
        case "yes", "true", "1": value = true
        case "no", "false", "0": value = false
        default: value = nil
        }
        expected = "YES or NO"
      case .date:
        value = isDecimalNumber(text) ? Double(text).map { Date(timeIntervalSinceReferenceDate: $0) } : nil
        expected = "a number of seconds since 2001-01-01 00:00:00 UTC"
      case .uuid:
        value = UUID(uuidString: text)
        expected = "a UUID such as E621E1F8-C36C-495A-93FC-0C247A3E6E5F"
      case .uri:
        value = URL(string: text)
        expected = "a URL"
      case .binaryData:
        value = nil
        expected = "nothing: Binary attributes have no default value in Xcode"
      case .transformable, .composite, .objectID, .undefined:
        return nil
      }
      guard let value else {
        throw failure(
          element,
          "attribute '\(entity).\(attribute)' (\(type.xcodeName)) has default value '\(written)', which is not "
            + "\(expected)",
          "Fix the default value in Xcode's model editor, or remove it.")
      }
      return value
    }

    /// An integer written as Xcode writes it: `"3"`, or `"3.0"` (Xcode keeps what was typed).
    func integer<T: FixedWidthInteger>(_ text: String, as: T.Type) -> T? {
      if let value = T(text) { return value }
      guard isDecimalNumber(text), let number = Double(text), number.rounded() == number else { return nil }
      return T(exactly: number)
    }

    /// Whether `text` is a plain decimal number (`-12`, `0.5`, `1e3`), not `nan`, `inf` or hexadecimal.
    func isDecimalNumber(_ text: String) -> Bool {
      !text.isEmpty && text.allSatisfy { "0123456789+-.eE".contains($0) } && text.contains(where: \.isNumber)
        && Double(text) != nil
    }

    func readRelationship(_ element: ModelNode, entity: String) throws -> RelationshipDescription {
      let name = try required(element, "name", of: "a relationship of entity '\(entity)'")
      let destination = try required(element, "destinationEntity", of: "relationship '\(entity).\(name)'")
      let deleteRule: DeleteRule
      switch element["deletionRule"] {
      case nil, "Nullify": deleteRule = .nullify
      case "Cascade": deleteRule = .cascade
      case "Deny": deleteRule = .deny
      case "No Action": deleteRule = .noAction
      case let other?:
        throw failure(
          element, "relationship '\(entity).\(name)' has deletionRule '\(other)', which is not an Xcode delete rule",
          "Use 'Nullify', 'Cascade', 'Deny' or 'No Action' (pick it in Xcode's model editor).")
      }
      let isToMany = element.flag("toMany")
      let relationship = RelationshipDescription(
        name: name, destination: destination, inverse: nonEmpty(element["inverseName"]), toMany: isToMany,
        deleteRule: deleteRule, isOptional: element.flag("optional"))
      relationship.isOrdered = element.flag("ordered")
      relationship.isTransient = element.flag("transient")
      // Xcode also writes minCount/maxCount 1 on to-one relationships; counts only mean something for to-many.
      if isToMany {
        relationship.minCount = try count(element, "minCount", entity: entity, relationship: name)
        relationship.maxCount = try count(element, "maxCount", entity: entity, relationship: name)
      }
      relationship.renamingIdentifier = nonEmpty(element["elementID"])
      relationship.versionHashModifier = nonEmpty(element["versionHashModifier"])
      relationship.userInfo = userInfo(of: element)
      return relationship
    }

    func count(_ element: ModelNode, _ attribute: String, entity: String, relationship: String) throws -> Int {
      guard let text = element[attribute] else { return 0 }
      guard let value = Int(text.trimmingCharacters(in: .whitespaces)), value >= 0 else {
        throw failure(
          element, "relationship '\(entity).\(relationship)' has \(attribute) '\(text)', which is not a count",
          "Use a whole number of 0 or more (0: no limit) in Xcode's model editor.")
      }
      return value
    }

    func readFetchedProperty(_ element: ModelNode, entity: String) throws -> FetchedPropertyDescription {
      let name = try required(element, "name", of: "a fetched property of entity '\(entity)'")
      guard let request = element.children(named: "fetchRequest").first else {
        throw failure(
          element, "fetched property '\(entity).\(name)' has no <fetchRequest>",
          "Give it a destination entity in Xcode's model editor.")
      }
      return FetchedPropertyDescription(
        name: name,
        destinationEntityName: try required(request, "entity", of: "fetched property '\(entity).\(name)'"),
        predicateFormat: nonEmpty(request["predicateString"]))
    }

    func nonEmpty(_ text: String?) -> String? {
      guard let text, !text.isEmpty else { return nil }
      return text
    }
  }
}
