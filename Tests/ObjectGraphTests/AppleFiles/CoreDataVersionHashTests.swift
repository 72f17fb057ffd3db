import EngineTestSupport
import Foundation
import GRDB
import SHA256
import TestSupport
import Testing

@testable import ObjectGraph

/// The engine's entity version hashes are Core Data's: compared with what Apple's tools wrote, in a compiled
/// model's `VersionInfo.plist` and in the metadata of stores Core Data made.
@Suite("Core Data's version hashes", .temporaryFolders)
struct CoreDataVersionHashTests {
  @Test("Every version of the compiled SampleModel hashes as VersionInfo.plist records", .needsFixtures)
  func versionInfoPlist() throws {
    let folder = try Fixtures.appleStores().appendingPathComponent("alemar11__CoreDataPlus__SampleModel")
    let plist = try Data(contentsOf: folder.appendingPathComponent("SampleModel.momd/VersionInfo.plist"))
    let info = try #require(try PropertyListSerialization.propertyList(from: plist, format: nil) as? [String: Any])
    let recorded = try #require(info["NSManagedObjectModel_VersionHashes"] as? [String: [String: Data]])
    let versions = try NSManagedObjectModel.versions(in: folder.appendingPathComponent("SampleModel.xcdatamodeld"))
    #expect(Set(recorded.keys) == Set(versions.map(\.name)))
    for (name, model) in versions {
      let expected = try #require(recorded[name])
      #expect(model.entityVersionHashesByName == expected, "\(name): \(Self.differences(model.entityVersionHashesByName, expected))")
    }
  }

  @Test("Every Apple-written store's metadata holds the hashes of the model version that made it", .needsFixtures)
  func storeMetadata() throws {
    let root = try Fixtures.appleStores()
    for fixture in Fixtures.appleStoreFiles {
      let folder = root.appendingPathComponent(fixture.folder)
      let model = try #require(
        try NSManagedObjectModel.versions(in: folder.appendingPathComponent(fixture.model)).first { $0.name == fixture.version }?.model)
      let stored = try Self.storedHashes(folder.appendingPathComponent(fixture.store))
      #expect(model.entityVersionHashesByName == stored, "\(fixture.store): \(Self.differences(model.entityVersionHashesByName, stored))")
      #expect(model.hashMatch(configuration: nil, metadata: [NSStoreModelVersionHashesKey: stored]) == .coreData)
    }
  }

  @Test(
    "The bookmarks store's hashes are BookmarksModel 2's (ordered to-manys, property modifiers): that version, and only it, matches",
    .needsFixtures)
  func bookmarksStore() throws {
    // Bookmarks_V2.sqlite (framework 1251) has no version identifier in its metadata: the version that made
    // it is the one whose hash is the store's. BookmarkEntity has two ordered to-manys (children, favorites),
    // and url and uuid carry the version hash modifier "2".
    let folder = try Fixtures.appleStores().appendingPathComponent("duckduckgo__BrowserServicesKit__Bookmarks")
    let metadata = try Self.storedMetadata(folder.appendingPathComponent("Bookmarks_V2.sqlite"))
    let stored = try #require(metadata["NSStoreModelVersionHashes"] as? [String: Data])
    let versions = try NSManagedObjectModel.versions(in: folder.appendingPathComponent("BookmarksModel.xcdatamodeld"))
    #expect(versions.count == 6)
    let version2 = try #require(versions.first { $0.name == "BookmarksModel 2" }?.model)
    #expect(version2.entityVersionHashesByName == stored, "\(Self.differences(version2.entityVersionHashesByName, stored))")
    // The version search (a migration's source, `objectgraph inspect --model`) picks exactly that version.
    let matching = versions.filter {
      $0.model.isConfiguration(withName: nil, compatibleWithStoreMetadata: [NSStoreModelVersionHashesKey: stored])
    }
    #expect(matching.map(\.name) == ["BookmarksModel 2"])
    #expect(version2.hashMatch(configuration: nil, metadata: [NSStoreModelVersionHashesKey: stored]) == .coreData)
    // The digest Core Data wrote beside the hashes is the engine's for the same hashes.
    let digest = StoreMetadata.hashKeys(version2.entityVersionHashesByName)[CoreDataMetadataKey.versionHashesDigest] as? String
    #expect(digest == metadata["NSStoreModelVersionHashesDigest"] as? String)
    // The bytes, input by input, as Docs/ObjectGraph.md writes them: the store's hash from this test's own
    // SHA-256 of the recipe, with the ordered to-manys' `01 00` and the modifiers inside the properties' bases.
    #expect(try Self.bookmarkEntityHash(orderedBytes: [1, 0], modifierInBase: true) == stored["BookmarkEntity"])
    #expect(try Self.bookmarkEntityHash(orderedBytes: [1], modifierInBase: true) != stored["BookmarkEntity"])
    #expect(try Self.bookmarkEntityHash(orderedBytes: [1, 0], modifierInBase: false) != stored["BookmarkEntity"])
  }

  @Test(
    "The stores of the later sets hash as the versions that made them (frameworks 479 and 1338: Decimal, Float, 16- and 32-bit integers, no inverse)",
    .needsFixtures)
  func laterStores() throws {
    let root = try Fixtures.appleStores()
    let stores: [(folder: String, model: String, version: String, store: String)] = [
      ("artsy__energy-legacy__ArtsyPartner", "ArtsyPartner.xcdatamodeld", "ArtsyFolio v1.5", "ArtsyPartner_1.6.sqlite"),
      ("artsy__energy-legacy__ArtsyPartner", "ArtsyPartner.xcdatamodeld", "ArtsyFolio v2.0", "ArtsyPartner_2.0.sqlite"),
      ("duckduckgo__BrowserServicesKit__SyncMetadata", "SyncMetadata.xcdatamodeld", "SyncMetadata 3", "SyncMetadata_V3.sqlite"),
    ]
    for fixture in stores {
      let folder = root.appendingPathComponent(fixture.folder)
      let versions = try NSManagedObjectModel.versions(in: folder.appendingPathComponent(fixture.model))
      let model = try #require(versions.first { $0.name == fixture.version }?.model)
      let stored = try Self.storedHashes(folder.appendingPathComponent(fixture.store))
      #expect(model.entityVersionHashesByName == stored, "\(fixture.store): \(Self.differences(model.entityVersionHashesByName, stored))")
    }
  }

  /// `BookmarkEntity` of BookmarksModel 2 hashed by hand: `orderedBytes` after an ordered to-many's counts,
  /// the modifier "2" of url and uuid inside the property's base or (`false`) after the attribute type.
  static func bookmarkEntityHash(orderedBytes: [UInt8], modifierInBase: Bool) throws -> Data {
    func int32(_ value: Int32) -> [UInt8] { withUnsafeBytes(of: value.littleEndian) { Array($0) } }
    func base(_ name: String, optional: Bool, modifier: String?) -> Data {
      SHA256.hash(Data(name.utf8) + [optional ? 1 : 0, 0] + Data((modifierInBase ? modifier ?? "" : "").utf8))
    }
    func attribute(_ name: String, optional: Bool, type: Int32, modifier: String? = nil) -> Data {
      SHA256.hash(base(name, optional: optional, modifier: modifier) + int32(type) + Data((modifierInBase ? "" : modifier ?? "").utf8))
    }
    func relationship(_ name: String, inverse: String, toMany: Bool, ordered: Bool) -> Data {
      SHA256.hash(
        base(name, optional: true, modifier: nil) + Data("BookmarkEntity".utf8) + Data(inverse.utf8) + int32(toMany ? 0 : 1)
          + int32(0) + (ordered ? orderedBytes : []))
    }
    // In the order of the properties' names; Boolean is 800, String 700.
    let properties = [
      relationship("children", inverse: "parent", toMany: true, ordered: true),
      relationship("favoriteFolder", inverse: "favorites", toMany: false, ordered: false),
      relationship("favorites", inverse: "favoriteFolder", toMany: true, ordered: true),
      attribute("isFavorite", optional: false, type: 800),
      attribute("isFolder", optional: false, type: 800),
      relationship("parent", inverse: "children", toMany: false, ordered: false),
      attribute("title", optional: true, type: 700),
      attribute("url", optional: true, type: 700, modifier: "2"),
      attribute("uuid", optional: false, type: 700, modifier: "2"),
    ]
    return SHA256.hash(properties.reduce(Data("BookmarkEntity".utf8) + [0], +))
  }

  @Test("A store made for a model with an ordered to-many and a modifier holds Core Data's hashes; each changes them")
  func orderedAndModifierInAStoreMadeHere() throws {
    func model(ordered: Bool, modifier: String?) throws -> NSManagedObjectModel {
      let folder = NSEntityDescription(
        name: "Folder",
        properties: [
          .attribute(NSAttributeDescription(name: "name", type: .string)),
          .relationship(
            Self.toMany("items", of: "Item", inverse: "folder", ordered: ordered)),
        ])
      let title = NSAttributeDescription(name: "title", type: .string)
      title.versionHashModifier = modifier
      let item = NSEntityDescription(
        name: "Item",
        properties: [.attribute(title), .relationship(NSRelationshipDescription(name: "folder", destination: "Folder", inverse: "items"))])
      return try NSManagedObjectModel(entities: [folder, item])
    }
    func int32(_ value: Int32) -> [UInt8] { withUnsafeBytes(of: value.littleEndian) { Array($0) } }
    // Folder: name (String 700, optional) and items (to-many of Item, inverse folder, ordered: 01 00).
    let nameHash = SHA256.hash(SHA256.hash(Data("name".utf8) + [1, 0]) + int32(700))
    let itemsHash = SHA256.hash(
      SHA256.hash(Data("items".utf8) + [1, 0]) + Data("Item".utf8) + Data("folder".utf8) + int32(0) + int32(0) + [1, 0])
    let expectedFolder = SHA256.hash(Data("Folder".utf8) + [0] + itemsHash + nameHash)
    // Item: folder (to-one) and title, whose modifier "v2" is inside its base.
    let folderHash = SHA256.hash(
      SHA256.hash(Data("folder".utf8) + [1, 0]) + Data("Folder".utf8) + Data("items".utf8) + int32(1) + int32(0))
    let titleHash = SHA256.hash(SHA256.hash(Data("title".utf8) + [1, 0] + Data("v2".utf8)) + int32(700))
    let expectedItem = SHA256.hash(Data("Item".utf8) + [0] + folderHash + titleHash)

    let stack = try StoreStack(model: try model(ordered: true, modifier: "v2"))
    try stack.context.performAndWait {
      let folder = NSManagedObject(entity: try #require(stack.model.entitiesByName["Folder"]), insertInto: stack.context)
      let item = NSManagedObject(entity: try #require(stack.model.entitiesByName["Item"]), insertInto: stack.context)
      item.setValue(folder, forKey: "folder")
      try stack.context.save()
    }
    let stored = try Self.storedHashes(stack.storeURL)
    #expect(stored == ["Folder": expectedFolder, "Item": expectedItem])
    // Each input makes another version: without the order or without the modifier, the store is not a match.
    for (ordered, modifier) in [(false, "v2"), (true, nil), (true, "v3")] as [(Bool, String?)] {
      let other = try model(ordered: ordered, modifier: modifier)
      #expect(!other.isConfiguration(withName: nil, compatibleWithStoreMetadata: [NSStoreModelVersionHashesKey: stored]))
    }
  }

  @Test("A store the engine wrote with its earlier guesses for the two inputs opens as it is, and read-write gets Core Data's hashes")
  func earlierGuessesAreRecognised() throws {
    let folder = NSEntityDescription(
      name: "Folder",
      properties: [
        .relationship(Self.toMany("items", of: "Item", inverse: "folder", ordered: true))
      ])
    let title = NSAttributeDescription(name: "title", type: .string)
    title.versionHashModifier = "2"
    let item = NSEntityDescription(
      name: "Item",
      properties: [.attribute(title), .relationship(NSRelationshipDescription(name: "folder", destination: "Folder", inverse: "items"))])
    let model = try NSManagedObjectModel(entities: [folder, item])
    let stack = try StoreStack(model: model)
    try stack.context.performAndWait {
      let item = NSManagedObject(entity: try #require(model.entitiesByName["Item"]), insertInto: stack.context)
      item.setValue("kept", forKey: "title")
      try stack.context.save()
    }
    try stack.coordinator.remove(try #require(stack.coordinator.persistentStores.first))
    // What the engine wrote before: the modifier after the attribute type, one byte 01 for the order.
    let earlier = Dictionary(uniqueKeysWithValues: model.entities.map { ($0.entityName, VersionHash.entity($0, recipe: .earlierGuesses)) })
    #expect(earlier["Folder"] != model.entitiesByName["Folder"]?.versionHash)
    #expect(earlier["Item"] != model.entitiesByName["Item"]?.versionHash)
    try DatabaseQueue(path: stack.storeURL.path).write { db in
      try StoreMetadata.update(in: db, with: StoreMetadata.hashKeys(earlier), url: stack.storeURL)
    }
    #expect(try Self.storedHashes(stack.storeURL) == earlier)

    let reader = NSPersistentStoreCoordinator(managedObjectModel: model)
    try reader.remove(
      try reader.addPersistentStore(
        type: .sqlite, at: stack.storeURL,
        options: [
          NSMigratePersistentStoresAutomaticallyOption: false, NSInferMappingModelAutomaticallyOption: true,
          NSReadOnlyPersistentStoreOption: true,
        ]))
    #expect(try Self.storedHashes(stack.storeURL) == earlier, "a read-only open writes nothing")
    let writer = NSPersistentStoreCoordinator(managedObjectModel: model)
    try writer.addPersistentStore(
      type: .sqlite, at: stack.storeURL,
      options: [NSMigratePersistentStoresAutomaticallyOption: false, NSInferMappingModelAutomaticallyOption: true])
    #expect(try Self.storedHashes(stack.storeURL) == model.entityVersionHashesByName)
    let context = NSManagedObjectContext(concurrencyType: .privateQueueConcurrencyType)
    context.persistentStoreCoordinator = writer
    let titles = try context.performAndWait {
      try context.fetch(NSFetchRequest<NSManagedObject>(entityName: "Item")).map { $0.value(forKey: "title") as? String }
    }
    #expect(titles == ["kept"])
  }

  @Test("Each input Apple documents changes an entity's hash; what it leaves out does not")
  func inputs() throws {
    func hash(_ change: (NSEntityDescription, NSAttributeDescription, NSRelationshipDescription) -> Void) throws -> Data {
      let title = NSAttributeDescription(name: "title", type: .string)
      let owner = NSRelationshipDescription(name: "owner", destination: "Owner", inverse: "items")
      let item = NSEntityDescription(name: "Item", properties: [.attribute(title), .relationship(owner)])
      let ownerEntity = NSEntityDescription(
        name: "Owner",
        properties: [.relationship(NSRelationshipDescription(name: "items", destination: "Item", inverse: "owner", toMany: true))])
      change(item, title, owner)
      return try NSManagedObjectModel(entities: [item, ownerEntity]).entitiesByName["Item"]?.versionHash ?? Data()
    }
    let plain = try hash { _, _, _ in }
    #expect(plain.count == 32)
    let changes: [(String, (NSEntityDescription, NSAttributeDescription, NSRelationshipDescription) -> Void)] = [
      ("abstract", { entity, _, _ in entity.isAbstract = true }),
      ("entity modifier", { entity, _, _ in entity.versionHashModifier = "2" }),
      ("constraint", { entity, _, _ in entity.uniquenessConstraints = [["title"]] }),
      ("attribute type", { _, attribute, _ in attribute.attributeType = .URIAttributeType }),
      ("optional", { _, attribute, _ in attribute.isOptional = false }),
      ("transient", { _, attribute, _ in attribute.isTransient = true }),
      ("preserve after deletion", { _, attribute, _ in attribute.preservesValueInHistoryOnDeletion = true }),
      ("attribute modifier", { _, attribute, _ in attribute.versionHashModifier = "b" }),
      ("relationship minimum", { _, _, relationship in relationship.minCount = 1 }),
      ("relationship modifier", { _, _, relationship in relationship.versionHashModifier = "c" }),
    ]
    var seen: Set<Data> = [plain]
    for (name, change) in changes {
      let changed = try hash(change)
      #expect(!seen.contains(changed), "\(name) must change the hash")
      seen.insert(changed)
    }
    let ignored: [(String, (NSEntityDescription, NSAttributeDescription, NSRelationshipDescription) -> Void)] = [
      ("renaming identifier", { _, attribute, _ in attribute.renamingIdentifier = "name" }),
      ("default value", { _, attribute, _ in attribute.defaultValue = "x" }),
      ("delete rule", { _, _, relationship in relationship.deleteRule = .cascadeDeleteRule }),
      ("class name", { entity, _, _ in entity.representedClassName = "Thing" }),
      ("user info", { entity, _, _ in entity.userInfo = ["a": "b"] }),
      (
        "fetch index",
        { entity, _, _ in entity.indexes = [NSFetchIndexDescription(name: "byTitle", elements: [.init(propertyName: "title")])] }
      ),
    ]
    for (name, change) in ignored {
      #expect(try hash(change) == plain, "\(name) must not change the hash")
    }
  }

  /// A to-many relationship, ordered or not.
  static func toMany(_ name: String, of destination: String, inverse: String, ordered: Bool) -> NSRelationshipDescription {
    let relationship = NSRelationshipDescription(name: name, destination: destination, inverse: inverse, toMany: true)
    relationship.isOrdered = ordered
    return relationship
  }

  static func storedHashes(_ url: URL) throws -> [String: Data] {
    try #require(try storedMetadata(url)["NSStoreModelVersionHashes"] as? [String: Data])
  }

  /// The property list of a store's `Z_METADATA`, read from a copy of the file and of its `-wal` and `-shm`
  /// when it has them (a WAL store's last transactions, the metadata's among them, may be only there).
  static func storedMetadata(_ url: URL) throws -> [String: Any] {
    var configuration = Configuration()
    configuration.readonly = true
    let folder = try TemporaryFolder()
    let copy = folder.appending(url.lastPathComponent)
    try copyStoreFiles(url, to: copy)
    let plist = try DatabaseQueue(path: copy.path, configuration: configuration).read {
      try Data.fetchOne($0, sql: "SELECT Z_PLIST FROM Z_METADATA") ?? Data()
    }
    return try #require(try PropertyListSerialization.propertyList(from: plist, format: nil) as? [String: Any])
  }

  static func differences(_ mine: [String: Data], _ theirs: [String: Data]) -> String {
    Set(mine.keys).union(theirs.keys).sorted().filter { mine[$0] != theirs[$0] }.joined(separator: ", ")
  }
}
