import EngineTestSupport
import Foundation
import GRDB
import TestSupport
import Testing

@testable import ObjectGraph

/// Stores the engine wrote before it computed Core Data's version hashes (`Fixtures/`, made at commit 4d4c814)
/// open without a migration and without a change to their rows; opened read-write, their metadata gets Core
/// Data's hashes in one transaction, and they keep their layout.
@Suite("Stores the engine wrote with its own hashes", .temporaryFolders)
struct LegacyStoreTests {
  static let fixtures = TestFolders.fixtures

  static func copy(_ name: String, into folder: TemporaryFolder) throws -> URL {
    let url = folder.appending(name)
    try FileManager.default.copyItem(at: fixtures.appendingPathComponent(name), to: url)
    return url
  }

  static func libraryModel() throws -> NSManagedObjectModel {
    try NSManagedObjectModel(loadingContentsOf: fixtures.appendingPathComponent("LegacyLibrary.xcdatamodel"))
  }

  /// Every row of every table but the metadata, as text: what must not change.
  static func rows(_ url: URL) throws -> [String] {
    var result: [String] = []
    let tables = try rawRows(url, "SELECT name FROM sqlite_master WHERE type = 'table' AND name <> 'Z_METADATA' ORDER BY name")
    for table in tables.map({ $0["name"] as String }) {
      for row in try rawRows(url, "SELECT * FROM \(table)").map({ "\(table) \($0)" }).sorted() { result.append(row) }
    }
    return result
  }

  @Test("The library store opens read-only with its model, no migration: every object and relationship reads back, no byte changes")
  func readOnly() throws {
    let folder = try TemporaryFolder()
    let url = try Self.copy("LegacyLibrary.sqlite", into: folder)
    let bytes = try Data(contentsOf: url)
    let model = try Self.libraryModel()
    #expect(model.hashMatch(configuration: nil, metadata: try Self.readMetadata(url)) == .legacy)
    let coordinator = NSPersistentStoreCoordinator(managedObjectModel: model)
    let store = try coordinator.addPersistentStore(
      type: .sqlite, at: url,
      options: [
        NSMigratePersistentStoresAutomaticallyOption: false, NSInferMappingModelAutomaticallyOption: true,
        NSReadOnlyPersistentStoreOption: true,
      ])
    #expect(store.schema.layout == .engineV1)
    let context = NSManagedObjectContext(concurrencyType: .privateQueueConcurrencyType)
    context.persistentStoreCoordinator = coordinator
    try Self.expectLibraryContents(context)
    try coordinator.remove(store)
    #expect(try Data(contentsOf: url) == bytes)
    #expect(try FileManager.default.contentsOfDirectory(atPath: folder.url.path) == ["LegacyLibrary.sqlite"])
  }

  @Test("Opened read-write, the library store gets Core Data's hashes in its metadata and nothing else changes; it saves in its own layout")
  func readWrite() throws {
    let folder = try TemporaryFolder()
    let url = try Self.copy("LegacyLibrary.sqlite", into: folder)
    let rowsBefore = try Self.rows(url)
    let schemaBefore = try rawRows(url, "SELECT sql FROM sqlite_master WHERE sql IS NOT NULL ORDER BY name").map { $0["sql"] as String }
    let model = try Self.libraryModel()
    let coordinator = NSPersistentStoreCoordinator(managedObjectModel: model)
    let store = try coordinator.addPersistentStore(
      type: .sqlite, at: url, options: [NSMigratePersistentStoresAutomaticallyOption: false, NSInferMappingModelAutomaticallyOption: true])
    #expect(try Self.rows(url) == rowsBefore)
    #expect(
      try rawRows(url, "SELECT sql FROM sqlite_master WHERE sql IS NOT NULL ORDER BY name").map { $0["sql"] as String } == schemaBefore)
    let metadata = try Self.readMetadata(url)
    #expect(metadata[NSStoreModelVersionHashesKey] as? [String: Data] == model.entityVersionHashesByName)
    #expect(metadata[ObjectGraphStoreFormatVersionKey] as? Int == 1, "the layout is still the engine's first")
    #expect(metadata[CoreDataMetadataKey.versionHashesVersion] as? Int == 3)
    #expect(model.hashMatch(configuration: nil, metadata: metadata) == .coreData)
    let context = NSManagedObjectContext(concurrencyType: .privateQueueConcurrencyType)
    context.persistentStoreCoordinator = coordinator
    try Self.expectLibraryContents(context)
    // A new review of the e-book: the old entity column (ZBOOK_ENT) says which kind of book it points at.
    try context.performAndWait {
      let ebook = try #require(try context.fetch(NSFetchRequest<NSManagedObject>(entityName: "Ebook")).first)
      let review = NSManagedObject(entity: try #require(model.entitiesByName["Review"]), insertInto: context)
      review.setValue(Int16(5), forKey: "stars")
      review.setValue(ebook, forKey: "book")
      try context.save()
    }
    try coordinator.remove(store)
    let ebookNumber = try #require(store.schema.entities["Ebook"]?.number)
    #expect(try rawRows(url, "SELECT ZBOOK_ENT FROM ZREVIEW WHERE ZSTARS = 5")[0]["ZBOOK_ENT"] as Int64 == ebookNumber)
    let reader = try StoreStack(
      model: try Self.libraryModel(), at: url,
      options: [NSMigratePersistentStoresAutomaticallyOption: false, NSInferMappingModelAutomaticallyOption: true]
    )
    .context
    try reader.performAndWait {
      let request = NSFetchRequest<NSManagedObject>(entityName: "Review")
      request.predicate = NSPredicate(format: "stars == 5")
      let review = try #require(try reader.fetch(request).first)
      #expect((review.value(forKey: "book") as? NSManagedObject)?.entity.entityName == "Ebook")
    }
  }

  @Test("A learner's tutorial store of version 1, made before the switch, migrates to version 2 with every note")
  func tutorialMigration() throws {
    let folder = try TemporaryFolder()
    let url = try Self.copy("LegacyNotesV1.sqlite", into: folder)
    let bundle = Self.fixtures.appendingPathComponent("../../../Stages/NotesModel/DataModel.xcdatamodeld").standardizedFileURL
    let current = try NSManagedObjectModel(loadingContentsOf: bundle)
    let context = try StoreStack(model: current, at: url).context
    try context.performAndWait {
      let request = NSFetchRequest<NSManagedObject>(entityName: "Note")
      request.sortDescriptors = [NSSortDescriptor(key: "title", ascending: true)]
      let notes = try context.fetch(request)
      #expect(notes.map { $0.value(forKey: "title") as? String } == ["Note 0", "Note 1", "Note 2"])
      // `updatedAt` was renamed `modifiedAt` (renaming identifier) in version 2.
      #expect(notes.map { ($0.value(forKey: "modifiedAt") as? Date)?.timeIntervalSinceReferenceDate } == [7000, 7001, 7002])
      #expect(notes.allSatisfy { ($0.value(forKey: "notebook") as? NSManagedObject)?.value(forKey: "name") as? String == "Inbox" })
      #expect(notes.map { ($0.value(forKey: "tags") as? Set<NSManagedObject>)?.count } == [1, 1, 0])
    }
    let metadata = try Self.readMetadata(url)
    #expect(metadata[NSStoreModelVersionHashesKey] as? [String: Data] == current.entityVersionHashesByName)
    #expect(metadata[ObjectGraphStoreFormatVersionKey] as? Int == 1)
  }

  static func readMetadata(_ url: URL) throws -> [String: any Sendable] { try NSPersistentStore.readMetadata(url: url) }

  static func expectLibraryContents(_ context: NSManagedObjectContext) throws {
    try context.performAndWait {
      func count(_ entity: String, subentities: Bool = true) throws -> Int {
        let request = NSFetchRequest<NSManagedObject>(entityName: entity)
        request.includesSubentities = subentities
        return try context.count(for: request)
      }
      #expect(try count("Author") == 2)
      #expect(try count("Book") == 4)
      #expect(try count("Book", subentities: false) == 2)
      #expect(try count("Ebook") == 1)
      #expect(try count("Audiobook") == 1)
      #expect(try count("Review") == 3)
      let shelf = try #require(try context.fetch(NSFetchRequest<NSManagedObject>(entityName: "Shelf")).first)
      let titles = (shelf.value(forKey: "books") as? NSOrderedSet)?.array.compactMap {
        ($0 as? NSManagedObject)?.value(forKey: "title") as? String
      }
      #expect(titles == ["Title 2", "Title 0 (revised)", "Title 1"])
      let reviews = NSFetchRequest<NSManagedObject>(entityName: "Review")
      reviews.sortDescriptors = [NSSortDescriptor(key: "stars", ascending: true)]
      let kinds = try context.fetch(reviews).map { ($0.value(forKey: "book") as? NSManagedObject)?.entity.entityName }
      #expect(kinds == ["Book", "Ebook", "Audiobook"])
      let ada = try #require(
        try context.fetch(NSFetchRequest<NSManagedObject>(entityName: "Author")).first { $0.value(forKey: "name") as? String == "Ada" })
      #expect((ada.value(forKey: "books") as? Set<NSManagedObject>)?.count == 4)
      let audiobook = try #require(try context.fetch(NSFetchRequest<NSManagedObject>(entityName: "Audiobook")).first)
      #expect(audiobook.value(forKey: "minutes") as? Int16 == 300)
      let price: Decimal? = Decimal(string: "12.52")
      let isbn: UUID? = UUID(uuidString: "E621E1F8-C36C-495A-93FC-0C247A3E6E52")
      let storedPrice: Decimal? = audiobook.value(forKey: "price") as? Decimal
      let storedISBN: UUID? = audiobook.value(forKey: "isbn") as? UUID
      #expect(storedPrice == price)
      #expect(storedISBN == isbn)
    }
  }
}
