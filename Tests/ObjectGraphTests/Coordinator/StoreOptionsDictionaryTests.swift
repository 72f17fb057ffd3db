import EngineTestSupport
import Foundation
import GRDB
import TestSupport
import Testing

@testable import ObjectGraph

@Suite("Store options, types and metadata as Core Data writes them", .temporaryFolders)
struct StoreOptionsDictionaryTests {
  @Test("addPersistentStore(ofType:configurationName:at:options:) takes Core Data's options dictionary")
  func olderFormWithOptions() throws {
    let url = try TemporaryFolder().appending("Notes.sqlite")
    let coordinator = NSPersistentStoreCoordinator(managedObjectModel: try Models.notes())
    let store = try coordinator.addPersistentStore(
      ofType: NSSQLiteStoreType, configurationName: nil, at: url,
      options: [
        NSMigratePersistentStoresAutomaticallyOption: true, NSInferMappingModelAutomaticallyOption: true,
        NSSQLitePragmasOption: ["journal_mode": "DELETE"],
      ])
    #expect(store.type == .sqlite)
    #expect(store.options.migratePersistentStoresAutomatically)
    #expect(store.options.inferMappingModelAutomatically)
    let mode = try store.database.read { try String.fetchOne($0, sql: "PRAGMA journal_mode") }
    #expect(mode?.lowercased() == "delete")
  }

  @Test("Absent options are off, as in Core Data; unknown keys are ignored")
  func absentAndUnknownKeys() throws {
    let coordinator = NSPersistentStoreCoordinator(managedObjectModel: try Models.notes())
    let store = try coordinator.addPersistentStore(
      ofType: NSInMemoryStoreType, configurationName: nil, at: nil, options: ["SomeOptionCoreDataNeverHad": 42])
    #expect(store.type == .inMemory)
    #expect(!store.options.migratePersistentStoresAutomatically)
    #expect(!store.options.inferMappingModelAutomatically)
    #expect(!store.options.readOnly)
  }

  @Test("An option of the wrong type is refused with the option's name")
  func wrongTypedOption() throws {
    let url = try TemporaryFolder().appending("Notes.sqlite")
    let coordinator = NSPersistentStoreCoordinator(managedObjectModel: try Models.notes())
    let error = expectCode(.persistentStoreOpen) {
      try coordinator.addPersistentStore(
        ofType: NSSQLiteStoreType, configurationName: nil, at: url, options: [NSReadOnlyPersistentStoreOption: "yes"])
    }
    #expect(error?.message.contains("NSReadOnlyPersistentStoreOption") == true)
    #expect(coordinator.persistentStores.isEmpty)
    #expect(!FileManager.default.fileExists(atPath: url.path))
  }

  @Test("A store type the engine has no store for is refused")
  func unknownStoreType() throws {
    let url = try TemporaryFolder().appending("Notes.xml")
    let coordinator = NSPersistentStoreCoordinator(managedObjectModel: try Models.notes())
    let error = expectCode(.persistentStoreInvalidType) {
      try coordinator.addPersistentStore(ofType: "XML", configurationName: nil, at: url, options: nil)
    }
    #expect(error?.message.contains("XML") == true)
  }

  @Test("Store types are Core Data's strings")
  func storeTypeStrings() {
    #expect(NSSQLiteStoreType == "SQLite")
    #expect(NSInMemoryStoreType == "InMemory")
    #expect(NSBinaryStoreType == "Binary")
    #expect(NSPersistentStore.StoreType(rawValue: NSSQLiteStoreType) == .sqlite)
    #expect(NSPersistentStore.StoreType.binary.rawValue == NSBinaryStoreType)
    #expect(NSPersistentStore.StoreType.inMemory.rawValue == NSInMemoryStoreType)
  }

  @Test("Metadata is read with Core Data's keys")
  func metadataKeys() throws {
    let url = try TemporaryFolder().appending("Notes.sqlite")
    let coordinator = NSPersistentStoreCoordinator(managedObjectModel: try Models.notes())
    let store = try coordinator.addPersistentStore(type: .sqlite, at: url, options: nil)
    let metadata = try NSPersistentStoreCoordinator.metadataForPersistentStore(ofType: NSSQLiteStoreType, at: url)
    #expect(metadata[NSStoreUUIDKey] as? String == store.identifier)
    #expect(metadata[NSStoreTypeKey] as? String == NSSQLiteStoreType)
    #expect((metadata[NSStoreModelVersionHashesKey] as? [String: Data])?["Note"] != nil)
    let typed = try NSPersistentStoreCoordinator.metadataForPersistentStore(type: .sqlite, at: url, options: nil)
    #expect(typed[NSStoreUUIDKey] as? String == store.identifier)
    #expect(coordinator.metadata(for: store)[NSStoreUUIDKey] as? String == store.identifier)
  }

  @Test("Read-only and history tracking come from the dictionary")
  func readOnlyAndHistory() throws {
    let url = try TemporaryFolder().appending("Notes.sqlite")
    let first = NSPersistentStoreCoordinator(managedObjectModel: try Models.notes())
    let tracked = try first.addPersistentStore(
      type: .sqlite, at: url, options: [NSPersistentHistoryTrackingKey: true as NSNumber])
    #expect(tracked.options.persistentHistoryTracking)
    try first.remove(tracked)
    let second = NSPersistentStoreCoordinator(managedObjectModel: try Models.notes())
    let store = try second.addPersistentStore(
      type: .sqlite, at: url,
      options: [NSReadOnlyPersistentStoreOption: true as NSNumber, NSPersistentHistoryTrackingKey: true])
    #expect(store.options.readOnly)
  }

  @Test("The engine's own options are keys of its own")
  func engineOptions() throws {
    let log = Locked<[String]>([])
    let trace: @Sendable (String) -> Void = { sql in log.withLock { $0.append(sql) } }
    let coordinator = NSPersistentStoreCoordinator(managedObjectModel: try Models.notes())
    try coordinator.addPersistentStore(
      type: .sqlite, at: try TemporaryFolder().appending("Notes.sqlite"), options: [ObjectGraphSQLTraceOption: trace])
    let context = NSManagedObjectContext(concurrencyType: .privateQueueConcurrencyType)
    context.persistentStoreCoordinator = coordinator
    try context.performAndWait {
      Note(context: context).title = "traced"
      try context.save()
    }
    #expect(log.withLock { $0 }.contains { $0.contains("INSERT") })
    let error = expectCode(.persistentStoreOpen) {
      try coordinator.addPersistentStore(
        type: .inMemory, at: nil, options: [ObjectGraphSQLTraceOption: "print"])
    }
    #expect(error?.message.contains("ObjectGraphSQLTraceOption") == true)
  }

  @Test("destroyPersistentStore(at:ofType:options:) deletes the store's files")
  func destroyOlderForm() throws {
    let url = try TemporaryFolder().appending("Notes.sqlite")
    let coordinator = NSPersistentStoreCoordinator(managedObjectModel: try Models.notes())
    try coordinator.addPersistentStore(ofType: NSSQLiteStoreType, configurationName: nil, at: url)
    try coordinator.destroyPersistentStore(at: url, ofType: NSSQLiteStoreType, options: nil)
    #expect(!FileManager.default.fileExists(atPath: url.path))
    #expect(coordinator.persistentStores.isEmpty)
  }

  @Test("A store description carries Core Data's options, keys and type string")
  func descriptionOptions() throws {
    let url = try TemporaryFolder().appending("Notes.sqlite")
    let description = NSPersistentStoreDescription(url: url)
    #expect(description.type == NSSQLiteStoreType)
    #expect(description.shouldMigrateStoreAutomatically && description.shouldInferMappingModelAutomatically)
    #expect(description.options[NSMigratePersistentStoresAutomaticallyOption] as? NSNumber == true)
    description.setOption(true as NSNumber, forKey: NSPersistentHistoryTrackingKey)
    description.setValue("DELETE" as NSString, forPragmaNamed: "journal_mode")
    description.isReadOnly = false
    #expect(description.options[NSPersistentHistoryTrackingKey] as? NSNumber == true)
    #expect(description.options[NSReadOnlyPersistentStoreOption] as? NSNumber == false)
    let container = NSPersistentContainer(name: "Notes", managedObjectModel: try Models.notes())
    container.persistentStoreDescriptions = [description]
    let failure = Locked<(any Error)?>(nil)
    container.loadPersistentStores { _, error in failure.withLock { $0 = error } }
    try failure.withLock { if let error = $0 { throw error } }
    let store = try #require(container.persistentStoreCoordinator.persistentStores.first)
    #expect(store.options.persistentHistoryTracking)
    let mode = try store.database.read { try String.fetchOne($0, sql: "PRAGMA journal_mode") }
    #expect(mode?.lowercased() == "delete")
  }

  @Test("A description's wrong-typed option is reported to the load's handler")
  func descriptionWrongTypedOption() throws {
    let description = NSPersistentStoreDescription(url: try TemporaryFolder().appending("Notes.sqlite"))
    description.setOption("yes" as NSString, forKey: NSReadOnlyPersistentStoreOption)
    let container = NSPersistentContainer(name: "Notes", managedObjectModel: try Models.notes())
    container.persistentStoreDescriptions = [description]
    let failure = Locked<(any Error)?>(nil)
    container.loadPersistentStores { _, error in failure.withLock { $0 = error } }
    let error = try #require(failure.withLock { $0 } as? ObjectGraphError)
    #expect(error.message.contains("NSReadOnlyPersistentStoreOption"))
    #expect(container.persistentStoreCoordinator.persistentStores.isEmpty)
  }
}
