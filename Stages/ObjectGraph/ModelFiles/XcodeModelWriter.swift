import Foundation

/// Writing a model as the XML `contents` file Xcode keeps in a `.xcdatamodel` folder: the inverse of the loader
/// (`XcodeModelBuilder.swift`), so that a store can keep the model it was made with (as Core Data keeps one in
/// `Z_MODELCACHE`) and read it back with ``NSManagedObjectModel/fromXcodeContents(_:origin:)``.
///
/// What reads back exactly: every input of each entity's ``NSEntityDescription/versionHash`` (names, inheritance,
/// abstract flags, attribute types, optionality, transience, relationship shapes and counts, version hash
/// modifiers), renaming identifiers (`elementID`), class names, default values (typed, in the canonical text the
/// loader reads as written: `YES`/`NO`, seconds since 2001 for dates, the shortest decimal that gives the same
/// number), validation rules (minimum, maximum, regular expression), delete rules, derived and transformer details, user info, fetch indexes (always as `<fetchIndex>`,
/// also those read from the legacy `indexed` flag), uniqueness constraints, fetched properties, fetch request
/// templates, configurations and version identifiers. Every string is XML-escaped.
///
/// What the format cannot say, and so does not read back: a Swift class given to an entity in code
/// (``NSEntityDescription/managedObjectClass``; its ``NSEntityDescription/representedClassName`` is kept), a Binary
/// Data default value (Xcode has no default for that type), a NaN default, and counts on a to-one relationship
/// (Xcode writes `maxCount="1"` there, which the loader ignores). Several version identifiers, which Xcode's single
/// `userDefinedModelVersionIdentifier` cannot hold, are also written as ObjectGraph's own `<versionIdentifier>`
/// elements, which the loader reads and Xcode would ignore. Text holding a character XML 1.0 cannot hold (a
/// control character other than tab, line feed and carriage return, or U+FFFE/U+FFFF) is written as it is, and
/// reading it back fails with ``ObjectGraphModelInvalidError``, not with a silently different model.
enum XcodeModelWriter {
  /// The `contents` file of `model`, as UTF-8 XML.
  static func contents(of model: NSManagedObjectModel) -> Data {
    var xml = XML()
    xml.line(0, #"<?xml version="1.0" encoding="UTF-8" standalone="yes"?>"#)
    let identifiers = model.versionIdentifiers.sorted()
    let single = identifiers.count == 1 && identifiers[0] != "" ? identifiers[0] : nil
    xml.open(
      0, "model",
      [
        ("type", "com.apple.IDECoreDataModeler.DataModel"), ("documentVersion", "1.0"),
        ("minimumToolsVersion", "Automatic"), ("sourceLanguage", "Swift"),
        ("userDefinedModelVersionIdentifier", single ?? identifiers.first ?? ""),
      ])
    if single == nil {
      for identifier in identifiers { xml.empty(1, "versionIdentifier", [("value", identifier)]) }
    }
    for entity in model.entities { write(entity, into: &xml) }
    // Composite attributes' shapes, as Xcode keeps them: one `<composite>` block each, named here after the
    // entity and the attribute (Xcode's editor names them itself; the name is not part of the model).
    for entity in model.entities {
      for case let attribute as NSCompositeAttributeDescription in entity.ownProperties {
        writeComposite(attribute, named: "\(entity.entityName)_\(attribute.name)", into: &xml)
      }
    }
    for template in model.fetchRequestTemplates {
      let flag = { (value: Bool) in value ? "YES" : "NO" }
      xml.empty(
        1, "fetchRequest",
        [
          ("name", template.name), ("entity", template.entityName), ("predicateString", template.predicateFormat),
          ("fetchLimit", template.fetchLimit == 0 ? nil : String(template.fetchLimit)),
          ("fetchBatchSize", template.fetchBatchSize == 0 ? nil : String(template.fetchBatchSize)),
          ("includeSubentities", template.includesSubentities ? nil : flag(false)),
          ("includePropertyValues", template.includesPropertyValues ? nil : flag(false)),
          ("includesPendingChanges", template.includesPendingChanges ? nil : flag(false)),
          ("returnObjectsAsFaults", template.returnsObjectsAsFaults ? nil : flag(false)),
          ("returnDistinctResults", template.returnsDistinctResults ? flag(true) : nil),
        ])
    }
    for (name, members) in model.state.read(\.configurations).sorted(by: { $0.key < $1.key }) {
      xml.open(1, "configuration", [("name", name)])
      for member in members { xml.empty(2, "memberEntity", [("name", member)]) }
      xml.close(1, "configuration")
    }
    xml.close(0, "model")
    return Data(xml.text.utf8)
  }

  // MARK: - Entities and properties

  private static func write(_ entity: NSEntityDescription, into xml: inout XML) {
    xml.open(
      1, "entity",
      [
        ("name", entity.entityName), ("representedClassName", entity.representedClassName),
        ("parentEntity", entity.superentity?.name), ("isAbstract", entity.isAbstract ? "YES" : nil),
        ("elementID", entity.renamingIdentifier), ("versionHashModifier", entity.versionHashModifier),
      ])
    for property in entity.ownProperties {
      switch property.kind {
      case .attribute(let attribute):
        write(attribute, composite: "\(entity.entityName)_\(attribute.name)", into: &xml)
      case .relationship(let relationship): write(relationship, into: &xml)
      }
    }
    for fetched in entity.fetchedProperties {
      xml.open(2, "fetchedProperty", [("name", fetched.name), ("optional", "YES")])
      xml.empty(
        3, "fetchRequest",
        [
          ("name", "fetchedPropertyFetchRequest"), ("entity", fetched.destinationEntityName),
          ("predicateString", fetched.predicateFormat),
        ])
      writeUserInfo(fetched.userInfo, level: 3, into: &xml)
      xml.close(2, "fetchedProperty")
    }
    for index in entity.indexes {
      xml.open(2, "fetchIndex", [("name", index.name)])
      for element in index.elements {
        xml.empty(
          3, "fetchIndexElement",
          [
            ("property", element.indexedPropertyName), ("type", element.collationType.xcodeName),
            ("order", element.isAscending ? "ascending" : "descending"),
          ])
      }
      xml.close(2, "fetchIndex")
    }
    if !entity.uniquenessConstraints.isEmpty {
      xml.open(2, "uniquenessConstraints", [])
      for constraint in entity.uniquenessConstraints {
        xml.open(3, "uniquenessConstraint", [])
        for key in constraint { xml.empty(4, "constraint", [("value", key)]) }
        xml.close(3, "uniquenessConstraint")
      }
      xml.close(2, "uniquenessConstraints")
    }
    writeUserInfo(entity.userInfo, level: 2, into: &xml)
    xml.close(1, "entity")
  }

  /// A `<composite>` block: the elements of a composite attribute, then the blocks of its composite elements.
  private static func writeComposite(_ attribute: NSCompositeAttributeDescription, named name: String, into xml: inout XML) {
    let elements = attribute.elements
    if elements.isEmpty {
      xml.empty(1, "composite", [("name", name)])
    } else {
      xml.open(1, "composite", [("name", name)])
      for element in elements { write(element, composite: "\(name)_\(element.name)", level: 2, into: &xml) }
      xml.close(1, "composite")
    }
    for case let element as NSCompositeAttributeDescription in elements {
      writeComposite(element, named: "\(name)_\(element.name)", into: &xml)
    }
  }

  /// An `<attribute>`; `composite` is the name of its `<composite>` block, written when it is a composite.
  private static func write(_ attribute: NSAttributeDescription, composite: String, level: Int = 2, into xml: inout XML) {
    let type = attribute.attributeType
    let written = attribute.defaultValue.flatMap { Self.defaultText($0, type: type) }
    var attributes: [(String, String?)] = [
      ("name", attribute.name), ("optional", attribute.isOptional ? "YES" : nil),
      ("transient", attribute.isTransient ? "YES" : nil), ("attributeType", type.xcodeName),
      ("composite", attribute is NSCompositeAttributeDescription ? composite : nil),
      ("allowsExternalBinaryDataStorage", attribute.allowsExternalBinaryDataStorage ? "YES" : nil),
      ("preserveAfterDeletion", attribute.preservesValueInHistoryOnDeletion ? "YES" : nil),
    ]
    attributes.append(type == .dateAttributeType ? ("defaultDateTimeInterval", written) : ("defaultValueString", written))
    if attribute.isDerived {
      let expression = attribute.derivationFormat ?? ""
      attributes += [("derived", "YES"), ("derivationExpression", expression.isEmpty ? nil : expression)]
    }
    let bound = { (value: Double?) in value.map { $0 == $0.rounded() && abs($0) < 1e15 ? String(Int64($0)) : String($0) } }
    if type == .dateAttributeType {
      attributes += [("minDateTimeInterval", bound(attribute.minValue)), ("maxDateTimeInterval", bound(attribute.maxValue))]
    } else {
      attributes += [("minValueString", bound(attribute.minValue)), ("maxValueString", bound(attribute.maxValue))]
    }
    attributes += [
      ("regularExpressionString", attribute.regularExpression),
      // As Xcode writes Foundation's transformers: by the constant's name.
      (
        "valueTransformerName",
        attribute.valueTransformerName.map { name in
          XcodeModelLoader.ModelReader.transformerConstants.first(where: { $0.value == name })?.key ?? name
        }
      ),
      ("customClassName", attribute.attributeValueClassName),
      ("allowsCloudEncryption", attribute.allowsCloudEncryption ? "YES" : nil), ("elementID", attribute.renamingIdentifier),
      ("versionHashModifier", attribute.versionHashModifier),
    ]
    writeElement(level, "attribute", attributes, userInfo: attribute.userInfo, into: &xml)
  }

  private static func write(_ relationship: NSRelationshipDescription, into xml: inout XML) {
    let rule =
      switch relationship.deleteRule {
      case .nullifyDeleteRule: "Nullify"
      case .cascadeDeleteRule: "Cascade"
      case .denyDeleteRule: "Deny"
      case .noActionDeleteRule: "No Action"
      }
    let inverse = relationship.inverseRelationshipName
    let attributes: [(String, String?)] = [
      ("name", relationship.name), ("optional", relationship.isOptional ? "YES" : nil),
      ("transient", relationship.isTransient ? "YES" : nil), ("toMany", relationship.isToMany ? "YES" : nil),
      ("ordered", relationship.isOrdered ? "YES" : nil),
      // Xcode writes maxCount="1" on a to-one; the loader reads a to-one's minimum (a version hash input) only.
      ("minCount", relationship.minCount != 0 ? String(relationship.minCount) : nil),
      ("maxCount", relationship.isToMany ? (relationship.maxCount != 0 ? String(relationship.maxCount) : nil) : "1"),
      ("deletionRule", rule), ("destinationEntity", relationship.destinationEntityName),
      ("inverseName", inverse), ("inverseEntity", inverse == nil ? nil : relationship.destinationEntityName),
      ("elementID", relationship.renamingIdentifier), ("versionHashModifier", relationship.versionHashModifier),
    ]
    writeElement(2, "relationship", attributes, userInfo: relationship.userInfo, into: &xml)
  }

  /// An element that is empty unless it has user info.
  private static func writeElement(
    _ level: Int, _ name: String, _ attributes: [(String, String?)], userInfo: [String: String], into xml: inout XML
  ) {
    if userInfo.isEmpty {
      xml.empty(level, name, attributes)
    } else {
      xml.open(level, name, attributes)
      writeUserInfo(userInfo, level: level + 1, into: &xml)
      xml.close(level, name)
    }
  }

  private static func writeUserInfo(_ userInfo: [String: String], level: Int, into xml: inout XML) {
    guard !userInfo.isEmpty else { return }
    xml.open(level, "userInfo", [])
    for (key, value) in userInfo.sorted(by: { $0.key < $1.key }) {
      xml.empty(level + 1, "entry", [("key", key), ("value", value)])
    }
    xml.close(level, "userInfo")
  }

  // MARK: - Default values

  /// The text the loader reads back as exactly `value` (``XcodeModelLoader/readDefault(_:type:)``'s canonical
  /// forms); `nil` when the type has no default text (Binary Data, the types the engine does not store) or the
  /// value has none (NaN).
  static func defaultText(_ value: any Sendable, type: NSAttributeType) -> String? {
    switch (type, value) {
    case (.stringAttributeType, let text as String): text
    case (.integer16AttributeType, let number as Int16): String(number)
    case (.integer32AttributeType, let number as Int32): String(number)
    case (.integer64AttributeType, let number as Int64): String(number)
    case (.doubleAttributeType, let number as Double): floatingText(number)
    case (.floatAttributeType, let number as Float): floatingText(number)
    case (.decimalAttributeType, let number as Decimal): number.isNaN ? nil : number.description
    case (.booleanAttributeType, let flag as Bool): flag ? "YES" : "NO"
    case (.dateAttributeType, let date as Date): floatingText(date.timeIntervalSinceReferenceDate)
    case (.UUIDAttributeType, let uuid as UUID): uuid.uuidString
    case (.URIAttributeType, let url as URL): url.absoluteString
    default: nil
    }
  }

  /// Swift's shortest text that parses back to the same number; infinities as a decimal too large for the type
  /// (which the loader's parser reads as infinity), NaN as nothing.
  private static func floatingText<T: BinaryFloatingPoint & CustomStringConvertible>(_ number: T) -> String? {
    if number.isNaN { return nil }
    if number.isInfinite { return number < 0 ? "-1e999" : "1e999" }
    return number.description
  }

  // MARK: - XML text

  /// The text being written, four spaces a level as Xcode indents.
  private struct XML {
    var text = ""

    mutating func line(_ level: Int, _ content: String) {
      text += String(repeating: "    ", count: level) + content + "\n"
    }

    mutating func open(_ level: Int, _ name: String, _ attributes: [(String, String?)]) {
      line(level, "<\(name)\(Self.attributeText(attributes))>")
    }

    mutating func empty(_ level: Int, _ name: String, _ attributes: [(String, String?)]) {
      line(level, "<\(name)\(Self.attributeText(attributes))/>")
    }

    mutating func close(_ level: Int, _ name: String) { line(level, "</\(name)>") }

    /// ` name="value"` for each attribute that has a value, escaped.
    static func attributeText(_ attributes: [(String, String?)]) -> String {
      attributes.reduce(into: "") { text, attribute in
        guard let value = attribute.1 else { return }
        text += " \(attribute.0)=\"\(XcodeModelWriter.escaped(value))\""
      }
    }
  }

  /// `text` as an XML attribute value: the five markup characters as entities, and tabs, line feeds and carriage
  /// returns as character references, since an XML parser turns them into spaces in an attribute.
  static func escaped(_ text: String) -> String {
    var result = ""
    result.reserveCapacity(text.utf8.count)
    for scalar in text.unicodeScalars {
      switch scalar {
      case "&": result += "&amp;"
      case "<": result += "&lt;"
      case ">": result += "&gt;"
      case "\"": result += "&quot;"
      case "'": result += "&apos;"
      case "\t": result += "&#9;"
      case "\n": result += "&#10;"
      case "\r": result += "&#13;"
      default: result.unicodeScalars.append(scalar)
      }
    }
    return result
  }
}
