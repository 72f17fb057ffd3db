import EngineTestSupport
import Foundation
import TestSupport
import Testing

@testable import ObjectGraph

/// Loading Xcode's model format (`.xcdatamodeld` / `.xcdatamodel`): every real fixture model, specific
/// features, and the failure paths.
@Suite("Xcode model loader", .temporaryFolders)
struct XcodeModelLoaderTests {
  // MARK: - Fixtures

  private static func fixturesFolder() throws -> URL { try Fixtures.folder() }

  private static func fixture(_ name: String) throws -> URL {
    let url = try fixturesFolder().appendingPathComponent(name)
    try #require(FileManager.default.fileExists(atPath: url.path), "Fixture \(name) is missing at \(url.path)")
    return url
  }

  /// One entity as counted straight from a `contents` file, without the loader.
  private struct CountedEntity: Equatable {
    var attributes = 0
    var relationships = 0
    var fetchedProperties = 0
  }

  /// Counts, by plain string scanning of the XML text, each `<entity>` block's `<attribute `,
  /// `<relationship ` and `<fetchedProperty ` tags (attributes of top-level `<composite>` blocks are outside
  /// every entity and so are not counted).
  private static func countEntities(inContentsOf url: URL) throws -> [String: CountedEntity] {
    let text = try String(contentsOf: url, encoding: .utf8)
    var result: [String: CountedEntity] = [:]
    for segment in text.components(separatedBy: "<entity ").dropFirst() {
      let openingEnd = try #require(segment.firstIndex(of: ">"), "unterminated <entity in \(url.path)")
      let openingTag = String(segment[..<openingEnd])
      let name = try #require(quotedValue(of: "name", in: " " + openingTag), "entity without name in \(url.path)")
      var counts = CountedEntity()
      if !openingTag.hasSuffix("/") {
        let body = segment[segment.index(after: openingEnd)...]
        let end = try #require(body.range(of: "</entity>"), "entity \(name) is not closed in \(url.path)")
        let inside = String(body[..<end.lowerBound])
        counts.attributes = inside.components(separatedBy: "<attribute ").count - 1
        counts.relationships = inside.components(separatedBy: "<relationship ").count - 1
        counts.fetchedProperties = inside.components(separatedBy: "<fetchedProperty ").count - 1
      }
      #expect(result[name] == nil, "entity \(name) appears twice in \(url.path)")
      result[name] = counts
    }
    return result
  }

  /// The value of ` attribute="…"` in a tag's text.
  private static func quotedValue(of attribute: String, in tag: String) -> String? {
    guard let start = tag.range(of: " \(attribute)=\"") else { return nil }
    let rest = tag[start.upperBound...]
    guard let end = rest.firstIndex(of: "\"") else { return nil }
    return String(rest[..<end])
  }

  /// Checks a loaded model against the counts read from its `contents` file.
  private static func expectCounts(
    of model: NSManagedObjectModel, matching contents: URL, _ label: String,
    sourceLocation: SourceLocation = #_sourceLocation
  ) throws {
    let expected = try countEntities(inContentsOf: contents)
    #expect(model.entities.count == expected.count, "\(label): entity count", sourceLocation: sourceLocation)
    #expect(
      Set(model.entities.map(\.name)) == Set(expected.keys), "\(label): entity names",
      sourceLocation: sourceLocation)
    for entity in model.entities {
      var loaded = CountedEntity()
      for property in entity.ownProperties {
        switch property.kind {
        case .attribute: loaded.attributes += 1
        case .relationship(let relationship):
          loaded.relationships += 1
          #expect(
            relationship.destinationEntity != nil, "\(label): \(entity.entityName).\(relationship.name) destination",
            sourceLocation: sourceLocation)
          if relationship.inverseRelationshipName != nil {
            #expect(
              relationship.inverseRelationship != nil, "\(label): \(entity.entityName).\(relationship.name) inverse",
              sourceLocation: sourceLocation)
          }
        }
      }
      loaded.fetchedProperties = entity.fetchedProperties.count
      #expect(
        loaded == expected[entity.entityName], "\(label): entity \(entity.entityName) own attributes/relationships",
        sourceLocation: sourceLocation)
    }
  }

  /// The current version's name as `.xccurrentversion` gives it (read by string search), else the only version,
  /// else the last in numeric order.
  private static func expectedCurrentVersion(of bundle: URL, versionNames: [String]) throws -> String {
    let marker = bundle.appendingPathComponent(".xccurrentversion")
    if let text = try? String(contentsOf: marker, encoding: .utf8) {
      let key = try #require(text.range(of: "_XCCurrentVersionName"), "no key in \(marker.path)")
      let open = try #require(text[key.upperBound...].range(of: "<string>"))
      let close = try #require(text[open.upperBound...].range(of: "</string>"))
      let name = String(text[open.upperBound..<close.lowerBound])
      return name.hasSuffix(".xcdatamodel") ? String(name.dropLast(".xcdatamodel".count)) : name
    }
    let sorted = versionNames.sorted { $0.compare($1, options: .numeric) == .orderedAscending }
    return try #require(sorted.last)
  }

  private static func versionFolderNames(in bundle: URL) throws -> [String] {
    try FileManager.default.contentsOfDirectory(atPath: bundle.path)
      .filter { $0.hasSuffix(".xcdatamodel") }
      .map { String($0.dropLast(".xcdatamodel".count)) }
  }

  private static func entity(_ name: String, in model: NSManagedObjectModel) throws -> NSEntityDescription {
    try #require(model.entitiesByName[name], "model has no entity \(name)")
  }

  private static func attribute(_ name: String, of entity: NSEntityDescription) throws -> NSAttributeDescription {
    try #require(entity.attributesByName[name], "entity \(entity.entityName) has no attribute \(name)")
  }

  private static func relationship(_ name: String, of entity: NSEntityDescription) throws -> NSRelationshipDescription {
    try #require(entity.relationshipsByName[name], "entity \(entity.entityName) has no relationship \(name)")
  }

  /// The only attribute called `name` among the model's entities' own attributes.
  private static func uniqueAttribute(_ name: String, in model: NSManagedObjectModel) throws -> NSAttributeDescription {
    let matches = model.entities.flatMap { entity in
      entity.ownProperties.compactMap { property -> NSAttributeDescription? in
        if let attribute = property as? NSAttributeDescription, attribute.name == name { return attribute }
        return nil
      }
    }
    try #require(matches.count == 1, "expected one attribute named \(name), found \(matches.count)")
    return try #require(matches.first)
  }

  // MARK: - 1. Every fixture loads, with the counts its XML has

  @Test("every fixture model and version loads with the entity, attribute and relationship counts of its XML", .needsFixtures)
  func everyFixtureLoads() throws {
    let root = try Self.fixturesFolder()
    let items = try FileManager.default.contentsOfDirectory(atPath: root.path).sorted()
    var modelCount = 0
    var versionCount = 0
    for item in items {
      let url = root.appendingPathComponent(item)
      if item.hasSuffix(".xcdatamodeld") {
        modelCount += 1
        let folderNames = try Self.versionFolderNames(in: url)
        let versions = try NSManagedObjectModel.versions(in: url)
        #expect(versions.map(\.name).sorted() == folderNames.sorted(), "\(item): version names")
        let inNumericOrder = versions.map(\.name).sorted { $0.compare($1, options: .numeric) == .orderedAscending }
        #expect(versions.map(\.name) == inNumericOrder, "\(item): versions sorted by name")
        for (name, model) in versions {
          versionCount += 1
          let folder = url.appendingPathComponent(name + ".xcdatamodel")
          #expect(model.sourceURL?.standardizedFileURL.path == folder.standardizedFileURL.path)
          try Self.expectCounts(
            of: model, matching: folder.appendingPathComponent("contents"), "\(item) version \(name)")
        }
        let currentName = try Self.expectedCurrentVersion(of: url, versionNames: folderNames)
        let current = try NSManagedObjectModel(loadingContentsOf: url)
        #expect(current.sourceURL == url, "\(item): current model's sourceURL")
        try Self.expectCounts(
          of: current, matching: url.appendingPathComponent(currentName + ".xcdatamodel/contents"),
          "\(item) current version (\(currentName))")
        if let same = versions.first(where: { $0.name == currentName })?.model {
          #expect(current.entityVersionHashesByName == same.entityVersionHashesByName, "\(item): current version")
          #expect(current.versionIdentifiers == same.versionIdentifiers, "\(item): current version identifiers")
        } else {
          Issue.record("\(item): versions(in:) has no version named \(currentName)")
        }
      } else if item.hasSuffix(".xcdatamodel") {
        modelCount += 1
        versionCount += 1
        let model = try NSManagedObjectModel(loadingContentsOf: url)
        try Self.expectCounts(of: model, matching: url.appendingPathComponent("contents"), item)
        let versions = try NSManagedObjectModel.versions(in: url)
        let versionName: String = String(item.dropLast(".xcdatamodel".count))
        #expect(versions.map(\.name) == [versionName], "\(item): one version")
        #expect(versions.first?.model.entities.count == model.entities.count)
      }
    }
    // README says 30 models / 53 versions, but two SOURCES.tsv rows share the fixture path
    // objcio__core-data__Moody.xcdatamodeld/Moody.xcdatamodel, so 29 folders and 52 versions are on disk.
    #expect(modelCount >= 29, "expected at least 29 fixture models, found \(modelCount)")
    #expect(versionCount >= 52, "expected at least 52 fixture model versions, found \(versionCount)")
  }

  // MARK: - 2. The current version

  @Test("the current version is the one .xccurrentversion names, even the oldest", .needsFixtures)
  func currentVersionHonoursMarker() throws {
    let sample = try Self.fixture("alemar11__CoreDataPlus__SampleModel.xcdatamodeld")
    let names = try NSManagedObjectModel.versions(in: sample).map(\.name)
    #expect(names == ["SampleModel", "SampleModel2", "SampleModel3"])
    let model = try NSManagedObjectModel(loadingContentsOf: sample)
    // SampleModel (the oldest) has ExpensiveSportCar, later versions rename it LuxuryCar.
    #expect(model.versionIdentifiers == ["1"])
    #expect(model.entitiesByName["ExpensiveSportCar"] != nil)
    #expect(model.entitiesByName["LuxuryCar"] == nil)
    #expect(try Self.attribute("currentDrivingSpeed", of: Self.entity("Car", in: model)).isTransient)

    let evolution = try Self.fixture("JohnEstropia__CoreStore__Advanced.EvolutionDemo.V1.xcdatamodeld")
    let creature = try Self.entity("Creature", in: NSManagedObjectModel(loadingContentsOf: evolution))
    #expect(creature.representedClassName == "Advanced_EvolutionDemo_V1_Creature")
    #expect(try Self.attribute("numberOfFlagella", of: creature).defaultValue as? Int32 == 2)

    let moody = try NSManagedObjectModel(loadingContentsOf: Self.fixture("objcio__core-data__Moody.xcdatamodeld"))
    #expect(moody.versionIdentifiers == ["6"])
  }

  @Test("without .xccurrentversion the last version in natural order is current")
  func currentVersionWithoutMarker() throws {
    let folder = try TemporaryFolder()
    let bundle = folder.url.appendingPathComponent("Natural.xcdatamodeld")
    for (index, name) in ["Natural 2", "Natural 10", "Natural"].enumerated() {
      try folder.writeVersion(
        in: bundle, named: name,
        contents: Self.modelXML(
          #"<entity name="E\#(index)" representedClassName="E"><attribute name="a" attributeType="String"/></entity>"#,
          identifier: name))
    }
    #expect(try NSManagedObjectModel.versions(in: bundle).map(\.name) == ["Natural", "Natural 2", "Natural 10"])
    let model = try NSManagedObjectModel(loadingContentsOf: bundle)
    #expect(model.versionIdentifiers == ["Natural 10"])
  }

  // MARK: - 3. Features

  @Test("inheritance and abstract entities", .needsFixtures)
  func inheritance() throws {
    let model = try NSManagedObjectModel(
      loadingContentsOf: Self.fixture("ChristianKienle__Core-Data-Editor__iOS_Example.xcdatamodel"))
    let abstract = try Self.entity("Abstract", in: model)
    let childA = try Self.entity("ChildAOfAbstract", in: model)
    let childB = try Self.entity("ChildBOfAbstract", in: model)
    #expect(abstract.isAbstract)
    #expect(!childA.isAbstract)
    #expect(abstract.superentity == nil)
    #expect(childA.superentity === abstract)
    #expect(Set(abstract.subentities.map(\.name)) == ["ChildAOfAbstract", "ChildBOfAbstract"])
    #expect(childA.ownProperties.map(\.name) == ["childAString", "autoRepairForA"])
    #expect(childA.properties.map(\.name) == ["abstractString", "childAString", "autoRepairForA"])
    #expect(childB.isKind(of: abstract))
    #expect(childB.attributesByName["abstractString"] != nil)

    let moody = try NSManagedObjectModel(
      loadingContentsOf: Self.fixture("objcio__core-data__Moody.xcdatamodeld/Moody.xcdatamodel"))
    let region = try Self.entity("Region", in: moody)
    #expect(region.isAbstract)
    #expect(region.representedClassName == ".Region")
    #expect(!region.subentities.isEmpty)
  }

  @Test("delete rules are read as written, in every fixture", .needsFixtures)
  func deleteRules() throws {
    let root = try Self.fixturesFolder()
    let enumerator = try #require(FileManager.default.enumerator(atPath: root.path))
    var seen: Set<String> = []
    while let path = enumerator.nextObject() as? String {
      guard path.hasSuffix(".xcdatamodel/contents") else { continue }
      let contents = root.appendingPathComponent(path)
      let model = try NSManagedObjectModel(loadingContentsOf: contents.deletingLastPathComponent())
      let text = try String(contentsOf: contents, encoding: .utf8)
      for block in text.components(separatedBy: "<entity ").dropFirst() {
        let entityName = try #require(Self.quotedValue(of: "name", in: " " + block))
        let entity = try Self.entity(entityName, in: model)
        let body = block.components(separatedBy: "</entity>").first ?? ""
        for tag in body.components(separatedBy: "<relationship ").dropFirst() {
          let name = try #require(Self.quotedValue(of: "name", in: " " + tag))
          let written = try #require(Self.quotedValue(of: "deletionRule", in: tag))
          seen.insert(written)
          let expected: NSDeleteRule? =
            switch written {
            case "Nullify": .nullifyDeleteRule
            case "Cascade": .cascadeDeleteRule
            case "Deny": .denyDeleteRule
            case "No Action": .noActionDeleteRule
            default: nil
            }
          #expect(
            try Self.relationship(name, of: entity).deleteRule == expected, "\(path): \(entityName).\(name)")
        }
      }
    }
    // The fixtures hold Nullify, Cascade and Deny; "No Action" is in none of them (see `noActionDeleteRule`).
    #expect(seen.isSuperset(of: ["Nullify", "Cascade", "Deny"]), "delete rules found: \(seen.sorted())")

    let moody = try NSManagedObjectModel(
      loadingContentsOf: Self.fixture("objcio__core-data__Moody.xcdatamodeld/Moody.xcdatamodel"))
    #expect(try Self.relationship("countries", of: Self.entity("Continent", in: moody)).deleteRule == .denyDeleteRule)
    let example = try NSManagedObjectModel(
      loadingContentsOf: Self.fixture("ChristianKienle__Core-Data-Editor__iOS_Example.xcdatamodel"))
    #expect(
      try Self.relationship("autoRepairForA", of: Self.entity("ChildAOfAbstract", in: example)).deleteRule == .cascadeDeleteRule)
    #expect(try Self.relationship("members", of: Self.entity("Committee", in: example)).deleteRule == .nullifyDeleteRule)
  }

  @Test("the No Action delete rule, which no fixture uses")
  func noActionDeleteRule() throws {
    let folder = try TemporaryFolder()
    let url = try folder.writeModel(
      named: "NoAction",
      body: """
        <entity name="A"><relationship name="b" optional="YES" maxCount="1" deletionRule="No Action" \
        destinationEntity="B" inverseName="a" inverseEntity="B"/></entity>
        <entity name="B"><relationship name="a" optional="YES" toMany="YES" deletionRule="Nullify" \
        destinationEntity="A" inverseName="b" inverseEntity="A"/></entity>
        """)
    let model = try NSManagedObjectModel(loadingContentsOf: url)
    let b = try Self.relationship("b", of: Self.entity("A", in: model))
    #expect(b.deleteRule == .noActionDeleteRule)
    #expect(!b.isToMany)
    #expect(b.inverseRelationship === (try Self.relationship("a", of: Self.entity("B", in: model))))
  }

  @Test("relationship shape: to-many, ordered, counts, optionality", .needsFixtures)
  func relationshipShape() throws {
    let model = try NSManagedObjectModel(
      loadingContentsOf: Self.fixture("ChristianKienle__Core-Data-Editor__iOS_Example.xcdatamodel"))
    let persons = try Self.relationship("persons", of: Self.entity("ChildBOfAbstract", in: model))
    #expect(persons.isToMany)
    #expect(persons.isOrdered)
    #expect(!persons.isOptional)
    #expect(persons.minCount == 3)
    #expect(persons.maxCount == 10)
    #expect(persons.destinationEntityName == "Person")
    #expect(persons.inverseRelationship?.name == "childB")
    let repair = try Self.relationship("autoRepairForA", of: Self.entity("ChildAOfAbstract", in: model))
    #expect(!repair.isToMany)
    #expect(!repair.isOptional)
    let house = try Self.relationship("house", of: Self.entity("Person", in: model))
    #expect(house.isOptional)
    #expect(!house.isOrdered)
  }

  @Test("transformable attributes load and are supported; composite ones load, described but not supported", .needsFixtures)
  func unsupportedTypes() throws {
    let demo = try NSManagedObjectModel(
      loadingContentsOf: Self.fixture("hstdt__AppleSamples__CoreDataCloudKitDemo.xcdatamodeld"))
    let thumbnail = try Self.attribute("thumbnail", of: Self.entity("Attachment", in: demo))
    #expect(thumbnail.attributeType == .transformableAttributeType)
    #expect(thumbnail.isSupportedAtRunTime)
    #expect(thumbnail.isTransient)
    // Xcode's editor writes the constant's name; Core Data reports the constant's value, the secure
    // unarchiving transformer's name.
    #expect(AttributeValueTransformer.valueTransformer(forName: thumbnail.valueTransformerName) is SecureUnarchiveFromDataTransformer)
    #expect(thumbnail.valueTransformerName == "NSSecureUnarchiveFromData")
    #expect(thumbnail.attributeValueClassName == "UIKit.UIImage")
    #expect(!thumbnail.allowsCloudEncryption)
    let location = try Self.attribute("location", of: Self.entity("Post", in: demo))
    #expect(location.valueTransformerName == "SecureCLLocationTransformer")
    #expect(location.attributeValueClassName == "CoreLocation.CLLocation")
    #expect(location.allowsCloudEncryption)

    let mom = try NSManagedObjectModel(loadingContentsOf: Self.fixture("phimage__MomXML__Model.xcdatamodeld"))
    let produit = try Self.entity("Produit", in: mom)
    let composite = try Self.attribute("attribute1", of: produit)
    #expect(composite.attributeType == .compositeAttributeType)
    #expect(composite.isSupportedAtRunTime == false)
    // The composite's own fields (`one`, `two`, `three`) are not properties of the entity.
    #expect(produit.attributesByName["one"] == nil)
  }

  @Test("Allows External Storage is read, and the value sits in its row with Core Data's in-row tag", .needsFixtures, .temporaryFolders)
  func externalStorage() throws {
    let demo = try NSManagedObjectModel(
      loadingContentsOf: Self.fixture("hstdt__AppleSamples__CoreDataCloudKitDemo.xcdatamodeld"))
    let entity = try Self.entity("ImageData", in: demo)
    #expect(try Self.attribute("data", of: entity).allowsExternalBinaryDataStorage)
    let folder = try TemporaryFolder()
    let url = folder.appending("Demo.sqlite")
    let context = try StoreStack(model: demo, at: url).context
    let bytes = Data((0..<200_000).map { UInt8(truncatingIfNeeded: $0) })
    try context.performAndWait {
      NSManagedObject(entity: entity, insertInto: context).setValue(bytes, forKey: "data")
      try context.save()
    }
    #expect(try rawRows(url, "SELECT ZDATA FROM ZIMAGEDATA").first?["ZDATA"] as Data? == Data([1]) + bytes)
    // Nothing beside the store: the engine keeps every value in its row, so it makes no external data folder.
    let beside = try FileManager.default.contentsOfDirectory(atPath: folder.url.path).filter { !$0.hasPrefix("Demo.sqlite") }
    #expect(beside.isEmpty)
  }

  @Test("attributes with no attributeType load as undefined")
  func undefinedAttributeType() throws {
    let folder = try TemporaryFolder()
    let url = try folder.writeModel(
      named: "Untyped", body: #"<entity name="E"><attribute name="scratch" optional="YES" transient="YES"/></entity>"#)
    let scratch = try Self.attribute("scratch", of: Self.entity("E", in: NSManagedObjectModel(loadingContentsOf: url)))
    #expect(scratch.attributeType == .undefinedAttributeType)
    #expect(scratch.isTransient)
    #expect(!scratch.isSupportedAtRunTime)
  }

  @Test("derived attributes keep their expression", .needsFixtures)
  func derivedAttribute() throws {
    let demo = try NSManagedObjectModel(
      loadingContentsOf: Self.fixture("hstdt__AppleSamples__CoreDataCloudKitDemo.xcdatamodeld"))
    let postCount = try Self.attribute("postCount", of: Self.entity("Tag", in: demo))
    let derived = try #require(postCount as? NSDerivedAttributeDescription, "a derived attribute is Core Data's class")
    #expect(derived.derivationExpression?.description == "posts.@count")
    #expect(derived.derivationExpression == NSExpression(forKeyPath: "posts.@count"))
    #expect(postCount.attributeType == .integer64AttributeType)
    #expect(postCount.isSupportedAtRunTime)  // computed at save (DerivedAttributeTests)
    #expect(try !(Self.attribute("name", of: Self.entity("Tag", in: demo)) is NSDerivedAttributeDescription))
  }

  @Test("renaming identifiers come from elementID", .needsFixtures)
  func renamingIdentifiers() throws {
    let loop = try NSManagedObjectModel(
      loadingContentsOf: Self.fixture("LoopKit__LoopKit__Model.xcdatamodeld/Modelv4.xcdatamodel"))
    let carbs = try Self.entity("CachedCarbObject", in: loop)
    #expect(try Self.attribute("anchorKey", of: carbs).renamingIdentifier == "modificationCounter")
    #expect(try Self.attribute("grams", of: carbs).renamingIdentifier == nil)

    let sample2 = try NSManagedObjectModel(
      loadingContentsOf: Self.fixture("alemar11__CoreDataPlus__SampleModel.xcdatamodeld/SampleModel2.xcdatamodel"))
    let luxury = try Self.entity("LuxuryCar", in: sample2)
    #expect(luxury.renamingIdentifier == "ExpensiveSportCar")
    #expect(luxury.superentity?.entityName == "SportCar")

    let moody6 = try NSManagedObjectModel(
      loadingContentsOf: Self.fixture("objcio__core-data__Moody.xcdatamodeld/Moody 6.xcdatamodel"))
    #expect(try Self.uniqueAttribute("remoteID", in: moody6).renamingIdentifier == "remoteIdentifier")
  }

  @Test("fetched properties and fetch request templates", .needsFixtures)
  func fetchedPropertiesAndTemplates() throws {
    let colors = try NSManagedObjectModel(
      loadingContentsOf: Self.fixture("JohnEstropia__CoreStore__Classic.ColorsDemo.xcdatamodeld"))
    let palette = try Self.entity("Palette", in: colors)
    #expect(palette.fetchedProperties.map(\.name) == ["testFetchProperty"])
    #expect(palette.fetchedProperties.first?.destinationEntityName == "Palette")
    #expect(palette.fetchedProperties.first?.predicateFormat == nil)
    #expect(palette.ownProperties.count == 4)

    let test = try NSManagedObjectModel(loadingContentsOf: Self.fixture("rentzsch__mogenerator__test.xcdatamodel"))
    #expect(
      test.fetchRequestTemplates.map(\.name) == [
        "allHumans", "byHumanName", "byParent", "byParentName", "oneByHumanName",
      ])
    let byHumanName = try #require(test.fetchRequestTemplates.first { $0.name == "byHumanName" })
    #expect(byHumanName.entityName == "Human")
    #expect(byHumanName.predicateFormat == "humanName == $humanName")
    #expect(test.fetchRequestTemplates.first?.predicateFormat == nil)

    let contacts = try NSManagedObjectModel(loadingContentsOf: Self.fixture("ZeeQL__ZeeQL3__Contacts.xcdatamodel"))
    let ducks = try #require(contacts.fetchRequestTemplates.first)
    #expect(ducks.name == "fetchTheDucks")
    #expect(ducks.predicateFormat == #"lastName LIKE "Duck*""#)
  }

  @Test("configurations", .needsFixtures)
  func configurations() throws {
    let model = try NSManagedObjectModel(loadingContentsOf: Self.fixture("JohnEstropia__CoreStore__Model.xcdatamodeld"))
    #expect(model.configurations == ["Config1", "Config2"])
    #expect(model.entities(forConfigurationName: "Config1")?.map(\.name) == ["TestEntity1AAA"])
    #expect(model.entities(forConfigurationName: "Config2")?.map(\.name) == ["TestEntity2"])
    #expect(model.entities(forConfigurationName: nil)?.count == 2)
    #expect(try Self.entity("TestEntity1AAA", in: model).representedClassName == ".TestEntity1")
  }

  @Test("default values have their attribute type's Swift type", .needsFixtures)
  func defaultValues() throws {
    let example = try NSManagedObjectModel(
      loadingContentsOf: Self.fixture("ChristianKienle__Core-Data-Editor__iOS_Example.xcdatamodel"))
    let detail = try Self.entity("PersonDetail", in: example)
    #expect(try Self.attribute("integer16Attribute", of: detail).defaultValue as? Int16 == 0)
    #expect(try Self.attribute("integer32Attribute", of: detail).defaultValue as? Int32 == 0)
    #expect(try Self.attribute("integer64Attribute", of: detail).defaultValue as? Int64 == 0)
    #expect(try Self.attribute("doubleAttribute", of: detail).defaultValue as? Double == 0)
    #expect(try Self.attribute("floatAttribute", of: detail).defaultValue as? Float == 0)
    #expect(try Self.attribute("decimalAttribute", of: detail).defaultValue as? Decimal == 0)
    #expect(try Self.attribute("stringAttribute", of: detail).defaultValue == nil)
    #expect(try Self.attribute("dateAttribute", of: detail).defaultValue == nil)

    let magical = try NSManagedObjectModel(
      loadingContentsOf: Self.fixture("magicalpanda__MagicalRecord__TestModel.xcdatamodeld"))
    #expect(try Self.uniqueAttribute("nullTestAttribute", in: magical).defaultValue as? Int64 == 100)
    #expect(
      try Self.uniqueAttribute("notInJsonAttribute", in: magical).defaultValue as? String
        == "Set From Core Data Model Editor")
    #expect(try Self.uniqueAttribute("floatTestAttribute", in: magical).defaultValue as? Float == 0)

    let evolution2 = try NSManagedObjectModel(
      loadingContentsOf: Self.fixture(
        "JohnEstropia__CoreStore__Advanced.EvolutionDemo.V1.xcdatamodeld/Advanced.EvolutionDemo.V2.xcdatamodel"))
    let creature = try Self.entity("Creature", in: evolution2)
    #expect(try Self.attribute("hasHead", of: creature).defaultValue as? Bool == true)
    #expect(try Self.attribute("numberOfFlippers", of: creature).defaultValue as? Int32 == 2)
    #expect(try Self.attribute("hasHead", of: creature).isOptional == false)

    let sample = try NSManagedObjectModel(
      loadingContentsOf: Self.fixture("alemar11__CoreDataPlus__SampleModel.xcdatamodeld/SampleModel.xcdatamodel"))
    #expect(try Self.uniqueAttribute("isDriving", in: sample).defaultValue as? Bool == false)

    // Xcode kept "0.0" as an Integer 16 default; it is still the Int16 0.
    let loop = try NSManagedObjectModel(
      loadingContentsOf: Self.fixture("LoopKit__LoopKit__Model.xcdatamodeld/Modelv4.xcdatamodel"))
    let delivery = try Self.entity("CachedInsulinDeliveryObject", in: loop)
    #expect(try Self.attribute("insulinType", of: delivery).defaultValue as? Int16 == 0)
    let provenance = try Self.attribute("provenanceIdentifier", of: Self.entity("CachedCarbObject", in: loop))
    #expect(provenance.defaultValue as? String == "")
  }

  @Test("default values of the types no fixture gives one: Date, UUID, URI")
  func moreDefaultValues() throws {
    let folder = try TemporaryFolder()
    let url = try folder.writeModel(
      named: "Defaults",
      body: """
        <entity name="E">
          <attribute name="when" attributeType="Date" defaultDateTimeInterval="86400"/>
          <attribute name="whenString" attributeType="Date" defaultValueString="60"/>
          <attribute name="id" attributeType="UUID" defaultValueString="E621E1F8-C36C-495A-93FC-0C247A3E6E5F"/>
          <attribute name="link" attributeType="URI" defaultValueString="https://example.com/a"/>
          <attribute name="price" attributeType="Decimal" defaultValueString="12.50"/>
          <attribute name="flag" attributeType="Boolean" defaultValueString="YES"/>
        </entity>
        """)
    let entity = try Self.entity("E", in: NSManagedObjectModel(loadingContentsOf: url))
    #expect(try Self.attribute("when", of: entity).defaultValue as? Date == Date(timeIntervalSinceReferenceDate: 86400))
    #expect(
      try Self.attribute("whenString", of: entity).defaultValue as? Date == Date(timeIntervalSinceReferenceDate: 60))
    #expect(
      try Self.attribute("id", of: entity).defaultValue as? UUID
        == UUID(uuidString: "E621E1F8-C36C-495A-93FC-0C247A3E6E5F"))
    #expect(try Self.attribute("link", of: entity).defaultValue as? URL == URL(string: "https://example.com/a"))
    #expect(try Self.attribute("price", of: entity).defaultValue as? Decimal == Decimal(string: "12.50"))
    #expect(try Self.attribute("flag", of: entity).defaultValue as? Bool == true)
    #expect(try Self.attribute("flag", of: entity).isOptional == false)
  }

  @Test("user info, uniqueness constraints and version identifiers", .needsFixtures)
  func userInfoAndConstraints() throws {
    let test = try NSManagedObjectModel(loadingContentsOf: Self.fixture("rentzsch__mogenerator__test.xcdatamodel"))
    let human = try Self.entity("Human", in: test)
    #expect(human.userInfo == ["additionalHeaderFileName": "Gender.h", "key with.dots...": #"value with "quotes""#])
    #expect(try Self.attribute("age", of: human).userInfo == ["mogenerator.readonly": "true"])
    #expect(test.versionIdentifiers.isEmpty)

    let contacts = try NSManagedObjectModel(loadingContentsOf: Self.fixture("ZeeQL__ZeeQL3__Contacts.xcdatamodel"))
    let addresses = try Self.relationship("addresses", of: Self.entity("Person", in: contacts))
    #expect(addresses.userInfo == ["extraInfo": "doIt"])
    #expect(addresses.maxCount == 20)

    let unique = try NSManagedObjectModel(
      loadingContentsOf: Self.fixture("bignerdranch__CoreDataStack__UniqueConstraintModel.xcdatamodeld"))
    #expect(try Self.entity("Book", in: unique).uniquenessConstraints == [["title"]])
    #expect(try Self.entity("Author", in: unique).uniquenessConstraints.isEmpty)
  }

  // MARK: - 4. Failures

  @Test("a missing path is modelInvalid naming the path")
  func missingPath() throws {
    let folder = try TemporaryFolder()
    let url = folder.url.appendingPathComponent("Nowhere.xcdatamodeld")
    try Self.expectModelInvalid(mentioning: ["Nowhere.xcdatamodeld"]) { _ = try NSManagedObjectModel(loadingContentsOf: url) }
    try Self.expectModelInvalid(mentioning: ["Nowhere.xcdatamodeld"]) { _ = try NSManagedObjectModel.versions(in: url) }
  }

  @Test("a .xcdatamodeld with no versions is modelInvalid")
  func noVersions() throws {
    let folder = try TemporaryFolder()
    let url = folder.url.appendingPathComponent("Empty.xcdatamodeld")
    try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
    try Self.expectModelInvalid(mentioning: ["Empty.xcdatamodeld", "no model version"]) {
      _ = try NSManagedObjectModel(loadingContentsOf: url)
    }
    try Self.expectModelInvalid(mentioning: ["Empty.xcdatamodeld"]) { _ = try NSManagedObjectModel.versions(in: url) }
  }

  @Test("a .xccurrentversion naming a missing version is modelInvalid")
  func currentVersionMissing() throws {
    let folder = try TemporaryFolder()
    let bundle = folder.url.appendingPathComponent("Stale.xcdatamodeld")
    try folder.writeVersion(in: bundle, named: "Stale", contents: Self.modelXML(#"<entity name="A"/>"#))
    try Data(
      """
      <?xml version="1.0" encoding="UTF-8"?>
      <!DOCTYPE plist PUBLIC "-//Apple//DTD PLIST 1.0//EN" "http://www.apple.com/DTDs/PropertyList-1.0.dtd">
      <plist version="1.0">
      <dict>
      \t<key>_XCCurrentVersionName</key>
      \t<string>Stale 9.xcdatamodel</string>
      </dict>
      </plist>
      """.utf8
    ).write(to: bundle.appendingPathComponent(".xccurrentversion"))
    let error = try Self.expectModelInvalid(mentioning: [
      ".xccurrentversion", "Stale 9.xcdatamodel", "Stale.xcdatamodeld",
    ]) {
      _ = try NSManagedObjectModel(loadingContentsOf: bundle)
    }
    #expect(error?.url?.lastPathComponent == ".xccurrentversion")
    // Listing the versions does not need the current one.
    #expect(try NSManagedObjectModel.versions(in: bundle).map(\.name) == ["Stale"])
  }

  @Test("malformed XML is modelInvalid naming the file and line")
  func malformedXML() throws {
    let folder = try TemporaryFolder()
    let url = folder.url.appendingPathComponent("Broken.xcdatamodel")
    try folder.write(
      """
      <?xml version="1.0" encoding="UTF-8" standalone="yes"?>
      <model type="com.apple.IDECoreDataModeler.DataModel">
          <entity name="A">
              <attribute name="x" attributeType="String"
      <<<<<<< HEAD
      </model>
      """, to: url.appendingPathComponent("contents"))
    let error = try Self.expectModelInvalid(mentioning: ["Broken.xcdatamodel", "line"]) {
      _ = try NSManagedObjectModel(loadingContentsOf: url)
    }
    #expect(error?.url?.lastPathComponent == "contents")
  }

  @Test("a truncated file is modelInvalid")
  func truncatedXML() throws {
    let folder = try TemporaryFolder()
    let url = folder.url.appendingPathComponent("Cut.xcdatamodel")
    try folder.write(#"<model type="x"><entity name="A">"#, to: url.appendingPathComponent("contents"))
    try Self.expectModelInvalid(mentioning: ["Cut.xcdatamodel", "XML"]) { _ = try NSManagedObjectModel(loadingContentsOf: url) }
  }

  @Test("an unknown attributeType is modelInvalid naming the entity and attribute")
  func unknownAttributeType() throws {
    let folder = try TemporaryFolder()
    let url = try folder.writeModel(
      named: "Typo", body: #"<entity name="Note"><attribute name="title" attributeType="Strng"/></entity>"#)
    try Self.expectModelInvalid(mentioning: ["Typo.xcdatamodel", "Note.title", "Strng", "line"]) {
      _ = try NSManagedObjectModel(loadingContentsOf: url)
    }
  }

  @Test("a relationship to a missing entity is modelInvalid naming the file")
  func relationshipToMissingEntity() throws {
    let folder = try TemporaryFolder()
    let url = try folder.writeModel(
      named: "Dangling",
      body: """
        <entity name="Note"><relationship name="folder" optional="YES" maxCount="1" deletionRule="Nullify" \
        destinationEntity="Ghost"/></entity>
        """)
    try Self.expectModelInvalid(mentioning: ["Dangling.xcdatamodel", "Ghost", "Note"]) {
      _ = try NSManagedObjectModel(loadingContentsOf: url)
    }
  }

  @Test("an unknown deletionRule is modelInvalid")
  func unknownDeleteRule() throws {
    let folder = try TemporaryFolder()
    let url = try folder.writeModel(
      named: "Rules",
      body: #"<entity name="A"><relationship name="a" deletionRule="Explode" destinationEntity="A"/></entity>"#)
    try Self.expectModelInvalid(mentioning: ["Rules.xcdatamodel", "A.a", "Explode"]) {
      _ = try NSManagedObjectModel(loadingContentsOf: url)
    }
  }

  @Test("an unparseable default value is modelInvalid naming entity, attribute and value")
  func badDefaultValue() throws {
    let folder = try TemporaryFolder()
    let url = try folder.writeModel(
      named: "Defaults",
      body: """
        <entity name="Counter"><attribute name="count" attributeType="Integer 16" defaultValueString="40000"/>\
        </entity>
        """)
    try Self.expectModelInvalid(mentioning: ["Defaults.xcdatamodel", "Counter.count", "40000"]) {
      _ = try NSManagedObjectModel(loadingContentsOf: url)
    }
  }

  @Test("a version folder without its contents file is modelInvalid")
  func missingContents() throws {
    let folder = try TemporaryFolder()
    let url = folder.url.appendingPathComponent("Hollow.xcdatamodeld/Hollow.xcdatamodel")
    try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
    try Self.expectModelInvalid(mentioning: ["Hollow.xcdatamodel", "contents"]) {
      _ = try NSManagedObjectModel(loadingContentsOf: url.deletingLastPathComponent())
    }
  }

  @Test("a missing parent entity is modelInvalid")
  func missingParentEntity() throws {
    let folder = try TemporaryFolder()
    let url = try folder.writeModel(named: "Orphan", body: #"<entity name="Child" parentEntity="Parent"/>"#)
    try Self.expectModelInvalid(mentioning: ["Orphan.xcdatamodel", "Child", "Parent"]) {
      _ = try NSManagedObjectModel(loadingContentsOf: url)
    }
  }

  // MARK: - Helpers for synthetic models

  /// Runs `body`, expecting an ``ObjectGraphError`` with code `.modelInvalid` whose message contains every
  /// fragment.
  @discardableResult
  private static func expectModelInvalid(
    mentioning fragments: [String], sourceLocation: SourceLocation = #_sourceLocation, _ body: () throws -> Void
  ) throws -> ObjectGraphError? {
    let error = #expect(throws: ObjectGraphError.self, sourceLocation: sourceLocation) { try body() }
    guard let error else { return nil }
    #expect(error.code == .modelInvalid, "code of: \(error.message)", sourceLocation: sourceLocation)
    for fragment in fragments {
      #expect(
        error.message.contains(fragment), "message lacks '\(fragment)': \(error.message)",
        sourceLocation: sourceLocation)
    }
    return error
  }

  fileprivate static func modelXML(_ body: String, identifier: String = "") -> String {
    """
    <?xml version="1.0" encoding="UTF-8" standalone="yes"?>
    <model type="com.apple.IDECoreDataModeler.DataModel" documentVersion="1.0" \
    userDefinedModelVersionIdentifier="\(identifier)">
    \(body)
    </model>
    """
  }
}

/// Writing Xcode model files into a test's folder.
extension TemporaryFolder {
  func write(_ text: String, to file: URL) throws {
    try FileManager.default.createDirectory(
      at: file.deletingLastPathComponent(), withIntermediateDirectories: true)
    try Data(text.utf8).write(to: file)
  }

  /// Writes `<name>.xcdatamodel/contents` holding a model with `body`, and returns the `.xcdatamodel` folder.
  func writeModel(named name: String, body: String) throws -> URL {
    let model = url.appendingPathComponent("\(name).xcdatamodel", isDirectory: true)
    try write(XcodeModelLoaderTests.modelXML(body), to: model.appendingPathComponent("contents"))
    return model
  }

  func writeVersion(in bundle: URL, named name: String, contents: String) throws {
    try write(contents, to: bundle.appendingPathComponent("\(name).xcdatamodel/contents"))
  }
}
