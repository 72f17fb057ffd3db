import EngineTestSupport
import Foundation
import GRDB
import TestSupport
import Testing

@testable import ObjectGraph

/// The migration manager's remaining API: the keys naming a value expression's variables (`$destination`,
/// `$entityMapping`, `$propertyMapping` beside `$source`, `$manager`, `$entityPolicy`), `reset()` and
/// `usesStoreSpecificMigrationManager`.
@Suite("Migration manager: expression variables, reset, store-specific manager", .temporaryFolders)
struct MigrationManagerKeysTests {
  typealias M = MigrationTests
  typealias Trips = TripsFixture

  @Test("each key is the name of its variable in a value expression")
  func keysNameTheVariables() {
    #expect(NSMigrationManagerKey == "manager")
    #expect(NSMigrationSourceObjectKey == "source")
    #expect(NSMigrationDestinationObjectKey == "destination")
    #expect(NSMigrationEntityMappingKey == "entityMapping")
    #expect(NSMigrationPropertyMappingKey == "propertyMapping")
    #expect(NSMigrationEntityPolicyKey == "entityPolicy")
    for key in [
      NSMigrationManagerKey, NSMigrationSourceObjectKey, NSMigrationDestinationObjectKey, NSMigrationEntityMappingKey,
      NSMigrationPropertyMappingKey, NSMigrationEntityPolicyKey,
    ] {
      #expect(MappingVariable(rawValue: key) != nil, "\(key)")
    }
  }

  /// Version 1 with three new attributes on Note, filled by expressions on the new variables.
  static func version2() throws -> NSManagedObjectModel {
    try M.version1(extraNoteProperties: [M.attribute("summary"), M.attribute("mappingName"), M.attribute("propertyName")])
  }

  /// The inferred mapping with NoteToNote's new attributes given `expressions` (property name → expression).
  static func mapping(_ expressions: [String: String]) throws -> NSMappingModel {
    let mapping = try NSMappingModel.inferredMappingModel(forSourceModel: try M.version1(), destinationModel: try version2())
    let note = try #require(mapping.entityMappingsByName["NoteToNote"])
    note.attributeMappings.removeAll { expressions[$0.name] != nil }
    note.attributeMappings += expressions.sorted { $0.key < $1.key }.map { NSPropertyMapping(name: $0.key, valueExpression: $0.value) }
    return mapping
  }

  @Test("$destination, $entityMapping and $propertyMapping mean what Apple documents; reset() forgets the associations")
  func variablesInExpressions() throws {
    let folder = try TemporaryFolder()
    let storeURL = folder.appending("Store.sqlite")
    let migratedURL = folder.appending("Migrated.sqlite")
    try M.writeStore(try M.version1(), at: storeURL, notes: 6)
    let manager = NSMigrationManager(sourceModel: try M.version1(), destinationModel: try Self.version2())
    #expect(manager.usesStoreSpecificMigrationManager)
    manager.usesStoreSpecificMigrationManager = false
    try manager.migrateStore(
      from: storeURL, type: .sqlite,
      mapping: Self.mapping([
        // Apple's variables: the destination instance as filled so far (its title, mapped first), the entity
        // mapping, the property mapping.
        "summary": "$destination.title", "mappingName": "$entityMapping.name", "propertyName": "$propertyMapping.name",
      ]), to: migratedURL, type: .sqlite)
    #expect(manager.migrationProgress == 1)
    let context = try StoreStack(model: try Self.version2(), at: migratedURL, options: StoreStack.migratingOptions).context
    let notes = try M.fetch("Note", in: context, sortedBy: "rating")
    let values = context.performAndWait {
      notes.map { note in
        ["title", "summary", "mappingName", "propertyName"].map { note.value(forKey: $0) as? String ?? "nil" }
      }
    }
    #expect(values.count == 6)
    #expect(values.allSatisfy { $0[1] == $0[0] && $0[2] == "NoteToNote" && $0[3] == "propertyName" }, "\(values)")

    // The associations of the run, then none after reset(); the contexts are kept.
    #expect(manager.destinationInstances(forEntityMappingName: "NoteToNote", sourceInstances: nil).count == 6)
    #expect(manager.sourceInstances(forEntityMappingName: "NotebookToNotebook", destinationInstances: nil).count == 3)
    let contexts = (manager.sourceContext, manager.destinationContext)
    manager.reset()
    #expect(manager.destinationInstances(forEntityMappingName: "NoteToNote", sourceInstances: nil).isEmpty)
    #expect(manager.sourceInstances(forEntityMappingName: "NotebookToNotebook", destinationInstances: nil).isEmpty)
    #expect(manager.sourceContext === contexts.0)
    #expect(manager.destinationContext === contexts.1)
  }

  @Test("init?(fromBundles:forSourceModel:destinationModel:) finds what init?(from:…) finds, and nothing the other way")
  func fromBundles() throws {
    let folder = try TemporaryFolder()
    let xcdatamodeld = try Trips.bundle(in: folder)
    let bundle = try #require(Bundle(path: folder.url.path))
    let v1 = try Trips.version("Trips", in: xcdatamodeld)
    let v2 = try Trips.version("Trips 2", in: xcdatamodeld)
    let found = try #require(NSMappingModel(fromBundles: [bundle], forSourceModel: v1, destinationModel: v2))
    #expect(found == NSMappingModel(from: [bundle], forSourceModel: v1, destinationModel: v2))
    #expect(found.entityMappings.map(\.name) == ["TravellerToPerson", "CountryToPlace", "MoodToMood", "ContinentToContinent"])
    #expect(NSMappingModel(fromBundles: [bundle], forSourceModel: v2, destinationModel: v1) == nil)
    #expect(NSMappingModel(fromBundles: [bundle], forSourceModel: v1, destinationModel: nil) == nil)
  }

  @Test("a key of $entityMapping the engine does not read is refused before anything is written (134110)")
  func unknownMappingKeyIsRefused() throws {
    let folder = try TemporaryFolder()
    let storeURL = folder.appending("Store.sqlite")
    let migratedURL = folder.appending("Migrated.sqlite")
    try M.writeStore(try M.version1(), at: storeURL, notes: 3)
    let manager = NSMigrationManager(sourceModel: try M.version1(), destinationModel: try Self.version2())
    let error = expectCode(.migration) {
      try manager.migrateStore(
        from: storeURL, type: .sqlite, mapping: Self.mapping(["mappingName": "$entityMapping.userInfo"]), to: migratedURL, type: .sqlite)
    }
    #expect(error?.message.contains("$entityMapping") == true)
    #expect(!FileManager.default.fileExists(atPath: migratedURL.path))
  }
}
