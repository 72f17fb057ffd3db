import Dispatch
import Foundation
import GRDB
import NotesModel
import ObjectGraph
import Stage3
import Synchronization
import TestSupport
import Testing

// Each test makes its controller in a block on the main queue, as an app does at launch (`Launch`, in
// Stage3TestSupport.swift), and waits for the callback without blocking. A migration is held at its first
// progress report (`MigrationGate`) to look at the world while it is provably still running: no timing
// is measured or assumed anywhere.

@Suite("PersistenceController, stage 3", .timeLimit(.minutes(3)), .temporaryFolders)
struct PersistenceControllerTests {
  // MARK: - The initialiser and its callback

  @Test("the initialiser returns before the callback, which then runs on the main queue exactly once")
  func callbackOnceOnTheMainQueue() async throws {
    let folder = try TemporaryFolder()
    let launch = try await Launch(storeFolder: folder.appending("Stores"))

    #expect(!launch.callbackRanBeforeReturn)
    let call = try await launch.callback()
    #expect(throws: Never.self) { try call.result.get() }
    #expect(call.onMainQueue)
    #expect(call.afterInitialiserReturned)

    // A save's round trip passes through the writer's queue and the main queue: a second call, had one
    // been queued anywhere, would have run by its end.
    try await launch.controller.saveChangesAndWait()
    try await drainMainQueue()
    #expect(launch.callbackCount == 1)
  }

  @Test("the writer and the main context exist at once; the store joins the writer's coordinator in the background")
  func shape() async throws {
    let folder = try TemporaryFolder()
    let launch = try await Launch(storeFolder: folder.url)
    let main = launch.controller.mainContext
    let parent = try #require(main.parent, "the main context has a parent from the start")

    #expect(main.concurrencyType == .mainQueueConcurrencyType)
    #expect(parent.concurrencyType == .privateQueueConcurrencyType)
    #expect(parent.parent == nil, "the private context is the root: it saves to the coordinator")
    let coordinator = try #require(parent.persistentStoreCoordinator, "the writer has the coordinator from the start")

    try await launch.callback().result.get()
    #expect(coordinator.persistentStores.map { $0.url?.standardizedFileURL } == [launch.controller.storeURL.standardizedFileURL])
    #expect(launch.controller.storeURL == folder.appending("DataModel.sqlite"))
  }

  @Test("a store behind a slow migration: the initialiser has returned and the main context answers while it runs")
  func slowMigrationDoesNotHoldTheInitialiser() async throws {
    let folder = try TemporaryFolder()
    try writeVersion1Store(in: folder.url, notes: 300)
    let gate = MigrationGate()
    defer { gate.release() }

    let launch = try await Launch(storeFolder: folder.url, migrationProgress: gate.progress)
    try await gate.waitUntilMigrating()

    // The initialiser has returned (Launch returns only then), the migration is held, no callback yet.
    #expect(!launch.callbackRanBeforeReturn)
    #expect(!launch.hasCalledBack)
    let main = launch.controller.mainContext
    #expect(main.persistentStoreCoordinator?.persistentStores.isEmpty == true)
    // The main context does not wait for the store: a fetch is refused at once, on the main queue.
    let refused = await #expect(throws: NSError.self) {
      try await main.perform { try main.count(for: NSFetchRequest<Note>(entityName: "Note")) }
    }
    #expect(refused?.code == 900_006)
    // Nor may the store be moved aside while it is being migrated.
    #expect(throws: PersistenceControllerError.self) { try launch.controller.startFresh { _ in } }

    gate.release()
    let call = try await launch.callback()
    try call.result.get()
    #expect(call.onMainQueue)
    #expect(!gate.anyOnMainQueue, "the migration reports progress on its own thread")
    let fractions = gate.reported.map(\.fractionCompleted)
    #expect(fractions == fractions.sorted() && fractions.last == 1, "progress goes up to 1: \(fractions)")

    // Version 2's store: every note, its version 1 updatedAt carried over as modifiedAt, a word count of 0.
    let notes = try await main.perform {
      let request = NSFetchRequest<Note>(entityName: "Note")
      request.predicate = NSPredicate(format: "title == %@", "Note 7")
      let seventh = try main.fetch(request).first
      return (try main.count(for: NSFetchRequest<Note>(entityName: "Note")), seventh?.modifiedAt, seventh?.wordCount)
    }
    #expect(notes.0 == 300)
    #expect(notes.1 == Date(timeIntervalSinceReferenceDate: 7))
    #expect(notes.2 == 0)
  }

  // MARK: - Saving before the store is ready

  @Test("saving before the store is ready: the main context saves into the writer; the write waits for the store")
  func saveBeforeReady() async throws {
    let folder = try TemporaryFolder()
    try writeVersion1Store(in: folder.url, notes: 10)
    let gate = MigrationGate()
    defer { gate.release() }
    let launch = try await Launch(storeFolder: folder.url, migrationProgress: gate.progress)
    try await gate.waitUntilMigrating()
    let main = launch.controller.mainContext
    let parent = try #require(main.parent)

    let written = Signal<(result: Result<Void, any Error>, afterCallback: Bool)>()
    try await main.perform {
      let note = Note(context: main)
      note.title = "Written before the store was there"
      note.createdAt = Date()
      try launch.controller.saveChanges { result in written.fulfil((result, launch.hasCalledBack)) }
    }

    #expect(await main.perform { main.hasChanges } == false, "the main context's half is done")
    #expect(await parent.perform { parent.insertedObjects.count } == 1, "the note waits in the writer")
    try await drainMainQueue()
    #expect(written.value == nil, "the write waits for the store")

    gate.release()
    let outcome = try await written.wait("saveChanges' completion")
    try outcome.result.get()
    #expect(outcome.afterCallback, "the callback comes before the completion of a write that waited")
    #expect(await parent.perform { parent.hasChanges } == false)

    // A second launch reads the file: the ten old notes and the new one.
    let reader = try await Launch(storeFolder: folder.url)
    try await reader.callback().result.get()
    let context = reader.controller.mainContext
    let titles = try await context.perform {
      try context.fetch(NSFetchRequest<Note>(entityName: "Note")).map(\.title)
    }
    #expect(titles.count == 11)
    #expect(titles.contains("Written before the store was there"))
  }

  @Test("saving after a failed load: the completion gets the load's error, and the changes stay in the writer")
  func saveAfterFailedLoad() async throws {
    let folder = try TemporaryFolder()
    let storeURL = folder.appending("DataModel.sqlite")
    try Data("my shopping list".utf8).write(to: storeURL)
    let before = try storeFiles(storeURL)
    let launch = try await Launch(storeFolder: folder.url)
    _ = try await launch.failure()
    let main = launch.controller.mainContext
    let parent = try #require(main.parent)

    let error = await #expect(throws: PersistenceControllerError.self) {
      await main.perform {
        let note = Note(context: main)
        note.title = "Kept in memory"
        note.createdAt = Date()
      }
      try await launch.controller.saveChangesAndWait()
    }

    #expect(error?.underlyingError?.code == NSPersistentStoreInvalidTypeError)
    #expect(await parent.perform { parent.insertedObjects.count } == 1)
    try expectUntouched(storeURL, since: before)
  }

  // MARK: - Failures reach the callback; the file is left as it was

  @Test("a model name the bundle does not have: the callback names the model and the bundle; no folder is made")
  func missingModel() async throws {
    let folder = try TemporaryFolder()
    let storeFolder = folder.appending("Stores")
    let launch = try await Launch(modelName: "Missing", storeFolder: storeFolder)

    let error = try await launch.failure()

    guard case .modelNotFound(let name, let bundle) = error else {
      Issue.record("expected modelNotFound, got \(error)")
      return
    }
    #expect(name == "Missing")
    #expect(bundle == NotesModel.bundle.bundleURL.path)
    #expect(error.description.contains("'Missing'"))
    #expect(!FileManager.default.fileExists(atPath: storeFolder.path))
  }

  @Test("a file that is not a store (and its companions) is left as it was: 134000")
  func foreignFile() async throws {
    let folder = try TemporaryFolder()
    let storeURL = folder.appending("DataModel.sqlite")
    try Data("my shopping list".utf8).write(to: storeURL)
    try Data("not a WAL".utf8).write(to: URL(fileURLWithPath: storeURL.path + "-wal"))
    let before = try storeFiles(storeURL)

    let error = try await Launch(storeFolder: folder.url).failure()

    #expect(error.underlyingError?.code == NSPersistentStoreInvalidTypeError, "\(error)")
    #expect(error.description.contains("left exactly as it was"))
    try expectUntouched(storeURL, since: before)
  }

  @Test(
    "a store made by a later version of the model than the app's current one loads, migrated to the app's version: Core Data has no version order"
  )
  func storeFromALaterVersion() async throws {
    let folder = try TemporaryFolder()
    // An older app: the same model, with version 1 as its current version.
    let olderApp = try makeModelBundle(
      in: folder.appending("OlderApp"), name: NotesModel.name,
      versions: [
        ("DataModel 2", try tutorialModelContents(version: "DataModel 2")),
        ("DataModel", try tutorialModelContents(version: "DataModel")),
      ])
    try writeStore(in: folder.appending("Stores"), model: try tutorialModel(version: "DataModel 2")) { context in
      let note = Note(context: context)
      note.title = "Written by version 2"
      note.createdAt = Date()
      note.wordCount = 3
    }

    let launch = try await Launch(bundle: olderApp, storeFolder: folder.appending("Stores"))
    try await launch.callback().result.get()

    let main = launch.controller.mainContext
    let titles = try await main.perform {
      try main.fetch(NSFetchRequest<NSManagedObject>(entityName: "Note")).map { $0.value(forKey: "title") as? String }
    }
    #expect(titles == ["Written by version 2"])
  }

  @Test("a change that cannot be inferred (String to Integer 64) is left as it was: 134140")
  func changeThatCannotBeInferred() async throws {
    let folder = try TemporaryFolder()
    let app = try makeModelBundle(
      in: folder.appending("App"), name: "Items",
      versions: [("Items", itemModelContents(valueType: "String")), ("Items 2", itemModelContents(valueType: "Integer 64"))])
    let modelURL = try #require(app.url(forResource: "Items", withExtension: "xcdatamodeld"))
    let version1 = try #require(try NSManagedObjectModel.versions(in: modelURL).first { $0.name == "Items" }?.model)
    let storeURL = try writeStore(in: folder.appending("Stores"), named: "Items", model: version1) { context in
      let entity = try #require(version1.entitiesByName["Item"])
      NSManagedObject(entity: entity, insertInto: context).setValue("forty-two", forKey: "value")
    }
    let before = try storeFiles(storeURL)

    let error = try await Launch(modelName: "Items", bundle: app, storeFolder: folder.appending("Stores")).failure()

    #expect(error.underlyingError?.code == NSMigrationMissingMappingModelError, "\(error)")
    try expectUntouched(storeURL, since: before)
  }

  @Test("a store made with a model the app does not have, and which the store does not keep, is left as it was: 134130")
  func missingSourceModel() async throws {
    let folder = try TemporaryFolder()
    // A model version this app never shipped, older by name than its current one ("Archive" < "DataModel 2").
    let other = try makeModelBundle(
      in: folder.appending("OtherApp"), name: "Other", versions: [("Archive", itemModelContents(valueType: "String"))])
    let otherModel = try NSManagedObjectModel(
      loadingContentsOf: try #require(other.url(forResource: "Other", withExtension: "xcdatamodeld")))
    let storeURL = try writeStore(in: folder.appending("Stores"), model: otherModel) { context in
      let entity = try #require(otherModel.entitiesByName["Item"])
      NSManagedObject(entity: entity, insertInto: context).setValue("someone else's", forKey: "value")
    }
    // Stores made before ObjectGraph kept a copy of their model (Core Data's Z_MODELCACHE) have none.
    try await DatabaseQueue(path: storeURL.path).write { try $0.execute(sql: "DROP TABLE Z_MODELCACHE") }
    let before = try storeFiles(storeURL)

    let error = try await Launch(storeFolder: folder.appending("Stores")).failure()

    #expect(error.underlyingError?.code == NSMigrationMissingSourceModelError, "\(error)")
    try expectUntouched(storeURL, since: before)
  }

  @Test("a folder that cannot be written: the callback says so, and a store in it is left as it was")
  func unwritableFolder() async throws {
    guard getuid() != 0 else {
      // root may write anywhere; a folder no one may make stands in for it.
      let error = try await Launch(storeFolder: URL(fileURLWithPath: "/proc/stage3-tests/Stores")).failure()
      guard case .storeFolderUnavailable(let path, _) = error else {
        Issue.record("expected storeFolderUnavailable, got \(error)")
        return
      }
      #expect(path == "/proc/stage3-tests/Stores")
      return
    }
    let folder = try TemporaryFolder()
    let storeURL = try writeVersion1Store(in: folder.url, notes: 5)
    let before = try storeFiles(storeURL)
    // A read-only folder: the test's scope makes it writable again to remove it.
    try FileManager.default.setAttributes([.posixPermissions: 0o555], ofItemAtPath: folder.url.path)

    let error = try await Launch(storeFolder: folder.url).failure()

    let code = error.underlyingError?.code
    #expect(code == NSPersistentStoreOpenError || code == NSMigrationError, "\(error)")
    try expectUntouched(storeURL, since: before)
  }

  @Test("a store folder that cannot be made (a file is in the way): the callback says so; the file is left alone")
  func storeFolderUnderAFile() async throws {
    let folder = try TemporaryFolder()
    let blocker = folder.appending("Notes")
    try Data("not a folder".utf8).write(to: blocker)

    let error = try await Launch(storeFolder: blocker.appendingPathComponent("Stores")).failure()

    guard case .storeFolderUnavailable(let path, let reason) = error else {
      Issue.record("expected storeFolderUnavailable, got \(error)")
      return
    }
    #expect(path == blocker.appendingPathComponent("Stores").path)
    #expect(!reason.isEmpty)
    #expect(try Data(contentsOf: blocker) == Data("not a folder".utf8))
  }

  // MARK: - Starting fresh

  @Test("startFresh moves the store and its companions aside to a dated name, then loads a new, empty store")
  func startFresh() async throws {
    let folder = try TemporaryFolder()
    let storeURL = folder.appending("DataModel.sqlite")
    try Data("my shopping list".utf8).write(to: storeURL)
    let launch = try await Launch(storeFolder: folder.url)
    _ = try await launch.failure()
    // Companions as a store in WAL mode has them: they go with it.
    try Data("its WAL".utf8).write(to: URL(fileURLWithPath: storeURL.path + "-wal"))
    try Data("its SHM".utf8).write(to: URL(fileURLWithPath: storeURL.path + "-shm"))

    let fresh = Signal<(result: Result<Void, PersistenceControllerError>, onMainQueue: Bool)>()
    let aside = try #require(try launch.controller.startFresh { fresh.fulfil(($0, MainQueueProbe.isOnMainQueue)) })

    #expect(aside.deletingLastPathComponent().standardizedFileURL == folder.url.standardizedFileURL)
    #expect(aside.lastPathComponent.wholeMatch(of: /DataModel-moved-aside-\d{4}-\d\d-\d\d-\d{6}(-\d+)?\.sqlite/) != nil, "\(aside)")
    #expect(try Data(contentsOf: aside) == Data("my shopping list".utf8))
    #expect(try Data(contentsOf: URL(fileURLWithPath: aside.path + "-wal")) == Data("its WAL".utf8))
    #expect(try Data(contentsOf: URL(fileURLWithPath: aside.path + "-shm")) == Data("its SHM".utf8))

    let loaded = try await fresh.wait("startFresh's callback")
    try loaded.result.get()
    #expect(loaded.onMainQueue)
    // The same main context, now on a new, empty store that saves.
    let main = launch.controller.mainContext
    let countBefore = try await main.perform { try main.count(for: NSFetchRequest<Note>(entityName: "Note")) }
    #expect(countBefore == 0)
    await main.perform {
      let note = Note(context: main)
      note.title = "A fresh start"
      note.createdAt = Date()
    }
    try await launch.controller.saveChangesAndWait()
    #expect(FileManager.default.fileExists(atPath: storeURL.path))
    #expect(launch.callbackCount == 1, "startFresh reports to its own callback")
  }

  @Test("startFresh refuses a store that loaded, and moves nothing")
  func startFreshOnlyAfterAFailure() async throws {
    let folder = try TemporaryFolder()
    let launch = try await Launch(storeFolder: folder.url)
    try await launch.callback().result.get()

    let error = #expect(throws: PersistenceControllerError.self) { try launch.controller.startFresh { _ in } }

    guard case .storeInUse(let path) = error else {
      Issue.record("expected storeInUse, got \(String(describing: error))")
      return
    }
    #expect(path == launch.controller.storeURL.path)
    let files = try FileManager.default.contentsOfDirectory(atPath: folder.url.path)
    #expect(files.allSatisfy { $0.hasPrefix("DataModel.sqlite") }, "\(files)")
  }
}
