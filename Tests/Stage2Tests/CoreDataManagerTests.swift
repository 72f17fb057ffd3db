import Dispatch
import Foundation
import NotesModel
import ObjectGraph
import Stage2
import Synchronization
import TestSupport
import Testing

// A main-queue context's work runs on DispatchQueue.main. Under Swift Testing those blocks run (on a
// thread that is not the main thread), so the tests reach the main context through `await
// context.perform` and never block waiting for the main queue. The private context is private to the
// manager; the tests reach it as ObjectGraph lets anyone: it is the main context's `parent`.

@Suite("CoreDataManager, stage 2", .temporaryFolders)
struct CoreDataManagerTests {
  // MARK: - The shape of the stack

  @Test("the private context holds the coordinator; the main context is its child, with no coordinator of its own")
  func shape() throws {
    let folder = try TemporaryFolder()
    let manager = CoreDataManager(storeFolder: folder.url)

    let main = try manager.mainContext
    let parent = try #require(main.parent, "the main context has a parent")

    #expect(main.concurrencyType == .mainQueueConcurrencyType)
    #expect(parent.concurrencyType == .privateQueueConcurrencyType)
    #expect(parent.parent == nil, "the private context is the root: it saves to the coordinator")
    let coordinator = try #require(parent.persistentStoreCoordinator)
    #expect(coordinator.persistentStores.first?.url?.standardizedFileURL == manager.storeURL.standardizedFileURL)
    // A context has a parent or a coordinator, never both. Asked for its coordinator, a child answers
    // with its parent's (Core Data does the same); it holds none of its own.
    #expect(main.persistentStoreCoordinator === coordinator)
    #expect(try manager.mainContext === main, "every access returns the same main context")
  }

  @Test("before the stack is built, saveChanges does nothing, makes nothing, and reports success")
  func saveBeforeBuild() async throws {
    let folder = try TemporaryFolder()
    let storeFolder = folder.url.appendingPathComponent("Stores")
    let manager = CoreDataManager(storeFolder: storeFolder)

    try await manager.saveChangesAndWait { start in start() }

    #expect(!FileManager.default.fileExists(atPath: storeFolder.path))
  }

  // MARK: - Where a save goes

  @Test("saving the main context leaves the file as it was; the private context's save writes it")
  func childSaveStopsAtParent() async throws {
    let folder = try TemporaryFolder()
    let manager = CoreDataManager(storeFolder: folder.url)
    let main = try manager.mainContext
    let parent = try #require(main.parent)

    try await main.perform {
      let note = Note(context: main)
      note.title = "Buy milk"
      note.createdAt = Date()
      try main.save()
    }

    #expect(try await notesInFile(folder.url) == [], "the main context's save did not reach the file")
    #expect(await parent.perform { parent.insertedObjects.count } == 1, "the note is in the private context")

    try await manager.saveChangesAndWait()

    #expect(try await notesInFile(folder.url) == [NoteRow(title: "Buy milk", body: nil)])
    #expect(await parent.perform { parent.hasChanges } == false)
  }

  @Test("saveChanges saves the main context first, on the main queue, then the private one on its own queue")
  func saveOrder() async throws {
    let folder = try TemporaryFolder()
    let manager = CoreDataManager(storeFolder: folder.url)
    let main = try manager.mainContext
    let recorder = SaveRecorder(main: main)

    let whenCallReturned = Mutex<(mainHasChanges: Bool, saves: [SaveRecorder.Event])?>(nil)

    try await manager.saveChangesAndWait { save in
      main.perform {
        let note = Note(context: main)
        note.title = "Call the plumber"
        note.createdAt = Date()
        save()
        // The main context's half is done before saveChanges returns; the disk write may not be.
        whenCallReturned.withLock { $0 = (main.hasChanges, recorder.saves) }
      }
    }

    let atReturn = try #require(whenCallReturned.withLock { $0 })
    #expect(atReturn.mainHasChanges == false)
    #expect(atReturn.saves.first == SaveRecorder.Event(context: "main", onMainQueue: true))
    #expect(recorder.saves == [.init(context: "main", onMainQueue: true), .init(context: "private", onMainQueue: false)])
    #expect(try await notesInFile(folder.url).map(\.title) == ["Call the plumber"])
  }

  @Test("saveChanges may be called from any queue: the main context still saves on the main queue")
  func saveFromAnotherQueue() async throws {
    let folder = try TemporaryFolder()
    let manager = CoreDataManager(storeFolder: folder.url)
    let main = try manager.mainContext
    let recorder = SaveRecorder(main: main)
    await main.perform {
      let note = Note(context: main)
      note.title = "Plan the hike"
      note.createdAt = Date()
    }

    try await manager.saveChangesAndWait { start in DispatchQueue.global().async { start() } }

    #expect(recorder.saves == [.init(context: "main", onMainQueue: true), .init(context: "private", onMainQueue: false)])
  }

  // MARK: - Skipping clean contexts

  @Test("a context with nothing to save is skipped: no did-save, and the completion still reports success")
  func cleanContextsAreSkipped() async throws {
    let folder = try TemporaryFolder()
    let manager = CoreDataManager(storeFolder: folder.url)
    let main = try manager.mainContext
    let recorder = SaveRecorder(main: main)

    try await manager.saveChangesAndWait()  // nothing changed anywhere
    #expect(recorder.saves == [])

    try await main.perform {
      let note = Note(context: main)
      note.title = "Saved by the main context alone"
      note.createdAt = Date()
      try main.save()
    }
    try await manager.saveChangesAndWait()  // only the private context has changes
    #expect(recorder.saves.map(\.context) == ["main", "private"])

    try await manager.saveChangesAndWait()  // both clean again
    #expect(recorder.saves.map(\.context) == ["main", "private"])
  }

  // MARK: - Errors reach the caller

  @Test("a validation failure in the main context is thrown; nothing moves up and the completion is never called")
  func mainContextFailureIsThrown() async throws {
    let folder = try TemporaryFolder()
    let manager = CoreDataManager(storeFolder: folder.url)
    let main = try manager.mainContext
    let parent = try #require(main.parent)
    let completionCalls = Mutex(0)

    let error = await #expect(throws: NSError.self) {
      try await main.perform {
        let note = Note(context: main)
        note.title = "No date"  // createdAt is required
        try manager.saveChanges { _ in completionCalls.withLock { $0 += 1 } }
      }
    }

    #expect(error?.code == NSValidationMissingMandatoryPropertyError)
    #expect(error?.description.contains("createdAt") == true)
    #expect(await main.perform { main.insertedObjects.count } == 1, "the main context keeps its changes")
    #expect(await parent.perform { parent.hasChanges } == false)
    // Had a disk write been queued, its completion would be on the main queue before this block.
    await parent.perform {}
    await main.perform {}
    #expect(completionCalls.withLock { $0 } == 0)
    #expect(try await notesInFile(folder.url) == [])
  }

  @Test("a failed disk write reaches the completion; the changes stay in the private context for the next try")
  func privateContextFailureIsReported() async throws {
    let folder = try TemporaryFolder()
    let manager = CoreDataManager(storeFolder: folder.url)
    let main = try manager.mainContext
    let parent = try #require(main.parent)
    await main.perform {
      let note = Note(context: main)
      note.title = "Groceries"
      note.createdAt = Date()
    }
    try await manager.saveChangesAndWait()

    // The user edits the note; the main context's save moves the edit into the private context, which
    // reads the row as it is in the file now.
    try await main.perform {
      try main.fetch(NSFetchRequest<Note>(entityName: "Note")).first?.body = "milk, eggs"
      try main.save()
    }
    // Meanwhile another stack on the same file (another process, an extension) changes the same row.
    let other = CoreDataManager(storeFolder: folder.url)
    let otherMain = try other.mainContext
    try await otherMain.perform {
      try otherMain.fetch(NSFetchRequest<Note>(entityName: "Note")).first?.title = "Shopping"
    }
    try await other.saveChangesAndWait()

    // The private context's save finds the row changed since it read it: merge policy `.error` refuses.
    let error = await #expect(throws: NSError.self) { try await manager.saveChangesAndWait() }
    #expect(error?.code == NSManagedObjectMergeError)
    #expect(try await notesInFile(folder.url) == [NoteRow(title: "Shopping", body: nil)], "nothing was written")

    // Nothing is lost: the edit waits in the private context, and the main context still shows it.
    #expect(await parent.perform { parent.updatedObjects.count } == 1)
    #expect(try await main.perform { try main.fetch(NSFetchRequest<Note>(entityName: "Note")).map(\.body) } == ["milk, eggs"])

    // Once the app decides how to resolve the conflict (here: per property, ours wins), the next call
    // writes the edit, next to the other stack's change.
    parent.mergePolicy = NSMergePolicy.mergeByPropertyObjectTrump
    try await manager.saveChangesAndWait()
    #expect(try await notesInFile(folder.url) == [NoteRow(title: "Shopping", body: "milk, eggs")])
  }
}
