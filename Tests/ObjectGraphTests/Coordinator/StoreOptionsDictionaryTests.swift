import Dispatch
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
    #expect(store.type == NSSQLiteStoreType)
    #expect(store.storeOptions.migratePersistentStoresAutomatically)
    #expect(store.storeOptions.inferMappingModelAutomatically)
    let mode = try store.database.read { try String.fetchOne($0, sql: "PRAGMA journal_mode") }
    #expect(mode?.lowercased() == "delete")
  }

  @Test("Absent options are off, as in Core Data; unknown keys are ignored")
  func absentAndUnknownKeys() throws {
    let coordinator = NSPersistentStoreCoordinator(managedObjectModel: try Models.notes())
    let store = try coordinator.addPersistentStore(
      ofType: NSInMemoryStoreType, configurationName: nil, at: nil, options: ["SomeOptionCoreDataNeverHad": 42])
    #expect(store.type == NSInMemoryStoreType)
    #expect(!store.storeOptions.migratePersistentStoresAutomatically)
    #expect(!store.storeOptions.inferMappingModelAutomatically)
    #expect(!store.storeOptions.readOnly)
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
    #expect(tracked.storeOptions.persistentHistoryTracking)
    try first.remove(tracked)
    let second = NSPersistentStoreCoordinator(managedObjectModel: try Models.notes())
    let store = try second.addPersistentStore(
      type: .sqlite, at: url,
      options: [NSReadOnlyPersistentStoreOption: true as NSNumber, NSPersistentHistoryTrackingKey: true])
    #expect(store.storeOptions.readOnly)
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
        type: .inMemory, at: URL(fileURLWithPath: "/dev/null"), options: [ObjectGraphSQLTraceOption: "print"])
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
    #expect(store.storeOptions.persistentHistoryTracking)
    #expect(store.options?[NSPersistentHistoryTrackingKey] as? NSNumber == true)
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

  @Test(
    "addPersistentStore(with:completionHandler:) adds a description's store: at once on the calling thread, or on a background queue when asked"
  )
  func addStoreWithDescription() async throws {
    let folder = try TemporaryFolder()
    let coordinator = NSPersistentStoreCoordinator(managedObjectModel: try Models.notes())
    let now = NSPersistentStoreDescription(url: folder.appending("Now.sqlite"))
    now.setOption(true as NSNumber, forKey: NSPersistentHistoryTrackingKey)
    let reported = Locked<[String]>([])
    coordinator.addPersistentStore(with: now) { description, error in
      reported.withLock { $0.append("\(description.url?.lastPathComponent ?? "?") \(error == nil ? "added" : "failed")") }
    }
    #expect(reported.withLock { $0 } == ["Now.sqlite added"])
    #expect(coordinator.persistentStores.first?.options?[NSPersistentHistoryTrackingKey] as? NSNumber == true)

    let later = NSPersistentStoreDescription(url: folder.appending("Later.sqlite"))
    later.shouldAddStoreAsynchronously = true
    let onMainThread = await withCheckedContinuation { (done: CheckedContinuation<Bool, Never>) in
      coordinator.addPersistentStore(with: later) { _, error in
        #expect(error == nil)
        done.resume(returning: Thread.isMainThread)
      }
    }
    #expect(!onMainThread)
    #expect(coordinator.persistentStores.map { $0.url?.lastPathComponent } == ["Now.sqlite", "Later.sqlite"])

    let memory = NSPersistentStoreDescription(url: URL(fileURLWithPath: "/dev/null"))
    memory.type = NSInMemoryStoreType
    let wrong = NSPersistentStoreDescription(url: folder.appending("Wrong.sqlite"))
    wrong.setOption("yes" as NSString, forKey: NSReadOnlyPersistentStoreOption)
    let errors = Locked<[String: (any Error)?]>([:])
    for description in [memory, wrong] {
      coordinator.addPersistentStore(with: description) { description, error in
        errors.withLock { $0[description.type + (description.url?.lastPathComponent ?? "")] = error }
      }
    }
    #expect(errors.withLock { $0 }.count == 2)
    let memoryReport = errors.withLock { $0["InMemorynull"] }
    #expect(memoryReport != nil && memoryReport.flatMap { $0 } == nil)
    let refusal = try #require(errors.withLock { $0["SQLiteWrong.sqlite"] } as? ObjectGraphError)
    #expect(refusal.message.contains("NSReadOnlyPersistentStoreOption"))
    #expect(coordinator.persistentStores.count == 3)
    #expect(!FileManager.default.fileExists(atPath: folder.appending("Wrong.sqlite").path))
  }

  // MARK: - Every public method takes Core Data's dictionary, and honours it

  @Test("store.options is the dictionary the store was added with, or nil")
  func storeOptionsAreTheDictionaryGiven() throws {
    let url = try TemporaryFolder().appending("Notes.sqlite")
    let coordinator = NSPersistentStoreCoordinator(managedObjectModel: try Models.notes())
    let store = try coordinator.addPersistentStore(
      type: .sqlite, at: url,
      options: [
        NSSQLitePragmasOption: ["journal_mode": "DELETE"], NSPersistentHistoryTrackingKey: true,
        "AppOwnKey": "kept as given",
      ])
    let options = try #require(store.options)
    #expect(options.count == 3)
    #expect(options[NSSQLitePragmasOption] as? [String: String] == ["journal_mode": "DELETE"])
    #expect(options[NSPersistentHistoryTrackingKey] as? Bool == true)
    #expect(options["AppOwnKey"] as? String == "kept as given")
    let inMemory = try coordinator.addPersistentStore(type: .inMemory, at: URL(fileURLWithPath: "/dev/null"))
    #expect(inMemory.options == nil)
    let older = try coordinator.addPersistentStore(
      ofType: NSInMemoryStoreType, configurationName: nil, at: nil, options: [NSReadOnlyPersistentStoreOption: false])
    #expect(older.options?[NSReadOnlyPersistentStoreOption] as? Bool == false)
  }

  @Test("Two in-memory stores at /dev/null, Core Data's idiom, are two stores")
  func inMemoryStoresAtDevNull() throws {
    let coordinator = NSPersistentStoreCoordinator(managedObjectModel: try Models.notes())
    let first = try coordinator.addPersistentStore(type: .inMemory, at: URL(fileURLWithPath: "/dev/null"))
    let second = try coordinator.addPersistentStore(type: .inMemory, at: URL(fileURLWithPath: "/dev/null"))
    #expect(first !== second)
    #expect(coordinator.persistentStores.count == 2)
  }

  @Test("NSReadOnlyPersistentStoreOption: a save to the store fails and the file keeps what it had")
  func readOnlyOptionRefusesSaves() throws {
    let url = try TemporaryFolder().appending("Notes.sqlite")
    let writer = try StoreStack(model: try Models.notes(), at: url)
    let writing = writer.context
    try writing.performAndWait {
      Note(context: writing).title = "before"
      try writing.save()
    }
    try writer.close()

    let reader = NSPersistentStoreCoordinator(managedObjectModel: try Models.notes())
    try reader.addPersistentStore(type: .sqlite, at: url, options: [NSReadOnlyPersistentStoreOption: true])
    let context = NSManagedObjectContext(concurrencyType: .privateQueueConcurrencyType)
    context.persistentStoreCoordinator = reader
    #expect(try context.performAndWait { try context.count(for: NSFetchRequest<NSManagedObject>(entityName: "Note")) } == 1)
    let saveError = context.performAndWait { () -> (any Error)? in
      Note(context: context).title = "refused"
      do {
        try context.save()
        return nil
      } catch {
        return error
      }
    }
    #expect(saveError != nil)
    let again = NSPersistentStoreCoordinator(managedObjectModel: try Models.notes())
    try again.addPersistentStore(type: .sqlite, at: url, options: [NSReadOnlyPersistentStoreOption: true])
    let check = NSManagedObjectContext(concurrencyType: .privateQueueConcurrencyType)
    check.persistentStoreCoordinator = again
    #expect(try check.performAndWait { try check.count(for: NSFetchRequest<NSManagedObject>(entityName: "Note")) } == 1)
  }

  /// A version 1 store of the migration tests, and version 2: version 1 with an optional `subtitle`.
  static func storeNeedingMigration() throws -> (url: URL, version2: NSManagedObjectModel) {
    let url = try TemporaryFolder().appending("Store.sqlite")
    try MigrationTests.writeStore(try MigrationTests.version1(), at: url)
    return (url, try MigrationTests.version1(extraNoteProperties: [MigrationTests.attribute("subtitle")]))
  }

  @Test(
    "A store that needs migrating is refused without the migration options, or with NSMigratePersistentStoresAutomaticallyOption false",
    arguments: [
      nil, [NSMigratePersistentStoresAutomaticallyOption: false, NSInferMappingModelAutomaticallyOption: true],
      [NSInferMappingModelAutomaticallyOption: true],
    ] as [[String: Bool]?])
  func migrationNeedsTheOption(options: [String: Bool]?) throws {
    let (url, version2) = try Self.storeNeedingMigration()
    let before = try Data(contentsOf: url)
    let coordinator = NSPersistentStoreCoordinator(managedObjectModel: version2)
    do {
      try coordinator.addPersistentStore(type: .sqlite, at: url, options: options)
      Issue.record("The store was added, and so migrated, with options \(String(describing: options))")
    } catch let error as NSError where error.code == NSPersistentStoreIncompatibleVersionHashError {
      #expect(error.domain == NSCocoaErrorDomain)
    }
    #expect(try Data(contentsOf: url) == before)
    #expect(coordinator.persistentStores.isEmpty)
  }

  @Test("With both migration options the store is migrated when it is added")
  func migrationWithTheOptions() throws {
    let (url, version2) = try Self.storeNeedingMigration()
    let coordinator = NSPersistentStoreCoordinator(managedObjectModel: version2)
    try coordinator.addPersistentStore(
      type: .sqlite, at: url,
      options: [NSMigratePersistentStoresAutomaticallyOption: true, NSInferMappingModelAutomaticallyOption: true])
    let context = NSManagedObjectContext(concurrencyType: .privateQueueConcurrencyType)
    context.persistentStoreCoordinator = coordinator
    #expect(try context.performAndWait { try context.count(for: NSFetchRequest<NSManagedObject>(entityName: "Note")) } == 30)
  }

  @Test("The asynchronous add reads the dictionary too, and hands an option's wrong type to its handler")
  func asynchronousAdd() throws {
    let (url, version2) = try Self.storeNeedingMigration()
    let coordinator = NSPersistentStoreCoordinator(managedObjectModel: version2)
    let results = Locked<[Result<NSPersistentStore, any Error>]>([])
    let done = DispatchSemaphore(value: 0)
    coordinator.addPersistentStore(type: .sqlite, at: url, options: [NSReadOnlyPersistentStoreOption: "yes"]) { result in
      results.withLock { $0.append(result) }
      done.signal()
    }
    done.wait()
    coordinator.addPersistentStore(type: .sqlite, at: url, options: nil) { result in
      results.withLock { $0.append(result) }
      done.signal()
    }
    done.wait()
    let progress = Locked<[Double]>([])
    let report: @Sendable (MigrationProgress) -> Void = { step in progress.withLock { $0.append(step.fractionCompleted) } }
    coordinator.addPersistentStore(
      type: .sqlite, at: url,
      options: [
        NSMigratePersistentStoresAutomaticallyOption: true, NSInferMappingModelAutomaticallyOption: true,
        ObjectGraphMigrationProgressOption: report,
      ]
    ) { result in
      results.withLock { $0.append(result) }
      done.signal()
    }
    done.wait()
    let outcomes = results.withLock { $0 }
    func failure(_ outcome: Result<NSPersistentStore, any Error>) -> NSError? {
      guard case .failure(let error) = outcome else { return nil }
      return error as NSError
    }
    #expect(failure(outcomes[0])?.localizedDescription.contains("NSReadOnlyPersistentStoreOption") == true)
    #expect(failure(outcomes[1])?.code == NSPersistentStoreIncompatibleVersionHashError)
    #expect(try outcomes[2].get().options?[NSMigratePersistentStoresAutomaticallyOption] as? Bool == true)
    #expect(progress.withLock { $0.last } == 1)
  }

  @Test("replacePersistentStore takes dictionaries: the copy opens with the options given, a wrong type is refused")
  func replaceWithDictionaries() throws {
    let folder = try TemporaryFolder()
    let source = folder.appending("Source.sqlite")
    let destination = folder.appending("Destination.sqlite")
    try MigrationTests.writeStore(try MigrationTests.version1(), at: source)
    let coordinator = NSPersistentStoreCoordinator(managedObjectModel: try MigrationTests.version1())
    #expect(throws: (any Error).self) {
      try coordinator.replacePersistentStore(
        at: destination, destinationOptions: nil, withPersistentStoreFrom: source,
        sourceOptions: [NSReadOnlyPersistentStoreOption: "yes"], type: .sqlite)
    }
    #expect(!FileManager.default.fileExists(atPath: destination.path))
    try coordinator.replacePersistentStore(
      at: destination, destinationOptions: [NSSQLitePragmasOption: ["journal_mode": "DELETE"]],
      withPersistentStoreFrom: source, sourceOptions: [NSReadOnlyPersistentStoreOption: true], type: .sqlite)
    let store = try coordinator.addPersistentStore(
      type: .sqlite, at: destination, options: [NSReadOnlyPersistentStoreOption: true])
    #expect(store.storeOptions.readOnly)
    let context = NSManagedObjectContext(concurrencyType: .privateQueueConcurrencyType)
    context.persistentStoreCoordinator = coordinator
    #expect(try context.performAndWait { try context.count(for: NSFetchRequest<NSManagedObject>(entityName: "Note")) } == 30)
    try coordinator.destroyPersistentStore(
      at: destination, type: .sqlite, options: [NSSQLitePragmasOption: ["journal_mode": "DELETE"]])
    #expect(!FileManager.default.fileExists(atPath: destination.path))
    #expect(coordinator.persistentStores.isEmpty)
  }

  @Test("migrateStore(from:type:options:mapping:to:type:options:) makes the destination with its options")
  func migrationManagerDestinationOptions() throws {
    let (url, version2) = try Self.storeNeedingMigration()
    let migrated = url.deletingLastPathComponent().appendingPathComponent("Migrated.sqlite")
    let manager = NSMigrationManager(sourceModel: try MigrationTests.version1(), destinationModel: version2)
    let mapping = try NSMappingModel.inferredMappingModel(forSourceModel: manager.sourceModel, destinationModel: version2)
    try manager.migrateStore(
      from: url, type: .sqlite, options: [NSReadOnlyPersistentStoreOption: true], mapping: mapping, to: migrated,
      type: .sqlite, options: [NSSQLitePragmasOption: ["journal_mode": "DELETE"]])
    // Byte 18 of a SQLite file is 1 in rollback-journal mode, 2 in WAL mode (Core Data's default).
    #expect(try Data(contentsOf: migrated)[18] == 1)
    #expect(!FileManager.default.fileExists(atPath: migrated.path + "-wal"))
    #expect(try Self.noteCount(at: migrated, version2) == 30)
  }

  @Test("The older migrateStore(from:sourceType:...) takes store type strings, and infers the mapping when given none")
  func migrationManagerOlderForm() throws {
    let (url, version2) = try Self.storeNeedingMigration()
    let migrated = url.deletingLastPathComponent().appendingPathComponent("Migrated.sqlite")
    let manager = NSMigrationManager(sourceModel: try MigrationTests.version1(), destinationModel: version2)
    try manager.migrateStore(
      from: url, sourceType: NSSQLiteStoreType, options: nil, with: nil, toDestinationURL: migrated,
      destinationType: NSSQLiteStoreType, destinationOptions: nil)
    #expect(try Self.noteCount(at: migrated, version2) == 30)
    #expect(manager.mappingModel.entityMappings.contains { $0.destinationEntityName == "Note" })

    let refused = url.deletingLastPathComponent().appendingPathComponent("Refused.sqlite")
    #expect(throws: (any Error).self) {
      try manager.migrateStore(
        from: url, sourceType: NSSQLiteStoreType, options: [NSReadOnlyPersistentStoreOption: "yes"], with: nil,
        toDestinationURL: refused, destinationType: NSSQLiteStoreType)
    }
    #expect(!FileManager.default.fileExists(atPath: refused.path))
  }

  /// How many notes the store at `url` holds, opened with `model` and no migration.
  static func noteCount(at url: URL, _ model: NSManagedObjectModel) throws -> Int {
    try StoreStack(model: model, at: url, options: nil).storedCount("Note")
  }

  // MARK: - Metadata of a store file, set by URL

  @Test("setMetadata(_:forPersistentStoreOfType:at:options:) writes the app's keys to the file at once, keeping the store's own")
  func setMetadataByURL() throws {
    let url = try TemporaryFolder().appending("Notes.sqlite")
    let coordinator = NSPersistentStoreCoordinator(managedObjectModel: try Models.notes())
    let store = try coordinator.addPersistentStore(type: .sqlite, at: url)
    let identifier = store.identifier
    try coordinator.remove(store)

    var metadata: [String: Any] = try NSPersistentStoreCoordinator.metadataForPersistentStore(ofType: NSSQLiteStoreType, at: url)
    metadata["importedFrom"] = "backup"
    metadata["importCount"] = 3
    try NSPersistentStoreCoordinator.setMetadata(
      metadata, forPersistentStoreOfType: NSSQLiteStoreType, at: url, options: [NSSQLitePragmasOption: ["busy_timeout": "500"]])
    let written = try NSPersistentStoreCoordinator.metadataForPersistentStore(ofType: NSSQLiteStoreType, at: url)
    #expect(written["importedFrom"] as? String == "backup")
    #expect(written["importCount"] as? Int == 3)
    #expect(written[NSStoreUUIDKey] as? String == identifier)
    #expect(written[NSStoreTypeKey] as? String == NSSQLiteStoreType)

    // Only the app's keys given: the store's own are kept; a key left out is removed.
    try NSPersistentStoreCoordinator.setMetadata(["importedFrom": "sync"], forPersistentStoreOfType: NSSQLiteStoreType, at: url)
    let replaced = try NSPersistentStoreCoordinator.metadataForPersistentStore(ofType: NSSQLiteStoreType, at: url)
    #expect(replaced["importedFrom"] as? String == "sync")
    #expect(replaced["importCount"] == nil)
    #expect(replaced[NSStoreUUIDKey] as? String == identifier)
    #expect((replaced[NSStoreModelVersionHashesKey] as? [String: Data])?["Note"] != nil)

    // The store still opens as itself, with no migration, and shows the key.
    let reopened = NSPersistentStoreCoordinator(managedObjectModel: try Models.notes())
    let again = try reopened.addPersistentStore(type: .sqlite, at: url)
    #expect(again.identifier == identifier)
    #expect(reopened.metadata(for: again)["importedFrom"] as? String == "sync")
    try reopened.remove(again)

    try NSPersistentStoreCoordinator.setMetadata(nil, type: .sqlite, at: url)
    let cleared = try NSPersistentStoreCoordinator.metadataForPersistentStore(ofType: NSSQLiteStoreType, at: url)
    #expect(cleared["importedFrom"] == nil)
    #expect(cleared[NSStoreUUIDKey] as? String == identifier)
  }

  @Test("setMetadata by URL refuses to change the store's own keys, a value no property list holds, and a type that is not SQLite")
  func setMetadataByURLRefusals() throws {
    let url = try TemporaryFolder().appending("Notes.sqlite")
    let coordinator = NSPersistentStoreCoordinator(managedObjectModel: try Models.notes())
    try coordinator.remove(try coordinator.addPersistentStore(type: .sqlite, at: url))
    let before = try Data(contentsOf: url)
    for metadata: [String: Any] in [[NSStoreUUIDKey: "another"], ["handle": FileHandle.standardOutput]] {
      do {
        try NSPersistentStoreCoordinator.setMetadata(metadata, forPersistentStoreOfType: NSSQLiteStoreType, at: url)
        Issue.record("\(metadata) was written")
      } catch let error as NSError {
        #expect(error.code == ObjectGraphInvalidValueError)
      }
    }
    do {
      try NSPersistentStoreCoordinator.setMetadata(["key": "value"], forPersistentStoreOfType: NSInMemoryStoreType, at: url)
      Issue.record("an in-memory type was accepted")
    } catch let error as NSError {
      #expect(error.code == NSPersistentStoreInvalidTypeError)
    }
    #expect(try Data(contentsOf: url) == before)
    let missing = url.deletingLastPathComponent().appendingPathComponent("Missing.sqlite")
    #expect(throws: (any Error).self) {
      try NSPersistentStoreCoordinator.setMetadata(["key": "value"], forPersistentStoreOfType: NSSQLiteStoreType, at: missing)
    }
    #expect(!FileManager.default.fileExists(atPath: missing.path))
  }

  @Test("An engine option's closure must be declared @Sendable; a Swift optional that is nil is an absent key")
  func closureAndOptionalValues() throws {
    let coordinator = NSPersistentStoreCoordinator(managedObjectModel: try Models.notes())
    let devNull = URL(fileURLWithPath: "/dev/null")
    let error = expectCode(.persistentStoreOpen) {
      try coordinator.addPersistentStore(type: .inMemory, at: devNull, options: [ObjectGraphSQLTraceOption: { sql in print(sql) }])
    }
    #expect(error?.message.contains("declare the closure with that type") == true, "\(String(describing: error))")
    let noProgress: (@Sendable (MigrationProgress) -> Void)? = nil
    var options: [AnyHashable: Any] = [NSMigratePersistentStoresAutomaticallyOption: true]
    options[ObjectGraphMigrationProgressOption] = noProgress as Any
    let store = try coordinator.addPersistentStore(type: .inMemory, at: devNull, options: options)
    #expect(store.storeOptions.migrationProgress == nil)
    #expect(store.storeOptions.migratePersistentStoresAutomatically)
  }
}
