import Foundation

#if canImport(FoundationXML)
  import FoundationXML
#endif

extension ManagedObjectModel {
  /// Loads a model written by Xcode's model editor: a `.xcdatamodeld` folder or a single `.xcdatamodel` folder.
  ///
  /// For a `.xcdatamodeld`, the version loaded is the one its `.xccurrentversion` file names (key
  /// `_XCCurrentVersionName`, as Xcode's File inspector sets it); without that file, the only version, or else
  /// the last one when the version names are sorted naturally (`Model` < `Model 2` < `Model 10`). A
  /// `.xcdatamodel` folder is read from the XML file `contents` inside it.
  ///
  /// ```swift
  /// let url = Bundle.module.url(forResource: "DataModel", withExtension: "xcdatamodeld")!
  /// let model = try ManagedObjectModel(contentsOf: url)
  /// ```
  ///
  /// Everything Xcode describes is read: entities with inheritance and abstract entities, attributes of every
  /// type (with typed default values: an `Integer 16` default is an `Int16`), relationships with inverses,
  /// delete rules, ordering and counts, renaming identifiers (Xcode's `elementID`), version hash modifiers,
  /// user info, uniqueness constraints, fetched properties, fetch request templates, configurations and the
  /// model version identifier. What the engine does not run (transformable, composite and derived attributes,
  /// fetched properties, templates) loads as a description and is refused only when used. Diagram layout and
  /// fetch indexes are ignored. The model's ``sourceURL`` is `url`.
  ///
  /// - Parameter url: a `.xcdatamodeld` folder, a `.xcdatamodel` folder, or the `contents` file inside one.
  /// - Throws: ``ObjectGraphError/Code/modelInvalid`` naming the file and what is wrong, when nothing is at
  ///   `url`, the folder holds no model version, `.xccurrentversion` names a version that is not there, a
  ///   `contents` file is missing or is not well-formed XML (with its line), an attribute type, delete rule or
  ///   default value is not one Xcode writes, or the model is inconsistent (for example a relationship to an
  ///   entity the model does not have).
  public convenience init(contentsOf url: URL) throws {
    let location = try XcodeModelLoader.locate(url)
    let version = try XcodeModelLoader.currentVersion(of: location)
    try self.init(xcodeVersion: version, sourceURL: url)
  }

  /// Every version of a `.xcdatamodeld` folder, by version name (the version folder's name without
  /// `.xcdatamodel`), sorted naturally by name (`Model`, `Model 2`, …, `Model 10`).
  ///
  /// For a single `.xcdatamodel` folder the result has one entry. Each model's ``sourceURL`` is its version's
  /// `.xcdatamodel` folder. Use it to find the model a store was made with, for migration:
  ///
  /// ```swift
  /// for (name, model) in try ManagedObjectModel.versions(in: url)
  /// where model.isConfiguration(withName: nil, compatibleWithStoreMetadata: metadata) {
  ///   print("the store was made with version \(name)")
  /// }
  /// ```
  ///
  /// - Parameter url: a `.xcdatamodeld` folder, a `.xcdatamodel` folder, or the `contents` file inside one.
  /// - Returns: `(name, model)` pairs, one per version.
  /// - Throws: ``ObjectGraphError/Code/modelInvalid`` as ``init(contentsOf:)`` does, when any version cannot be
  ///   loaded.
  public static func versions(in url: URL) throws -> [(name: String, model: ManagedObjectModel)] {
    let location = try XcodeModelLoader.locate(url)
    return try location.versions.map { version in
      (name: version.name, model: try ManagedObjectModel(xcodeVersion: version, sourceURL: version.folderURL))
    }
  }

  /// Reads one version's `contents` file and makes the model, naming the file in any error.
  private convenience init(xcodeVersion version: XcodeModelLoader.Version, sourceURL: URL) throws {
    let parsed = try XcodeModelLoader.readModel(version)
    do {
      try self.init(
        entities: parsed.entities, versionIdentifiers: parsed.versionIdentifiers,
        configurations: parsed.configurations, fetchRequestTemplates: parsed.fetchRequestTemplates,
        sourceURL: sourceURL)
    } catch let error as ObjectGraphError {
      throw ObjectGraphError(
        .modelInvalid,
        "The Xcode model file '\(version.contentsURL.path)' is inconsistent: \(error.message) Fix the model in "
          + "Xcode's model editor (or in the file).",
        url: version.contentsURL)
    }
  }
}

/// Reads Xcode's model format (`.xcdatamodeld` / `.xcdatamodel` folders holding XML `contents` files) into
/// ObjectGraph's model descriptions. Used by ``ManagedObjectModel/init(contentsOf:)`` and
/// ``ManagedObjectModel/versions(in:)``.
enum XcodeModelLoader {
  /// One model version: a `.xcdatamodel` folder.
  struct Version {
    /// The folder's name without `.xcdatamodel`.
    let name: String
    /// The `.xcdatamodel` folder.
    let folderURL: URL
    /// The XML file inside the folder.
    var contentsURL: URL { folderURL.appendingPathComponent("contents", isDirectory: false) }
  }

  /// What a URL given by the caller turned out to be.
  struct Location {
    /// The URL as given.
    let url: URL
    /// The versions found, sorted naturally by name; never empty.
    let versions: [Version]
    /// The `.xcdatamodeld` folder, or `nil` for a single `.xcdatamodel`.
    let bundleURL: URL?
  }

  /// A model file's contents, ready for ``ManagedObjectModel``'s designated initializer.
  struct ParsedModel {
    var entities: [EntityDescription] = []
    var versionIdentifiers: Set<String> = []
    var configurations: [String: [String]] = [:]
    var fetchRequestTemplates: [FetchRequestTemplate] = []
  }

  static let modelExtension = "xcdatamodel"
  static let bundleExtension = "xcdatamodeld"
  static let currentVersionFileName = ".xccurrentversion"
  static let currentVersionKey = "_XCCurrentVersionName"

  // MARK: - Finding the versions

  /// Works out whether `url` is a `.xcdatamodeld`, a `.xcdatamodel` or a `contents` file, and lists its
  /// versions.
  static func locate(_ url: URL) throws -> Location {
    let fileManager = FileManager.default
    var isDirectory: ObjCBool = false
    guard fileManager.fileExists(atPath: url.path, isDirectory: &isDirectory) else {
      throw ObjectGraphError(
        .modelInvalid,
        "No Xcode model at '\(url.path)': nothing exists at that path. Pass the .xcdatamodeld folder (or one "
          + ".xcdatamodel folder) of your model, for example from Bundle.module.url(forResource:withExtension:), "
          + "and check that the package copies it as a resource.",
        url: url)
    }
    let pathExtension = url.pathExtension.lowercased()
    if !isDirectory.boolValue {
      let folder = url.deletingLastPathComponent()
      if url.lastPathComponent == "contents" {
        return Location(url: url, versions: [version(at: folder)], bundleURL: nil)
      }
      let hint =
        pathExtension == "mom" || pathExtension == "momd"
        ? "It looks like a compiled model (.mom/.momd), which ObjectGraph does not read; pass the source "
          + ".xcdatamodeld folder instead."
        : "Pass a .xcdatamodeld or .xcdatamodel folder."
      throw ObjectGraphError(
        .modelInvalid, "'\(url.path)' is a file, not an Xcode model folder. \(hint)", url: url)
    }
    if pathExtension == modelExtension {
      return Location(url: url, versions: [version(at: url)], bundleURL: nil)
    }
    let children = try folderEntries(url)
    if pathExtension != bundleExtension, children.contains("contents") {
      return Location(url: url, versions: [version(at: url)], bundleURL: nil)
    }
    let versions = children.filter { ($0 as NSString).pathExtension.lowercased() == modelExtension }
      .map { version(at: url.appendingPathComponent($0, isDirectory: true)) }
      .sorted { naturallyOrdered($0.name, $1.name) }
    guard !versions.isEmpty else {
      if pathExtension == bundleExtension {
        throw ObjectGraphError(
          .modelInvalid,
          "The Xcode model '\(url.path)' contains no model version (no .xcdatamodel folder inside it). Add a "
            + "version in Xcode (Editor > Add Model Version), or restore the missing .xcdatamodel folder from "
            + "version control.",
          url: url)
      }
      throw ObjectGraphError(
        .modelInvalid,
        "'\(url.path)' is not an Xcode model: it is neither a .xcdatamodeld folder nor a .xcdatamodel folder, and "
          + "holds no 'contents' file or .xcdatamodel folder. Pass your model's .xcdatamodeld folder.",
        url: url)
    }
    return Location(url: url, versions: versions, bundleURL: url)
  }

  /// The names in a folder, hidden ones included.
  private static func folderEntries(_ url: URL) throws -> [String] {
    do {
      return try FileManager.default.contentsOfDirectory(atPath: url.path)
    } catch {
      throw ObjectGraphError(
        .modelInvalid,
        "Cannot list the Xcode model folder '\(url.path)': \(error.localizedDescription). Check that it is "
          + "readable.",
        url: url)
    }
  }

  private static func version(at folder: URL) -> Version {
    let folderName = folder.lastPathComponent
    let name =
      (folderName as NSString).pathExtension.lowercased() == modelExtension
      ? (folderName as NSString).deletingPathExtension : folderName
    return Version(name: name, folderURL: folder)
  }

  /// The version `init(contentsOf:)` loads: the one `.xccurrentversion` names, else the only one, else the
  /// last by natural order.
  static func currentVersion(of location: Location) throws -> Version {
    guard let last = location.versions.last else {
      throw ObjectGraphError(
        .modelInvalid, "The Xcode model '\(location.url.path)' contains no model version.", url: location.url)
    }
    guard let bundleURL = location.bundleURL else { return last }
    let markerURL = bundleURL.appendingPathComponent(currentVersionFileName, isDirectory: false)
    guard FileManager.default.fileExists(atPath: markerURL.path) else { return last }
    let named = try currentVersionName(in: markerURL)
    let wanted =
      (named as NSString).pathExtension.lowercased() == modelExtension
      ? (named as NSString).deletingPathExtension : named
    guard let match = location.versions.first(where: { $0.name == wanted }) else {
      let known = location.versions.map { "'\($0.name).\(modelExtension)'" }.joined(separator: ", ")
      throw ObjectGraphError(
        .modelInvalid,
        "'\(markerURL.path)' names '\(named)' as the current model version, but '\(bundleURL.lastPathComponent)' "
          + "has no such version (it has \(known)). Pick the current version in Xcode's File inspector (Model "
          + "Version), fix \(currentVersionKey) in the file, or delete the file to use the last version.",
        url: markerURL)
    }
    return match
  }

  /// Reads `_XCCurrentVersionName` from a `.xccurrentversion` property list.
  private static func currentVersionName(in markerURL: URL) throws -> String {
    let plist: Any
    do {
      let data = try Data(contentsOf: markerURL)
      plist = try PropertyListSerialization.propertyList(from: data, options: [], format: nil)
    } catch {
      throw ObjectGraphError(
        .modelInvalid,
        "'\(markerURL.path)' is not a readable property list (\(error.localizedDescription)). Xcode writes it "
          + "when you pick the current model version; pick it again in the File inspector, or delete the file to "
          + "use the last version.",
        url: markerURL)
    }
    guard let dictionary = plist as? [String: Any], let name = dictionary[currentVersionKey] as? String,
      !name.isEmpty
    else {
      throw ObjectGraphError(
        .modelInvalid,
        "'\(markerURL.path)' does not name the current model version (no \(currentVersionKey) string). Pick the "
          + "current version in Xcode's File inspector, or delete the file to use the last version.",
        url: markerURL)
    }
    return name
  }

  /// Natural order of version names: runs of digits compare by value, so `Model 2` comes before `Model 10`;
  /// a name comes before the longer names it starts (`Model` before `Model 2`).
  static func naturallyOrdered(_ lhs: String, _ rhs: String) -> Bool {
    let left = naturalChunks(lhs)
    let right = naturalChunks(rhs)
    for (a, b) in zip(left, right) where a != b {
      if a.isNumber && b.isNumber {
        let x = a.text.drop(while: { $0 == "0" })
        let y = b.text.drop(while: { $0 == "0" })
        if x.count != y.count { return x.count < y.count }
        if x != y { return x < y }
        continue
      }
      return a.text < b.text
    }
    if left.count != right.count { return left.count < right.count }
    return lhs < rhs
  }

  private struct NaturalChunk: Equatable {
    let text: String
    let isNumber: Bool
  }

  private static func naturalChunks(_ text: String) -> [NaturalChunk] {
    var chunks: [NaturalChunk] = []
    var current = ""
    var currentIsNumber = false
    for character in text {
      let isDigit = character.isASCII && character.isNumber
      if !current.isEmpty && isDigit != currentIsNumber {
        chunks.append(NaturalChunk(text: current, isNumber: currentIsNumber))
        current = ""
      }
      current.append(character)
      currentIsNumber = isDigit
    }
    if !current.isEmpty { chunks.append(NaturalChunk(text: current, isNumber: currentIsNumber)) }
    return chunks
  }

  // MARK: - Reading a version

  /// Reads and converts one version's `contents` file.
  static func readModel(_ version: Version) throws -> ParsedModel {
    let file = version.contentsURL
    guard FileManager.default.fileExists(atPath: file.path) else {
      throw ObjectGraphError(
        .modelInvalid,
        "The model version folder '\(version.folderURL.path)' has no 'contents' file (Xcode keeps the model's "
          + "XML there). Restore it from version control, or re-create the version in Xcode.",
        url: file)
    }
    let data: Data
    do {
      data = try Data(contentsOf: file)
    } catch {
      throw ObjectGraphError(
        .modelInvalid,
        "Cannot read the Xcode model file '\(file.path)': \(error.localizedDescription). Check that it is readable.",
        url: file)
    }
    let root = try XMLTree.parse(data, file: file)
    let reader = ModelReader(file: file)
    return try reader.read(root)
  }

  // MARK: - XML

  /// An XML element with its attributes, children and the line it starts on.
  struct ModelNode {
    let name: String
    let attributes: [String: String]
    var children: [ModelNode] = []
    let line: Int

    subscript(_ attribute: String) -> String? { attributes[attribute] }

    /// Whether an Xcode flag attribute (`optional="YES"`) is set.
    func flag(_ attribute: String) -> Bool {
      guard let value = attributes[attribute]?.lowercased() else { return false }
      return value == "yes" || value == "true" || value == "1"
    }

    func children(named name: String) -> [ModelNode] { children.filter { $0.name == name } }
  }

  /// Builds an ``ModelNode`` tree with Foundation's `XMLParser`.
  private final class XMLTree: NSObject, XMLParserDelegate {
    private var stack: [ModelNode] = []
    private var root: ModelNode?
    private var failure: (line: Int, column: Int, code: Int)?

    static func parse(_ data: Data, file: URL) throws -> ModelNode {
      let parser = XMLParser(data: data)
      parser.shouldProcessNamespaces = false
      parser.shouldResolveExternalEntities = false
      let tree = XMLTree()
      parser.delegate = tree
      let succeeded = parser.parse()
      // On Linux `parse()` can report success for a truncated document: the delegate's error callback is
      // what says so.
      if let failure = tree.failure ?? (succeeded ? nil : (parser.lineNumber, parser.columnNumber, -1)) {
        let code = failure.code >= 0 ? failure.code : (parser.parserError as NSError?)?.code ?? -1
        throw ObjectGraphError(
          .modelInvalid,
          "The Xcode model file '\(file.path)' is not well-formed XML: line \(failure.line), column "
            + "\(failure.column): \(describeXMLError(code)). Fix the file (a merge conflict left in it is a "
            + "common cause) or restore it from version control.",
          url: file)
      }
      guard let root = tree.root else {
        throw ObjectGraphError(
          .modelInvalid,
          "The Xcode model file '\(file.path)' is empty or holds no XML element. Restore it from version control "
            + "or re-create the model version in Xcode.",
          url: file)
      }
      return root
    }

    func parser(
      _ parser: XMLParser, didStartElement elementName: String, namespaceURI: String?, qualifiedName qName: String?,
      attributes attributeDict: [String: String]
    ) {
      stack.append(ModelNode(name: elementName, attributes: attributeDict, line: parser.lineNumber))
    }

    func parser(
      _ parser: XMLParser, didEndElement elementName: String, namespaceURI: String?, qualifiedName qName: String?
    ) {
      guard let element = stack.popLast() else { return }
      if stack.isEmpty {
        root = element
      } else {
        stack[stack.count - 1].children.append(element)
      }
    }

    func parser(_ parser: XMLParser, parseErrorOccurred parseError: any Error) {
      if failure == nil {
        failure = (parser.lineNumber, parser.columnNumber, (parseError as NSError).code)
      }
    }

    func parser(_ parser: XMLParser, validationErrorOccurred validationError: any Error) {
      if failure == nil {
        failure = (parser.lineNumber, parser.columnNumber, (validationError as NSError).code)
      }
    }

    /// Words for the XMLParser (libxml2) error codes a damaged model file typically produces.
    private static func describeXMLError(_ code: Int) -> String {
      let known: [Int: String] = [
        4: "no XML element where the document should start",
        5: "the document ends too early or has extra content after the root element",
        23: "a '>' is missing",
        38: "an attribute value is not quoted",
        39: "an attribute has no value",
        40: "an attribute value contains a '<'",
        41: "an attribute is written without '=' and a value",
        42: "an attribute appears twice in one element",
        65: "a space is required between attributes",
        68: "a name was expected",
        73: "a '>' was expected",
        76: "an end tag does not match its start tag",
        77: "an end tag is missing",
      ]
      let text = known[code] ?? "the XML parser stopped here"
      return code >= 0 ? "\(text) (XMLParser error \(code))" : text
    }
  }

  // MARK: - Model conversion

  /// Turns the XML tree of one `contents` file into descriptions, throwing errors that name the file and line.
  private struct ModelReader {
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
