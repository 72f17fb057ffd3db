import Foundation
import ObjectGraph
import TestSupport
import Testing

@Suite("Migration", .temporaryFolders)
struct MigrationTests {
  /// A version of Library.xcdatamodeld, by its file name.
  func libraryModel(_ version: String) throws -> NSManagedObjectModel {
    let url = try #require(
      Bundle.module.url(forResource: version, withExtension: "xcdatamodel", subdirectory: "Library.xcdatamodeld"))
    return try #require(NSManagedObjectModel(contentsOf: url))
  }

  /// A version 1 store holding one book.
  func version1Store() throws -> URL {
    let storeURL = try TemporaryFolder().appending("Library.sqlite")
    let coordinator = NSPersistentStoreCoordinator(managedObjectModel: try libraryModel("Library"))
    try coordinator.addPersistentStore(ofType: NSSQLiteStoreType, configurationName: nil, at: storeURL, options: nil)
    let context = NSManagedObjectContext(concurrencyType: .privateQueueConcurrencyType)
    context.persistentStoreCoordinator = coordinator
    try context.performAndWait {
      let book = NSEntityDescription.insertNewObject(forEntityName: "Book", into: context)
      book.setValue("Middlemarch", forKey: "title")
      book.setValue("George Eliot", forKey: "author")
      try context.save()
    }
    for store in coordinator.persistentStores {
      try coordinator.remove(store)
    }
    return storeURL
  }

  @Test func currentVersionIsTheOneXcodeMarks() throws {
    let url = try #require(Bundle.module.url(forResource: "Library", withExtension: "xcdatamodeld"))
    let model = try #require(NSManagedObjectModel(contentsOf: url))
    #expect(model.entitiesByName["Book"]?.attributesByName["pages"] != nil)
    #expect(model.versionIdentifiers.contains("2"))
  }

  @Test func lightweightMigrationWithTheTwoOptions() throws {
    let storeURL = try version1Store()
    let coordinator = NSPersistentStoreCoordinator(managedObjectModel: try libraryModel("Library 2"))
    let options = [NSMigratePersistentStoresAutomaticallyOption: true, NSInferMappingModelAutomaticallyOption: true]
    try coordinator.addPersistentStore(ofType: NSSQLiteStoreType, configurationName: nil, at: storeURL, options: options)
    let context = NSManagedObjectContext(concurrencyType: .privateQueueConcurrencyType)
    context.persistentStoreCoordinator = coordinator
    try context.performAndWait {
      let request: NSFetchRequest<Book> = Book.fetchRequest()
      let books = try context.fetch(request)
      #expect(books.count == 1)
      #expect(books.first?.title == "Middlemarch")
      #expect(books.first?.value(forKey: "authorName") as? String == "George Eliot")
      // A new attribute takes its default value in the migrated rows.
      #expect((books.first?.value(forKey: "pages") as? NSNumber)?.intValue == 0)
    }
  }

  @Test func containerMigratesWithItsDescriptionsDefaults() throws {
    let storeURL = try version1Store()
    let container = NSPersistentContainer(name: "Library", managedObjectModel: try libraryModel("Library 2"))
    let description = NSPersistentStoreDescription(url: storeURL)
    #expect(description.shouldMigrateStoreAutomatically)
    #expect(description.shouldInferMappingModelAutomatically)
    container.persistentStoreDescriptions = [description]
    container.loadPersistentStores { _, error in
      #expect(error == nil)
    }
    let context = container.viewContext
    try context.performAndWait {
      let request: NSFetchRequest<Book> = Book.fetchRequest()
      let book = try context.fetch(request).first
      #expect(book?.value(forKey: "authorName") as? String == "George Eliot")
    }
  }

  @Test func withoutTheOptionsTheStoreIsIncompatible() throws {
    let storeURL = try version1Store()
    let coordinator = NSPersistentStoreCoordinator(managedObjectModel: try libraryModel("Library 2"))
    do {
      try coordinator.addPersistentStore(ofType: NSSQLiteStoreType, configurationName: nil, at: storeURL, options: nil)
      Issue.record("the store was added without migrating")
    } catch let error as NSError {
      #expect(error.code == NSPersistentStoreIncompatibleVersionHashError)
    }
    #expect(coordinator.persistentStores.isEmpty)
  }

  @Test func metadataSaysWhichModelIsCompatible() throws {
    let storeURL = try version1Store()
    let metadata = try NSPersistentStoreCoordinator.metadataForPersistentStore(
      ofType: NSSQLiteStoreType, at: storeURL, options: nil)
    #expect(metadata[NSStoreTypeKey] as? String == NSSQLiteStoreType)
    #expect(metadata[NSStoreUUIDKey] is String)
    let version1 = try libraryModel("Library")
    let version2 = try libraryModel("Library 2")
    #expect(version1.isConfiguration(withName: nil, compatibleWithStoreMetadata: metadata))
    #expect(!version2.isConfiguration(withName: nil, compatibleWithStoreMetadata: metadata))
  }

  @Test func migrationManagerWithAnInferredMappingModel() throws {
    let sourceURL = try version1Store()
    let destinationURL = try TemporaryFolder().appending("Library-2.sqlite")
    let version1 = try libraryModel("Library")
    let version2 = try libraryModel("Library 2")
    let mapping = try NSMappingModel.inferredMappingModel(forSourceModel: version1, destinationModel: version2)
    let manager = NSMigrationManager(sourceModel: version1, destinationModel: version2)
    try manager.migrateStore(
      from: sourceURL, sourceType: NSSQLiteStoreType, options: nil, with: mapping,
      toDestinationURL: destinationURL, destinationType: NSSQLiteStoreType, destinationOptions: nil)

    let metadata = try NSPersistentStoreCoordinator.metadataForPersistentStore(
      ofType: NSSQLiteStoreType, at: destinationURL, options: nil)
    #expect(version2.isConfiguration(withName: nil, compatibleWithStoreMetadata: metadata))
    let coordinator = NSPersistentStoreCoordinator(managedObjectModel: version2)
    try coordinator.addPersistentStore(ofType: NSSQLiteStoreType, configurationName: nil, at: destinationURL, options: nil)
    let context = NSManagedObjectContext(concurrencyType: .privateQueueConcurrencyType)
    context.persistentStoreCoordinator = coordinator
    try context.performAndWait {
      let request: NSFetchRequest<Book> = Book.fetchRequest()
      let book = try context.fetch(request).first
      #expect(book?.value(forKey: "authorName") as? String == "George Eliot")
    }
  }

  @Test func migrationManagerWithStoreTypes() throws {
    let sourceURL = try version1Store()
    let destinationURL = try TemporaryFolder().appending("Library-2.sqlite")
    let version1 = try libraryModel("Library")
    let version2 = try libraryModel("Library 2")
    let mapping = try NSMappingModel.inferredMappingModel(forSourceModel: version1, destinationModel: version2)
    let manager = NSMigrationManager(sourceModel: version1, destinationModel: version2)
    try manager.migrateStore(from: sourceURL, type: .sqlite, mapping: mapping, to: destinationURL, type: .sqlite)
    let coordinator = NSPersistentStoreCoordinator(managedObjectModel: version2)
    try coordinator.addPersistentStore(type: .sqlite, at: destinationURL)
    let context = NSManagedObjectContext(concurrencyType: .privateQueueConcurrencyType)
    context.persistentStoreCoordinator = coordinator
    let count = try context.performAndWait { try context.count(for: Book.fetchRequest()) }
    #expect(count == 1)
  }
}
