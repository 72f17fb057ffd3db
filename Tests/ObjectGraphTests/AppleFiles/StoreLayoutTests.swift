import EngineTestSupport
import Foundation
import GRDB
import TestSupport
import Testing

@testable import ObjectGraph

/// A store is read and written with the entity numbers and join-table names it has: Core Data numbers entities
/// in its own order (without regard to case) and numbers join-table columns so that none repeats in the store;
/// what the file lacks is an error, never an empty result (issue 34, "Files Core Data wrote").
@Suite("Entity numbers and join tables as the file has them", .temporaryFolders)
struct StoreLayoutTests {
  // MARK: - Entity numbers

  /// The SyncMetadata store (DuckDuckGo, framework 1338): Core Data numbered `SyncableSettingsMetadata` 1 and
  /// `SyncFeatureEntity` 2, the order of names without regard to case.
  @Test("Core Data's store numbered case-insensitively: every row reads, and an insert goes under its own entity's number", .needsFixtures)
  func syncMetadataStore() throws {
    let folder = try TemporaryFolder()
    let (url, model) = try Self.copy(
      folder: "duckduckgo__BrowserServicesKit__SyncMetadata", model: "SyncMetadata.xcdatamodeld", version: "SyncMetadata 3",
      store: "SyncMetadata_V3.sqlite", into: folder)
    let before = try AppleStoreTests.maxima(url)
    #expect(before == [1: 2, 2: 2])
    let coordinator = NSPersistentStoreCoordinator(managedObjectModel: model)
    let store = try coordinator.addPersistentStore(
      type: .sqlite, at: url, options: [NSMigratePersistentStoresAutomaticallyOption: false, NSInferMappingModelAutomaticallyOption: true])
    #expect(store.schema.entities["SyncableSettingsMetadata"]?.number == 1)
    #expect(store.schema.entities["SyncFeatureEntity"]?.number == 2)
    let context = NSManagedObjectContext(concurrencyType: .privateQueueConcurrencyType)
    context.persistentStoreCoordinator = coordinator
    try context.performAndWait {
      let features = try context.fetch(NSFetchRequest<NSManagedObject>(entityName: "SyncFeatureEntity"))
      #expect(Set(features.compactMap { $0.value(forKey: "name") as? String }) == ["TestFeature-01", "TestFeature-02"])
      let settings = try context.fetch(NSFetchRequest<NSManagedObject>(entityName: "SyncableSettingsMetadata"))
      #expect(Set(settings.compactMap { $0.value(forKey: "key") as? String }) == ["TestSetting-01", "TestSetting-02"])
      let feature = NSManagedObject(entity: try #require(model.entitiesByName["SyncFeatureEntity"]), insertInto: context)
      feature.setValue("FromLinux", forKey: "name")
      try context.save()
    }
    try coordinator.remove(store)
    // The new row is a SyncFeatureEntity (2) in its own table; only entity 2's counter moved.
    #expect(
      try rawRows(url, "SELECT Z_ENT, Z_PK FROM ZSYNCFEATUREENTITY WHERE ZNAME = 'FromLinux'").map { [$0[0] as Int64, $0[1]] } == [[2, 3]])
    #expect(try AppleStoreTests.maxima(url) == [1: 2, 2: 3])
    #expect(try rawRows(url, "SELECT count(*) FROM ZSYNCABLESETTINGSMETADATA")[0][0] as Int == 2)
  }

  @Test("A new store numbers entities as Core Data does: names without regard to case, subentities after their parent")
  func newStoreNumbering() throws {
    let folder = try TemporaryFolder()
    let model = try Self.caseModel()
    let url = folder.appending("New.sqlite")
    let coordinator = NSPersistentStoreCoordinator(managedObjectModel: model)
    try coordinator.remove(try coordinator.addPersistentStore(type: .sqlite, at: url))
    let rows = try rawRows(url, "SELECT Z_ENT, Z_NAME, Z_SUPER FROM Z_PRIMARYKEY ORDER BY Z_ENT").map {
      "\($0[0] as Int64) \($0[1] as String) \($0[2] as Int64)"
    }
    #expect(rows == ["1 alpha 0", "2 SyncableSettingsMetadata 0", "3 SyncFeatureEntity 0", "4 SyncFeatureChild 3", "5 syncFeatureLower 3"])
  }

  @Test("A store numbered in another order (the engine's byte order of before) is read and written with its own numbers")
  func storeWithOtherNumbering() throws {
    let folder = try TemporaryFolder()
    let model = try Self.caseModel()
    let url = folder.appending("Old.sqlite")
    try Self.makeStore(at: url, model: model)
    // What the engine wrote before it followed Core Data's order: names in byte order (S-y-n-c-F before S-y-n-c-a).
    try Self.renumber(url, [2: 4, 3: 2, 4: 3, 5: 5, 1: 1])
    let coordinator = NSPersistentStoreCoordinator(managedObjectModel: model)
    let store = try coordinator.addPersistentStore(type: .sqlite, at: url)
    #expect(store.schema.entities["SyncFeatureEntity"]?.number == 2)
    #expect(store.schema.entities["SyncableSettingsMetadata"]?.number == 4)
    let context = NSManagedObjectContext(concurrencyType: .privateQueueConcurrencyType)
    context.persistentStoreCoordinator = coordinator
    try context.performAndWait {
      let settings = try context.fetch(NSFetchRequest<NSManagedObject>(entityName: "SyncableSettingsMetadata"))
      #expect(settings.compactMap { $0.value(forKey: "key") as? String } == ["first"])
      let features = NSFetchRequest<NSManagedObject>(entityName: "SyncFeatureEntity")
      #expect(try context.count(for: features) == 3, "the feature, its child and its lower-case subentity")
      let setting = NSManagedObject(entity: try #require(model.entitiesByName["SyncableSettingsMetadata"]), insertInto: context)
      setting.setValue("second", forKey: "key")
      try context.save()
    }
    try coordinator.remove(store)
    #expect(try rawRows(url, "SELECT Z_ENT FROM ZSYNCABLESETTINGSMETADATA ORDER BY Z_PK").map { $0[0] as Int64 } == [4, 4])
    #expect(try AppleStoreTests.maxima(url)[4] == 2)
    #expect(try AppleStoreTests.maxima(url)[2] == 3)
  }

  @Test("A store whose Z_PRIMARYKEY does not match the model is refused, and nothing is written")
  func mismatchedNumbering() throws {
    let folder = try TemporaryFolder()
    let model = try Self.caseModel()
    let url = folder.appending("Wrong.sqlite")
    try Self.makeStore(at: url, model: model)
    // The hierarchy in the file no longer agrees: entity 4 claims to be a root, and is named by no entity.
    try DatabaseQueue(path: url.path).write { db in
      try db.execute(sql: "UPDATE Z_PRIMARYKEY SET Z_NAME = 'Unknown', Z_SUPER = 0 WHERE Z_ENT = 4")
      try db.execute(sql: "UPDATE Z_PRIMARYKEY SET Z_NAME = 'Other' WHERE Z_ENT = 5")
    }
    let bytes = try Data(contentsOf: url)
    let coordinator = NSPersistentStoreCoordinator(managedObjectModel: model)
    let error = expectCode(.persistentStoreIncompatibleSchema) { _ = try coordinator.addPersistentStore(type: .sqlite, at: url) }
    #expect(error?.message.contains("Z_PRIMARYKEY") == true, "\(error?.message ?? "")")
    #expect(try Data(contentsOf: url) == bytes)
  }

  // MARK: - Join tables

  /// The Artsy store (framework 479, "ArtsyFolio v2.0"): `Z_2SHOWSFEATURINGARTIST (Z_2ARTISTS1, …)` because
  /// `Z_1ARTISTS` already has a `Z_2ARTISTS`, and `Z_3SHOWS (Z_3ARTWORKS1, …)` likewise.
  @Test("A new store numbers join-table columns across the store as Core Data did; its tables are Core Data's", .needsFixtures)
  func joinColumnsNumbered() throws {
    let folder = try TemporaryFolder()
    let (fixture, model) = try Self.copy(
      folder: "artsy__energy-legacy__ArtsyPartner", model: "ArtsyPartner.xcdatamodeld", version: "ArtsyFolio v2.0",
      store: "ArtsyPartner_2.0.sqlite", into: folder)
    let url = folder.appending("Engine.sqlite")
    let coordinator = NSPersistentStoreCoordinator(managedObjectModel: model)
    try coordinator.remove(try coordinator.addPersistentStore(type: .sqlite, at: url))
    let tables = { (url: URL) in
      try rawRows(url, "SELECT sql FROM sqlite_master WHERE type = 'table' AND name NOT IN ('Z_MODELCACHE')").map { $0["sql"] as String }
        .sorted()
    }
    // Core Data's decimal columns are DECIMAL; the engine's VARCHAR keeps all 38 digits ("Files Core Data wrote").
    let (mine, theirs) = (try tables(url), try tables(fixture).map { $0.replacingOccurrences(of: " DECIMAL", with: " VARCHAR") })
    #expect(
      mine == theirs, "engine only: \(Set(mine).subtracting(theirs).sorted()); Core Data only: \(Set(theirs).subtracting(mine).sorted())")
    let numbering = { (url: URL) in
      try rawRows(url, "SELECT Z_ENT, Z_NAME, Z_SUPER FROM Z_PRIMARYKEY ORDER BY Z_ENT").map {
        "\($0[0] as Int64) \($0[1] as String) \($0[2] as Int64)"
      }
    }
    #expect(try numbering(url) == (try numbering(fixture)))
  }

  @Test("Many-to-many pairs whose columns Core Data numbered are read and written through those columns", .needsFixtures)
  func numberedJoinColumnsReadAndWritten() throws {
    let folder = try TemporaryFolder()
    let (url, model) = try Self.copy(
      folder: "artsy__energy-legacy__ArtsyPartner", model: "ArtsyPartner.xcdatamodeld", version: "ArtsyFolio v2.0",
      store: "ArtsyPartner_2.0.sqlite", into: folder)
    let coordinator = NSPersistentStoreCoordinator(managedObjectModel: model)
    let store = try coordinator.addPersistentStore(
      type: .sqlite, at: url, options: [NSMigratePersistentStoresAutomaticallyOption: false, NSInferMappingModelAutomaticallyOption: true])
    guard case .joinTable(let join, _) = try Self.storage(store, "Artist", "showsFeaturingArtist") else {
      Issue.record("Artist.showsFeaturingArtist is not a join table")
      return
    }
    #expect(
      join.name == "Z_2SHOWSFEATURINGARTIST" && join.sourceColumn == "Z_2ARTISTS1" && join.destinationColumn == "Z_13SHOWSFEATURINGARTIST")
    let context = NSManagedObjectContext(concurrencyType: .privateQueueConcurrencyType)
    context.persistentStoreCoordinator = coordinator
    try context.performAndWait {
      let artist = NSManagedObject(entity: try #require(model.entitiesByName["Artist"]), insertInto: context)
      let show = NSManagedObject(entity: try #require(model.entitiesByName["Show"]), insertInto: context)
      let album = NSManagedObject(entity: try #require(model.entitiesByName["Album"]), insertInto: context)
      let artwork = NSManagedObject(entity: try #require(model.entitiesByName["Artwork"]), insertInto: context)
      artist.setValue("Hilma", forKey: "name")
      show.setValue("Paintings for the Temple", forKey: "name")
      album.setValue("Favourites", forKey: "name")
      artwork.setValue("The Ten Largest", forKey: "title")
      artist.setValue(Set([show]), forKey: "showsFeaturingArtist")
      album.setValue(Set([artist]), forKey: "artists")
      show.setValue(Set([artwork]), forKey: "artworks")
      try context.save()
    }
    try coordinator.remove(store)
    #expect(try rawRows(url, "SELECT count(*) FROM Z_2SHOWSFEATURINGARTIST WHERE Z_2ARTISTS1 IS NOT NULL")[0][0] as Int == 1)
    #expect(try rawRows(url, "SELECT count(*) FROM Z_1ARTISTS WHERE Z_2ARTISTS IS NOT NULL")[0][0] as Int == 1)
    #expect(try rawRows(url, "SELECT count(*) FROM Z_3SHOWS WHERE Z_3ARTWORKS1 IS NOT NULL")[0][0] as Int == 1)
    // Read back through a new stack, from both sides.
    let again = NSPersistentStoreCoordinator(managedObjectModel: model)
    let reopened = try again.addPersistentStore(
      type: .sqlite, at: url,
      options: [NSReadOnlyPersistentStoreOption: true])
    let reader = NSManagedObjectContext(concurrencyType: .privateQueueConcurrencyType)
    reader.persistentStoreCoordinator = again
    try reader.performAndWait {
      let show = try #require(try reader.fetch(NSFetchRequest<NSManagedObject>(entityName: "Show")).first)
      let artists = try #require(show.value(forKey: "artists") as? Set<NSManagedObject>)
      #expect(artists.compactMap { $0.value(forKey: "name") as? String } == ["Hilma"])
      let artworks = try #require(show.value(forKey: "artworks") as? Set<NSManagedObject>)
      #expect(artworks.count == 1)
      let request = NSFetchRequest<NSManagedObject>(entityName: "Artist")
      request.predicate = NSPredicate(format: "ANY showsFeaturingArtist.name == %@", "Paintings for the Temple")
      #expect(try reader.count(for: request) == 1)
      let album = try #require(try reader.fetch(NSFetchRequest<NSManagedObject>(entityName: "Album")).first)
      #expect((album.value(forKey: "artists") as? Set<NSManagedObject>)?.count == 1)
    }
    try again.remove(reopened)
  }

  @Test("A store whose join table lacks the relationship's column is refused, never read as empty sets", .needsFixtures)
  func missingJoinColumn() throws {
    let folder = try TemporaryFolder()
    let (url, model) = try Self.copy(
      folder: "artsy__energy-legacy__ArtsyPartner", model: "ArtsyPartner.xcdatamodeld", version: "ArtsyFolio v2.0",
      store: "ArtsyPartner_2.0.sqlite", into: folder)
    try DatabaseQueue(path: url.path).write { db in
      try db.execute(sql: "ALTER TABLE Z_3SHOWS RENAME COLUMN Z_3ARTWORKS1 TO Z_3SOMETHING")
    }
    let bytes = try Data(contentsOf: url)
    let coordinator = NSPersistentStoreCoordinator(managedObjectModel: model)
    let error = expectCode(.persistentStoreIncompatibleSchema) {
      _ = try coordinator.addPersistentStore(
        type: .sqlite, at: url,
        options: [NSReadOnlyPersistentStoreOption: true])
    }
    #expect(error?.message.contains("Artwork.shows") == true || error?.message.contains("Show.artworks") == true, "\(error?.message ?? "")")
    #expect(try Data(contentsOf: url) == bytes)
  }

  /// "ArtsyFolio v1.5": `Album.documents` has no inverse; Core Data keeps it as `ZDOCUMENT.Z1DOCUMENTS`.
  @Test("An inverse-less to-many Core Data keeps on the destination's row is read and written there", .needsFixtures)
  func inverseLessToManyColumn() throws {
    let folder = try TemporaryFolder()
    let (url, model) = try Self.copy(
      folder: "artsy__energy-legacy__ArtsyPartner", model: "ArtsyPartner.xcdatamodeld", version: "ArtsyFolio v1.5",
      store: "ArtsyPartner_1.6.sqlite", into: folder)
    let coordinator = NSPersistentStoreCoordinator(managedObjectModel: model)
    let store = try coordinator.addPersistentStore(
      type: .sqlite, at: url, options: [NSMigratePersistentStoresAutomaticallyOption: false, NSInferMappingModelAutomaticallyOption: true])
    guard case .foreignKeyOnDestination(let column, nil) = try Self.storage(store, "Album", "documents") else {
      Issue.record("Album.documents is not read from the destination's column")
      return
    }
    #expect(column == "Z1DOCUMENTS")
    let context = NSManagedObjectContext(concurrencyType: .privateQueueConcurrencyType)
    context.persistentStoreCoordinator = coordinator
    try context.performAndWait {
      let first = NSManagedObject(entity: try #require(model.entitiesByName["Album"]), insertInto: context)
      let second = NSManagedObject(entity: try #require(model.entitiesByName["Album"]), insertInto: context)
      first.setValue("first", forKey: "slug")
      second.setValue("second", forKey: "slug")
      let documents = try (0..<3).map { index -> NSManagedObject in
        let document = NSManagedObject(entity: try #require(model.entitiesByName["ArtistDocument"]), insertInto: context)
        document.setValue("doc\(index)", forKey: "slug")
        return document
      }
      first.setValue(Set(documents.prefix(2)), forKey: "documents")
      second.setValue(Set(documents.suffix(1)), forKey: "documents")
      try context.save()
      // A member moves: removed from one album, added to the other, in one save.
      first.setValue(Set(documents.prefix(1)), forKey: "documents")
      second.setValue(Set(documents.suffix(2)), forKey: "documents")
      try context.save()
    }
    #expect(
      try rawRows(url, "SELECT ZSLUG, Z1DOCUMENTS FROM ZDOCUMENT ORDER BY ZSLUG").map { "\($0[0] as String)=\($0[1] as Int64)" }
        == ["doc0=1", "doc1=2", "doc2=2"])
    let reader = NSManagedObjectContext(concurrencyType: .privateQueueConcurrencyType)
    reader.persistentStoreCoordinator = coordinator
    try reader.performAndWait {
      let request = NSFetchRequest<NSManagedObject>(entityName: "Album")
      request.sortDescriptors = [NSSortDescriptor(key: "slug", ascending: true)]
      let albums = try reader.fetch(request)
      let slugs = albums.map { album in
        ((album.value(forKey: "documents") as? Set<NSManagedObject>) ?? []).compactMap { $0.value(forKey: "slug") as? String }.sorted()
      }
      #expect(slugs == [["doc0"], ["doc1", "doc2"]])
      let withTwo = NSFetchRequest<NSManagedObject>(entityName: "Album")
      withTwo.predicate = NSPredicate(format: "documents.@count == 2")
      #expect(try reader.fetch(withTwo).compactMap { $0.value(forKey: "slug") as? String } == ["second"])
      // Deleting an album clears its members' column.
      try #require(albums.first).managedObjectContext?.delete(try #require(albums.first))
      try reader.save()
    }
    try coordinator.remove(store)
    #expect(try rawRows(url, "SELECT count(*) FROM ZDOCUMENT WHERE Z1DOCUMENTS = 1")[0][0] as Int == 0)
  }

  /// Artsy's store of "ArtsyFolio v1.5" migrated to the current "ArtsyFolio v2.4": the inverse-less
  /// `Album.documents` (a column on `ZDOCUMENT`) becomes a one-to-many with an inverse, and the many-to-many
  /// `Album.artists` keeps its members; `Album` keeps its renaming identifier from version to version.
  @Test("A store with Core Data's inverse-less column and numbered join columns migrates with every member", .needsFixtures)
  func migratesCoreDataLayout() throws {
    let folder = try TemporaryFolder()
    let (url, version15) = try Self.copy(
      folder: "artsy__energy-legacy__ArtsyPartner", model: "ArtsyPartner.xcdatamodeld", version: "ArtsyFolio v1.5",
      store: "ArtsyPartner_1.6.sqlite", into: folder)
    let writer = NSPersistentStoreCoordinator(managedObjectModel: version15)
    let store = try writer.addPersistentStore(
      type: .sqlite, at: url, options: [NSMigratePersistentStoresAutomaticallyOption: false, NSInferMappingModelAutomaticallyOption: true])
    let context = NSManagedObjectContext(concurrencyType: .privateQueueConcurrencyType)
    context.persistentStoreCoordinator = writer
    try context.performAndWait {
      let album = NSManagedObject(entity: try #require(version15.entitiesByName["Album"]), insertInto: context)
      album.setValue("favourites", forKey: "slug")
      let documents = try ["a", "b"].map { slug -> NSManagedObject in
        let document = NSManagedObject(entity: try #require(version15.entitiesByName["ShowDocument"]), insertInto: context)
        document.setValue(slug, forKey: "slug")
        return document
      }
      let artist = NSManagedObject(entity: try #require(version15.entitiesByName["Artist"]), insertInto: context)
      artist.setValue("Hilma", forKey: "name")
      album.setValue(Set(documents), forKey: "documents")
      album.setValue(Set([artist]), forKey: "artists")
      try context.save()
    }
    try writer.remove(store)
    let current = try NSManagedObjectModel(
      loadingContentsOf: try Fixtures.appleStores().appendingPathComponent("artsy__energy-legacy__ArtsyPartner/ArtsyPartner.xcdatamodeld"))
    let coordinator = NSPersistentStoreCoordinator(managedObjectModel: current)
    let migrated = try coordinator.addPersistentStore(
      type: .sqlite, at: url, options: [NSMigratePersistentStoresAutomaticallyOption: true, NSInferMappingModelAutomaticallyOption: true])
    let reader = NSManagedObjectContext(concurrencyType: .privateQueueConcurrencyType)
    reader.persistentStoreCoordinator = coordinator
    try reader.performAndWait {
      let album = try #require(try reader.fetch(NSFetchRequest<NSManagedObject>(entityName: "Album")).first)
      let documents = try #require(album.value(forKey: "documents") as? Set<NSManagedObject>)
      #expect(documents.compactMap { $0.value(forKey: "slug") as? String }.sorted() == ["a", "b"])
      #expect(documents.allSatisfy { $0.value(forKey: "album") as? NSManagedObject === album })
      let artists = try #require(album.value(forKey: "artists") as? Set<NSManagedObject>)
      #expect(artists.compactMap { $0.value(forKey: "name") as? String } == ["Hilma"])
    }
    try coordinator.remove(migrated)
    #expect(try rawRows(url, "PRAGMA integrity_check")[0][0] as String == "ok")
  }

  @Test("A to-many without an inverse that gains one in the next version keeps its members through the migration")
  func inverseAddedKeepsMembers() throws {
    func model(withInverse: Bool) throws -> NSManagedObjectModel {
      let owner = NSEntityDescription(
        name: "Owner",
        properties: [
          .attribute(NSAttributeDescription(name: "name", type: .string)),
          .relationship(NSRelationshipDescription(name: "items", destination: "Item", inverse: withInverse ? "owner" : nil, toMany: true)),
        ])
      var itemProperties: [NSPropertyDescription] = [.attribute(NSAttributeDescription(name: "label", type: .string))]
      if withInverse {
        itemProperties.append(.relationship(NSRelationshipDescription(name: "owner", destination: "Owner", inverse: "items")))
      }
      return try NSManagedObjectModel(entities: [owner, NSEntityDescription(name: "Item", properties: itemProperties)])
    }
    let folder = try TemporaryFolder()
    let url = folder.appending("Owners.sqlite")
    let first = try model(withInverse: false)
    let writer = try StoreStack(model: first, at: url)
    let context = writer.context
    try context.performAndWait {
      for name in ["ada", "grace"] {
        let owner = NSManagedObject(entity: try #require(first.entitiesByName["Owner"]), insertInto: context)
        owner.setValue(name, forKey: "name")
        let items = try (0..<2).map { index -> NSManagedObject in
          let item = NSManagedObject(entity: try #require(first.entitiesByName["Item"]), insertInto: context)
          item.setValue("\(name) \(index)", forKey: "label")
          return item
        }
        owner.setValue(Set(items), forKey: "items")
      }
      try context.save()
    }
    try writer.close()
    let second = try model(withInverse: true)
    let coordinator = NSPersistentStoreCoordinator(managedObjectModel: second)
    let migrated = try coordinator.addPersistentStore(
      type: .sqlite, at: url,
      options: MigrationTests.migrationOptions(sourceModels: [try model(withInverse: false)]))
    let reader = NSManagedObjectContext(concurrencyType: .privateQueueConcurrencyType)
    reader.persistentStoreCoordinator = coordinator
    try reader.performAndWait {
      let request = NSFetchRequest<NSManagedObject>(entityName: "Item")
      request.sortDescriptors = [NSSortDescriptor(key: "label", ascending: true)]
      let owners = try reader.fetch(request).map {
        "\($0.value(forKey: "label") as? String ?? "")→\(($0.value(forKey: "owner") as? NSManagedObject)?.value(forKey: "name") as? String ?? "nil")"
      }
      #expect(owners == ["ada 0→ada", "ada 1→ada", "grace 0→grace", "grace 1→grace"])
    }
    try coordinator.remove(migrated)
  }

  // MARK: - Helpers

  /// A copy of a fixture store (with its `-wal` and `-shm` when it has them) and the model version named.
  static func copy(folder: String, model: String, version: String, store: String, into temporary: TemporaryFolder) throws -> (
    URL, NSManagedObjectModel
  ) {
    let fixture = try AppleStoreTests.Fixture((folder, model, version, store), in: temporary)
    return (fixture.url, fixture.model)
  }

  static func storage(_ store: NSPersistentStore, _ entity: String, _ property: String) throws -> SQLiteSchema.SlotStorage {
    let mapping = try #require(store.schema.entities[entity])
    let slot = try #require(mapping.entity.layout.index(of: property))
    return mapping.storage[slot]
  }

  /// Names that sort one way by their bytes and another without regard to case, with a hierarchy.
  static func caseModel() throws -> NSManagedObjectModel {
    let settings = NSEntityDescription(
      name: "SyncableSettingsMetadata", properties: [.attribute(NSAttributeDescription(name: "key", type: .string))])
    let feature = NSEntityDescription(
      name: "SyncFeatureEntity", properties: [.attribute(NSAttributeDescription(name: "name", type: .string))])
    let child = NSEntityDescription(name: "SyncFeatureChild", properties: [])
    let lower = NSEntityDescription(name: "syncFeatureLower", properties: [])
    child.superentity = feature
    lower.superentity = feature
    let alpha = NSEntityDescription(name: "alpha", properties: [.attribute(NSAttributeDescription(name: "note", type: .string))])
    return try NSManagedObjectModel(entities: [settings, feature, child, lower, alpha])
  }

  /// A store of ``caseModel()`` with one row of each of its concrete entities but `alpha`.
  static func makeStore(at url: URL, model: NSManagedObjectModel) throws {
    let stack = try StoreStack(model: model, at: url)
    let context = stack.context
    try context.performAndWait {
      for name in ["SyncableSettingsMetadata", "SyncFeatureEntity", "SyncFeatureChild", "syncFeatureLower"] {
        let object = NSManagedObject(entity: try #require(model.entitiesByName[name]), insertInto: context)
        object.setValue(name == "SyncableSettingsMetadata" ? "first" : name, forKey: name == "SyncableSettingsMetadata" ? "key" : "name")
      }
      try context.save()
    }
    try stack.close()
  }

  /// Gives the entities of a store other numbers, everywhere the number is written: `Z_PRIMARYKEY` and `Z_ENT`.
  static func renumber(_ url: URL, _ map: [Int64: Int64]) throws {
    let cases = map.map { "WHEN \($0.key) THEN \($0.value)" }.joined(separator: " ")
    try DatabaseQueue(path: url.path).write { db in
      try db.execute(sql: "UPDATE Z_PRIMARYKEY SET Z_ENT = -Z_ENT, Z_SUPER = CASE Z_SUPER \(cases) ELSE Z_SUPER END")
      try db.execute(sql: "UPDATE Z_PRIMARYKEY SET Z_ENT = CASE -Z_ENT \(cases) END")
      for table in ["ZSYNCABLESETTINGSMETADATA", "ZSYNCFEATUREENTITY", "ZALPHA"] {
        try db.execute(sql: "UPDATE \(table) SET Z_ENT = CASE Z_ENT \(cases) END")
      }
    }
  }
}
