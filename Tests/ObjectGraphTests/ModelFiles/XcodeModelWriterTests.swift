import Foundation
import TestSupport
import Testing

@testable import ObjectGraph

/// Writing a model as Xcode's `contents` XML and reading it back (`XcodeModelWriter`,
/// `NSManagedObjectModel.fromXcodeContents`): every fixture version, the tutorial's versions and a model made in
/// code come back with the same version hashes and everything else a store needs to keep its model.
@Suite("Xcode model writer", .temporaryFolders)
struct XcodeModelWriterTests {
  // MARK: - Comparing models

  /// A value with its Swift type, so that `Int16(0)` and `Int64(0)` differ.
  private static func typed(_ value: (any Sendable)?) -> String {
    guard let value else { return "nil" }
    return "\(type(of: value)) \(value)"
  }

  /// Whether two default values are of one type and equal.
  private static func sameValue(_ a: (any Sendable)?, _ b: (any Sendable)?) -> Bool {
    switch (a, b) {
    case (nil, nil): true
    case (let a?, let b?):
      type(of: a) == type(of: b) && (a as? AnyHashable).map { $0 == (b as? AnyHashable) } ?? false
    default: false
    }
  }

  /// Checks that `copy` says what `original` says: version hashes, order, renaming identifiers, typed default
  /// values, delete rules, indexes, constraints, user info, fetched properties, templates, configurations,
  /// version identifiers and class names.
  private static func expectSame(
    _ copy: NSManagedObjectModel, as original: NSManagedObjectModel, _ label: String,
    sourceLocation: SourceLocation = #_sourceLocation
  ) {
    func check(_ condition: Bool, _ what: @autoclosure () -> String) {
      #expect(condition, "\(label): \(what())", sourceLocation: sourceLocation)
    }
    check(copy.entityVersionHashesByName == original.entityVersionHashesByName, "version hashes")
    check(copy.entities.map(\.name) == original.entities.map(\.name), "entity order")
    check(copy.versionIdentifiers == original.versionIdentifiers, "version identifiers \(copy.versionIdentifiers)")
    check(copy.configurations == original.configurations, "configurations \(copy.configurations)")
    for name in original.configurations {
      let members = original.entities(forConfigurationName: name)?.map(\.name)
      check(copy.entities(forConfigurationName: name)?.map(\.name) == members, "configuration \(name)")
    }
    check(
      copy.fetchRequestTemplates.map { "\($0.name) \($0.entityName) \($0.predicateFormat ?? "-")" }
        == original.fetchRequestTemplates.map { "\($0.name) \($0.entityName) \($0.predicateFormat ?? "-")" },
      "fetch request templates")
    for entity in original.entities {
      guard let other = copy.entitiesByName[entity.entityName] else {
        check(false, "entity \(entity.entityName) is missing")
        continue
      }
      let name = entity.entityName
      check(other.representedClassName == entity.representedClassName, "\(name) representedClassName")
      check(other.renamingIdentifier == entity.renamingIdentifier, "\(name) renamingIdentifier")
      check(other.versionHashModifier == entity.versionHashModifier, "\(name) versionHashModifier")
      check(other.isAbstract == entity.isAbstract, "\(name) isAbstract")
      check(other.superentity?.entityName == entity.superentity?.entityName, "\(name) superentity")
      check(other.userInfo == entity.userInfo, "\(name) userInfo")
      check(other.indexes == entity.indexes, "\(name) indexes \(other.indexes) vs \(entity.indexes)")
      check(other.uniquenessConstraints == entity.uniquenessConstraints, "\(name) uniqueness constraints")
      check(
        other.fetchedProperties.map { "\($0.name) \($0.destinationEntityName) \($0.predicateFormat ?? "-")" }
          == entity.fetchedProperties.map { "\($0.name) \($0.destinationEntityName) \($0.predicateFormat ?? "-")" },
        "\(name) fetched properties")
      check(other.ownProperties.map(\.name) == entity.ownProperties.map(\.name), "\(name) property order")
      for property in entity.ownProperties {
        let key = "\(name).\(property.name)"
        switch (property.kind, other.propertiesByName[property.name]?.kind) {
        case (.attribute(let a), .attribute(let b)?):
          check(b.attributeType == a.attributeType, "\(key) type")
          check(
            sameValue(b.defaultValue, a.defaultValue), "\(key) default \(typed(b.defaultValue)) vs \(typed(a.defaultValue))")
          check(b.renamingIdentifier == a.renamingIdentifier, "\(key) renamingIdentifier")
          check((b.derivationFormat ?? "") == (a.derivationFormat ?? ""), "\(key) derivationExpression")
          check((b is NSDerivedAttributeDescription) == (a is NSDerivedAttributeDescription), "\(key) derived class")
          check(b.valueTransformerName == a.valueTransformerName, "\(key) valueTransformerName")
          check(b.allowsExternalBinaryDataStorage == a.allowsExternalBinaryDataStorage, "\(key) allowsExternalBinaryDataStorage")
          check(b.userInfo == a.userInfo, "\(key) userInfo")
        case (.relationship(let a), .relationship(let b)?):
          check(b.deleteRule == a.deleteRule, "\(key) deleteRule")
          check(b.renamingIdentifier == a.renamingIdentifier, "\(key) renamingIdentifier")
          check(b.userInfo == a.userInfo, "\(key) userInfo")
          check(b.inverseRelationship?.name == a.inverseRelationship?.name, "\(key) inverse")
        default:
          check(false, "\(key) is missing or of another kind")
        }
      }
    }
  }

  /// Writes `model`, reads it back from the data and from a `X.xcdatamodel/contents` file, and compares both
  /// with the original.
  private static func roundTrip(
    _ model: NSManagedObjectModel, _ label: String, sourceLocation: SourceLocation = #_sourceLocation
  ) throws {
    let data = XcodeModelWriter.contents(of: model)
    let copy = try NSManagedObjectModel.fromXcodeContents(data, origin: "the model written for \(label)")
    expectSame(copy, as: model, label + " (from data)", sourceLocation: sourceLocation)
    #expect(copy.sourceURL == nil, sourceLocation: sourceLocation)

    let folder = try TemporaryFolder()
    let version = folder.appending("X.xcdatamodel")
    try FileManager.default.createDirectory(at: version, withIntermediateDirectories: true)
    try data.write(to: version.appendingPathComponent("contents"))
    let loaded = try NSManagedObjectModel(loadingContentsOf: version)
    expectSame(loaded, as: model, label + " (from a file)", sourceLocation: sourceLocation)
    #expect(loaded.loadWarnings.isEmpty, "\(label): \(loaded.loadWarnings)", sourceLocation: sourceLocation)

    // Written again, the copy gives the same text: nothing drifts from one round trip to the next.
    #expect(XcodeModelWriter.contents(of: copy) == data, "\(label): second writing", sourceLocation: sourceLocation)
  }

  // MARK: - Round trips

  @Test("every version of every fixture model round-trips", .needsFixtures)
  func fixtures() throws {
    var versions = 0
    var indexes = 0
    for url in try Fixtures.models() {
      for (name, model) in try NSManagedObjectModel.versions(in: url) {
        versions += 1
        indexes += model.entities.map(\.indexes.count).reduce(0, +)
        try Self.roundTrip(model, "\(url.lastPathComponent) version \(name)")
      }
    }
    #expect(versions >= 52, "fixture versions: \(versions)")
    #expect(indexes > 50, "fixture indexes: \(indexes)")
  }

  @Test("both versions of the tutorial's model round-trip")
  func tutorialModel() throws {
    let versions = try NSManagedObjectModel.versions(in: FetchIndexModelTests.tutorialModelURL())
    #expect(versions.count == 2)
    for (name, model) in versions { try Self.roundTrip(model, "tutorial \(name)") }
    let current = try NSManagedObjectModel.fromXcodeContents(
      XcodeModelWriter.contents(of: try #require(versions.last?.model)), origin: "the tutorial model")
    let note = try #require(current.entitiesByName["Note"])
    #expect(note.indexes.map(\.description) == ["byCreatedAt(createdAt desc)"])
    #expect(note.attributesByName["modifiedAt"]?.renamingIdentifier == "updatedAt")
    #expect(current.versionIdentifiers == ["2"])
  }

  @Test("a model made in code round-trips")
  func modelMadeInCode() throws {
    try Self.roundTrip(try Models.notes(), "Models.notes")
    try Self.roundTrip(try Models.allTypes(), "Models.allTypes")
  }

  @Test("default values of every type read back typed and equal, in canonical text")
  func defaultValues() throws {
    let values: [(NSAttributeType, any Sendable)] = [
      (.stringAttributeType, " spaced\ttext\nwith lines "), (.integer16AttributeType, Int16.min), (.integer32AttributeType, Int32.max),
      (.integer64AttributeType, Int64.min), (.doubleAttributeType, 0.1), (.doubleAttributeType, -1e-300),
      (.doubleAttributeType, Double.infinity),
      (.floatAttributeType, Float(3.4028235e38)), (.floatAttributeType, -Float.infinity),
      (.decimalAttributeType, Decimal(string: "-12345.678901234567890")!),
      (.booleanAttributeType, true), (.booleanAttributeType, false),
      (.dateAttributeType, Date(timeIntervalSinceReferenceDate: 694_224_000.123_456)),
      (.dateAttributeType, Date(timeIntervalSinceReferenceDate: -1e9)), (.UUIDAttributeType, UUID()),
      (.URIAttributeType, URL(string: "https://example.com/a?b=c&d=e")!),
      (.stringAttributeType, ""),
    ]
    let entity = NSEntityDescription(
      name: "Defaults",
      properties: values.enumerated().map { offset, pair in
        .attribute(NSAttributeDescription(name: "a\(offset)", type: .init(rawValue: pair.0), defaultValue: pair.1))
      })
    let model = try NSManagedObjectModel(entities: [entity])
    try Self.roundTrip(model, "defaults")
    let text = String(decoding: XcodeModelWriter.contents(of: model), as: UTF8.self)
    #expect(text.contains(#"defaultValueString="YES""#))
    #expect(text.contains(#"attributeType="Date" defaultDateTimeInterval="694224000.123456""#))
    #expect(text.contains(#"defaultValueString=" spaced&#9;text&#10;with lines ""#))
  }

  @Test("what the format cannot hold: a NaN default and a Binary Data default are not written")
  func defaultsNotWritten() throws {
    let entity = NSEntityDescription(
      name: "E",
      properties: [
        .attribute(NSAttributeDescription(name: "nan", type: .double, defaultValue: Double.nan)),
        .attribute(NSAttributeDescription(name: "bytes", type: .binaryData, defaultValue: Data([1, 2]))),
      ])
    let copy = try NSManagedObjectModel.fromXcodeContents(
      XcodeModelWriter.contents(of: try NSManagedObjectModel(entities: [entity])), origin: "a test model")
    let attributes = try #require(copy.entitiesByName["E"]).attributesByName
    #expect(attributes["nan"]?.defaultValue == nil)
    #expect(attributes["bytes"]?.defaultValue == nil)
  }

  @Test("every feature a description carries round-trips: inheritance, counts, rules, hints, several identifiers")
  func everyFeature() throws {
    let base = NSEntityDescription(
      name: "Base", properties: [.attribute(NSAttributeDescription(name: "createdAt", type: .date, isOptional: false))])
    base.isAbstract = true
    base.versionHashModifier = "v2"
    base.representedClassName = "MyApp.Base"
    let title = NSAttributeDescription(name: "title", type: .string)
    title.renamingIdentifier = "name"
    title.versionHashModifier = "t"
    title.userInfo = ["key": "value"]
    let scratch = NSAttributeDescription(name: "scratch", type: .undefined)
    scratch.isTransient = true
    let count = NSDerivedAttributeDescription(name: "count", type: .integer64)
    count.derivationExpression = NSExpression(format: "items.@count")
    let blob = NSAttributeDescription(name: "blob", type: .transformable)
    blob.valueTransformerName = "NSSecureUnarchiveFromData"
    blob.attributeValueClassName = "[String]"
    blob.allowsCloudEncryption = true
    let derivedNoExpression = NSDerivedAttributeDescription(name: "derivedOnly", type: .string)
    let items = NSRelationshipDescription(
      name: "items", destination: "Item", inverse: "owner", toMany: true, deleteRule: .denyDeleteRule, isOptional: false)
    items.isOrdered = true
    items.minCount = 2
    items.maxCount = 9
    items.renamingIdentifier = "things"
    items.versionHashModifier = "r"
    items.userInfo = ["a": "b"]
    let child = NSEntityDescription(
      name: "Child",
      properties: [
        .attribute(title), .attribute(scratch), .attribute(count), .attribute(blob), .attribute(derivedNoExpression),
        .relationship(items),
      ])
    child.superentity = base
    child.renamingIdentifier = "OldChild"
    child.uniquenessConstraints = [["title"], ["title", "createdAt"]]
    child.indexes = [
      NSFetchIndexDescription(
        name: "byCreatedAtAndTitle",
        elements: [
          NSFetchIndexElementDescription(propertyName: "createdAt", isAscending: false),
          NSFetchIndexElementDescription(propertyName: "title"),
        ]),
      NSFetchIndexDescription(
        name: "byWhen", elements: [NSFetchIndexElementDescription(propertyName: "createdAt", collationType: .rTree)]),
    ]
    child.fetchedProperties = [
      NSFetchedPropertyDescription(name: "recent", destinationEntityName: "Item", predicateFormat: "date > $FETCH_SOURCE.createdAt")
    ]
    let owner = NSRelationshipDescription(name: "owner", destination: "Child", inverse: "items", deleteRule: .noActionDeleteRule)
    let loose = NSRelationshipDescription(name: "loose", destination: "Child", inverse: nil, deleteRule: .cascadeDeleteRule)
    loose.isTransient = true
    let item = NSEntityDescription(name: "Item", properties: [.relationship(owner), .relationship(loose)])
    let model = try NSManagedObjectModel(
      entities: [base, child, item], versionIdentifiers: ["2", "2.1", "beta"],
      configurations: ["Cloud": ["Child", "Base"], "Local": ["Item"]],
      fetchRequestTemplates: [FetchRequestTemplate(name: "all", entityName: "Item", predicateFormat: nil)],
      sourceURL: nil)
    try Self.roundTrip(model, "every feature")
  }

  @Test("names, user info and text with <, &, quotes and line breaks are escaped and read back as written")
  func escaping() throws {
    let odd = #"a<b & "c" 'd' > e"#
    let attribute = NSAttributeDescription(name: "title", type: .string, defaultValue: odd + "\r\n\tend")
    attribute.userInfo = [odd: odd, "line\nbreak": "tab\there"]
    attribute.renamingIdentifier = "&amp; is not an entity here"
    let entity = NSEntityDescription(name: "E", properties: [.attribute(attribute)])
    entity.representedClassName = "<Class & \"Name\">"
    entity.userInfo = ["k": "</entity><entity name=\"Injected\">"]
    entity.fetchedProperties = [
      NSFetchedPropertyDescription(name: "f", destinationEntityName: "E", predicateFormat: #"title == "x" && n < 3"#)
    ]
    let model = try NSManagedObjectModel(
      entities: [entity], versionIdentifiers: [odd], configurations: [odd: ["E"]], fetchRequestTemplates: [],
      sourceURL: nil)
    try Self.roundTrip(model, "escaping")
    let copy = try NSManagedObjectModel.fromXcodeContents(XcodeModelWriter.contents(of: model), origin: "the test")
    #expect(copy.entities.map(\.name) == ["E"])
    #expect(copy.entitiesByName["E"]?.userInfo["k"] == "</entity><entity name=\"Injected\">")
    #expect(copy.entitiesByName["E"]?.attributesByName["title"]?.defaultValue as? String == odd + "\r\n\tend")
    #expect(XcodeModelWriter.escaped(odd) == "a&lt;b &amp; &quot;c&quot; &apos;d&apos; &gt; e")
  }

  /// Model files with a byte that is not UTF-8, and the offset of that byte.
  static let notUTF8Files: [(bytes: [UInt8], offset: Int)] = [
    ([UInt8]("<model><entity ".utf8) + [0xFF] + [UInt8]("=\"x\"/></model>".utf8), 15),
    ([UInt8]("<model>\n<".utf8) + [0xC3, 0x28] + [UInt8]("entity name=\"E\"/></model>".utf8), 9),
    ([UInt8]("<model><entity name=\"".utf8) + [0xE2, 0x82] + [UInt8]("\"/></model>".utf8), 21),
  ]

  @Test("a model file that is not UTF-8 (a byte flipped in an element or attribute name) is modelInvalid naming the byte, not a crash")
  func notUTF8() throws {
    // Foundation's XMLParser on Linux crashed on the first two (found by FuzzTests); the loader refuses
    // them before they reach it.
    for (bytes, offset) in Self.notUTF8Files {
      let error = expectCode(.modelInvalid) { _ = try NSManagedObjectModel.fromXcodeContents(Data(bytes), origin: "the test model") }
      #expect(error?.message.contains("is not UTF-8 text: byte \(offset)") == true, "\(error?.message ?? "")")
    }
  }

  @Test("a processing instruction with nothing after its name (<?xml?>, <?pi?>) is modelInvalid naming the line, not a crash")
  func emptyProcessingInstruction() throws {
    // Foundation's XMLParser on Linux crashed on both (found by the libFuzzer target in Fuzz/).
    for (text, line) in [("<?xml?>\n<model/>", 1), ("<model>\n<!-- <?ok?> -->\n<?pi?></model>", 3)] {
      let error = expectCode(.modelInvalid) { _ = try NSManagedObjectModel.fromXcodeContents(Data(text.utf8), origin: "the test model") }
      #expect(
        error?.message.contains("line \(line) holds a processing instruction with nothing after its name") == true,
        "\(error?.message ?? "")")
    }
    // With a space before `?>` the parser copes, and the loader reads on (an empty model, here).
    #expect(try NSManagedObjectModel.fromXcodeContents(Data("<?pi ?><model/>".utf8), origin: "the test model").entities.isEmpty)
  }

  @Test("text XML cannot hold (a control character) does not read back as something else: modelInvalid")
  func unwritableCharacter() throws {
    let entity = NSEntityDescription(
      name: "E", properties: [.attribute(NSAttributeDescription(name: "a", type: .string, defaultValue: "x\u{1}y"))])
    let data = XcodeModelWriter.contents(of: try NSManagedObjectModel(entities: [entity]))
    let error = expectCode(.modelInvalid) { _ = try NSManagedObjectModel.fromXcodeContents(data, origin: "the test model") }
    #expect(error?.message.contains("is not well-formed XML") == true, "\(error?.message ?? "")")
  }

  @Test("the written file has Xcode's shape")
  func shape() throws {
    let model = try NSManagedObjectModel.versions(in: FetchIndexModelTests.tutorialModelURL())[1].model
    let text = String(decoding: XcodeModelWriter.contents(of: model), as: UTF8.self)
    #expect(text.hasPrefix(#"<?xml version="1.0" encoding="UTF-8" standalone="yes"?>"#))
    #expect(
      text.contains(
        #"<model type="com.apple.IDECoreDataModeler.DataModel" documentVersion="1.0" minimumToolsVersion="Automatic" sourceLanguage="Swift" userDefinedModelVersionIdentifier="2">"#
      ))
    #expect(
      text.contains(
        #"<attribute name="modifiedAt" optional="YES" attributeType="Date" elementID="updatedAt"/>"#))
    #expect(text.contains(#"<attribute name="byteCount" attributeType="Integer 64" defaultValueString="0"/>"#))
    #expect(
      text.contains(
        #"<relationship name="attachments" optional="YES" toMany="YES" deletionRule="Cascade" destinationEntity="Attachment" inverseName="note" inverseEntity="Attachment"/>"#
      ))
    #expect(
      text.contains(
        """
                <fetchIndex name="byCreatedAt">
                    <fetchIndexElement property="createdAt" type="Binary" order="descending"/>
                </fetchIndex>
        """))
    #expect(text.hasSuffix("</model>\n"))
  }

  // MARK: - Errors

  @Test(
    "damaged data is modelInvalid naming its origin",
    arguments: [
      ("", "is empty or holds no XML element"),
      ("<model type=\"x\"><entity name=\"A\">", "is not well-formed XML"),
      ("<plist/>", "the root element is <plist>, not <model>"),
      ("<model><entity name=\"A\"><attribute name=\"a\" attributeType=\"Integer 8\"/></entity></model>", "attributeType 'Integer 8'"),
      (
        "<model><entity name=\"A\"><relationship name=\"b\" destinationEntity=\"B\" deletionRule=\"Nullify\"/></entity></model>",
        "is inconsistent: Relationship 'A.b' points to entity 'B'"
      ),
    ])
  func malformedData(xml: String, fragment: String) throws {
    let error = expectCode(.modelInvalid) {
      _ = try NSManagedObjectModel.fromXcodeContents(Data(xml.utf8), origin: "the model kept in store Notes.sqlite")
    }
    let message = error?.message ?? ""
    #expect(message.localizedCaseInsensitiveContains("the model kept in store Notes.sqlite"), "\(message)")
    #expect(message.contains(fragment), "\(message)")
    #expect(error?.url == nil)
  }
}
