import Foundation
import GRDB
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
    let versions = try ManagedObjectModel.versions(in: folder.appendingPathComponent("SampleModel.xcdatamodeld"))
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
        try ManagedObjectModel.versions(in: folder.appendingPathComponent(fixture.model)).first { $0.name == fixture.version }?.model)
      let stored = try Self.storedHashes(folder.appendingPathComponent(fixture.store))
      #expect(model.entityVersionHashesByName == stored, "\(fixture.store): \(Self.differences(model.entityVersionHashesByName, stored))")
      #expect(model.hashMatch(configuration: nil, metadata: [StoreMetadataKey.versionHashes: stored]) == .coreData)
    }
  }

  @Test("Each input Apple documents changes an entity's hash; what it leaves out does not")
  func inputs() throws {
    func hash(_ change: (EntityDescription, AttributeDescription, RelationshipDescription) -> Void) throws -> Data {
      let title = AttributeDescription(name: "title", type: .string)
      let owner = RelationshipDescription(name: "owner", destination: "Owner", inverse: "items")
      let item = EntityDescription(name: "Item", properties: [.attribute(title), .relationship(owner)])
      let ownerEntity = EntityDescription(
        name: "Owner",
        properties: [.relationship(RelationshipDescription(name: "items", destination: "Item", inverse: "owner", toMany: true))])
      change(item, title, owner)
      return try ManagedObjectModel(entities: [item, ownerEntity]).entitiesByName["Item"]?.versionHash ?? Data()
    }
    let plain = try hash { _, _, _ in }
    #expect(plain.count == 32)
    let changes: [(String, (EntityDescription, AttributeDescription, RelationshipDescription) -> Void)] = [
      ("abstract", { entity, _, _ in entity.isAbstract = true }),
      ("entity modifier", { entity, _, _ in entity.versionHashModifier = "2" }),
      ("constraint", { entity, _, _ in entity.uniquenessConstraints = [["title"]] }),
      ("attribute type", { _, attribute, _ in attribute.attributeType = .uri }),
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
    let ignored: [(String, (EntityDescription, AttributeDescription, RelationshipDescription) -> Void)] = [
      ("renaming identifier", { _, attribute, _ in attribute.renamingIdentifier = "name" }),
      ("default value", { _, attribute, _ in attribute.defaultValue = "x" }),
      ("delete rule", { _, _, relationship in relationship.deleteRule = .cascade }),
      ("class name", { entity, _, _ in entity.representedClassName = "Thing" }),
      ("user info", { entity, _, _ in entity.userInfo = ["a": "b"] }),
      (
        "fetch index",
        { entity, _, _ in entity.indexes = [FetchIndexDescription(name: "byTitle", elements: [.init(propertyName: "title")])] }
      ),
    ]
    for (name, change) in ignored {
      #expect(try hash(change) == plain, "\(name) must not change the hash")
    }
  }

  static func storedHashes(_ url: URL) throws -> [String: Data] {
    var configuration = Configuration()
    configuration.readonly = true
    let folder = try TemporaryFolder()
    let copy = folder.appending(url.lastPathComponent)
    try FileManager.default.copyItem(at: url, to: copy)
    let plist = try DatabaseQueue(path: copy.path, configuration: configuration).read {
      try Data.fetchOne($0, sql: "SELECT Z_PLIST FROM Z_METADATA") ?? Data()
    }
    let metadata = try #require(try PropertyListSerialization.propertyList(from: plist, format: nil) as? [String: Any])
    return try #require(metadata["NSStoreModelVersionHashes"] as? [String: Data])
  }

  static func differences(_ mine: [String: Data], _ theirs: [String: Data]) -> String {
    Set(mine.keys).union(theirs.keys).sorted().filter { mine[$0] != theirs[$0] }.joined(separator: ", ")
  }
}
