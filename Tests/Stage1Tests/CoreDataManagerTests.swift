import Foundation
import NotesModel
import ObjectGraph
import Stage1
import TestSupport
import Testing

// A main-queue context's work runs on DispatchQueue.main. Under Swift Testing those blocks run (on a
// thread that is not the main thread), so the tests reach the context through `await context.perform`
// and never block waiting for the main queue.

@Suite("CoreDataManager", .temporaryFolders)
struct CoreDataManagerTests {
  // MARK: - Building the stack

  @Test("init only remembers; nothing is loaded or written before the context is asked for")
  func initIsLazy() throws {
    let folder = try TemporaryFolder()
    let storeFolder = folder.appending("Stores")

    let manager = CoreDataManager(modelName: NotesModel.name, storeFolder: storeFolder)

    #expect(manager.storeURL == storeFolder.appendingPathComponent("DataModel.sqlite"))
    #expect(!FileManager.default.fileExists(atPath: storeFolder.path))
  }

  @Test("the tutorial's model loads from the bundle")
  func modelLoads() throws {
    let folder = try TemporaryFolder()
    let manager = CoreDataManager(modelName: NotesModel.name, storeFolder: folder.url)

    let model = try #require(try manager.mainContext.persistentStoreCoordinator?.managedObjectModel)

    #expect(Set(model.entitiesByName.keys) == ["Attachment", "Note", "Notebook", "Tag"])
    #expect(model.entitiesByName["Note"]?.relationshipsByName["tags"]?.isToMany == true)
  }

  @Test("the store file is created in the given folder, and missing folders are made")
  func storeFileInGivenFolder() throws {
    let folder = try TemporaryFolder()
    let storeFolder = folder.appending("Library/Application Support/Notes")
    let manager = CoreDataManager(modelName: NotesModel.name, storeFolder: storeFolder)

    _ = try manager.mainContext

    let store = try #require(manager.mainContext.persistentStoreCoordinator?.persistentStores.first)
    #expect(store.url?.standardizedFileURL == storeFolder.appendingPathComponent("DataModel.sqlite").standardizedFileURL)
    #expect(FileManager.default.fileExists(atPath: manager.storeURL.path))
  }

  @Test("without a folder, the store goes in the default folder, named after the model")
  func defaultStoreLocation() {
    let manager = CoreDataManager(modelName: "Journal")  // never asked for its context: nothing is written

    #expect(CoreDataManager.defaultStoreFolder().lastPathComponent == "CoreDataStackWorkshop")
    #expect(manager.storeURL == CoreDataManager.defaultStoreFolder().appendingPathComponent("Journal.sqlite"))
  }

  // MARK: - The context

  @Test("the context is a main-queue context whose work runs on the main queue")
  func mainQueueContext() async throws {
    let folder = try TemporaryFolder()
    let context = try CoreDataManager(modelName: NotesModel.name, storeFolder: folder.url).mainContext

    #expect(context.concurrencyType == .mainQueueConcurrencyType)
    let onMainQueue = await context.perform { MainQueueProbe.isOnMainQueue }
    #expect(onMainQueue)
  }

  @Test("every access returns the same context, even when many threads ask first at once")
  func sameContextEveryTime() async throws {
    let folder = try TemporaryFolder()
    let manager = CoreDataManager(modelName: NotesModel.name, storeFolder: folder.url)

    let contexts = try await withThrowingTaskGroup(of: ObjectIdentifier.self) { group in
      for _ in 0..<8 {
        group.addTask { ObjectIdentifier(try manager.mainContext) }
      }
      return try await group.reduce(into: Set<ObjectIdentifier>()) { $0.insert($1) }
    }

    #expect(contexts.count == 1)
    #expect(try manager.mainContext === manager.mainContext)
  }

  // MARK: - Saving and relaunching

  @Test("notes saved through one manager are found by a second manager on the same folder")
  func notesPersistAcrossManagers() async throws {
    let folder = try TemporaryFolder()

    let first = try CoreDataManager(modelName: NotesModel.name, storeFolder: folder.url).mainContext
    try await first.perform {
      let notebook = Notebook(context: first)
      notebook.name = "Work"
      notebook.createdAt = Date()
      let urgent = Tag(context: first)
      urgent.name = "urgent"
      for title in ["Write report", "Book flights"] {
        let note = Note(context: first)
        note.title = title
        note.createdAt = Date()
        note.notebook = notebook
        note.tags = [urgent]
      }
      try first.save()
    }

    let second = try CoreDataManager(modelName: NotesModel.name, storeFolder: folder.url).mainContext
    let found = try await second.perform {
      let request = NSFetchRequest<Note>(entityName: "Note")
      request.sortDescriptors = [NSSortDescriptor(key: "title", ascending: true)]
      return try second.fetch(request).map { note in
        NoteSummary(title: note.title, notebook: note.notebook?.name, tags: note.tags.map(\.name).sorted())
      }
    }

    #expect(
      found == [
        NoteSummary(title: "Book flights", notebook: "Work", tags: ["urgent"]),
        NoteSummary(title: "Write report", notebook: "Work", tags: ["urgent"]),
      ])
  }

  @Test("fetched objects are instances of the tutorial's classes")
  func fetchedObjectsAreTyped() async throws {
    let folder = try TemporaryFolder()
    let writer = try CoreDataManager(modelName: NotesModel.name, storeFolder: folder.url).mainContext
    try await writer.perform {
      let note = Note(context: writer)
      note.title = "Typed"
      note.createdAt = Date()
      let tag = Tag(context: writer)
      tag.name = "swift"
      note.tags = [tag]
      try writer.save()
    }

    let reader = try CoreDataManager(modelName: NotesModel.name, storeFolder: folder.url).mainContext
    let classes = try await reader.perform {
      // Untyped requests, so the check is on the class the engine chose, not on a cast.
      let notes = try reader.fetch(NSFetchRequest<NSManagedObject>(entityName: "Note"))
      let tags = try reader.fetch(NSFetchRequest<NSManagedObject>(entityName: "Tag"))
      return (notes + tags).map { "\(type(of: $0))" }
    }

    #expect(classes == ["Note", "Tag"])
  }

  // MARK: - Failures reach the caller

  @Test("a model name the bundle does not have is an error naming the model and the bundle")
  func missingModel() throws {
    let folder = try TemporaryFolder()
    let storeFolder = folder.appending("Stores")
    let manager = CoreDataManager(modelName: "Missing", storeFolder: storeFolder)

    let error = try #require(throws: CoreDataManagerError.self) { try manager.mainContext }

    #expect(error == .modelNotFound(name: "Missing", bundle: NotesModel.bundle.bundleURL.path))
    #expect(error.description.contains("'Missing'"))
    #expect(error.description.contains(NotesModel.bundle.bundleURL.path))
    #expect(!FileManager.default.fileExists(atPath: storeFolder.path), "no folder is made for a model that is not there")
  }

  @Test("a store folder that cannot be made is an error, and what is in the way is left alone")
  func storeFolderUnderAFile() throws {
    let folder = try TemporaryFolder()
    let blocker = folder.appending("Notes")
    let contents = Data("not a folder".utf8)
    try contents.write(to: blocker)
    let manager = CoreDataManager(modelName: NotesModel.name, storeFolder: blocker.appendingPathComponent("Stores"))

    let error = try #require(throws: CoreDataManagerError.self) { try manager.mainContext }

    guard case .storeFolderUnavailable(let path, _) = error else {
      Issue.record("expected storeFolderUnavailable, got \(error)")
      return
    }
    #expect(path.hasSuffix("Notes/Stores"))
    #expect(try Data(contentsOf: blocker) == contents)
  }

  @Test("a file that is not a store is ObjectGraph's error, the file is untouched, and a later access tries again")
  func notAStore() throws {
    let folder = try TemporaryFolder()
    let manager = CoreDataManager(modelName: NotesModel.name, storeFolder: folder.url)
    let contents = Data("These are my notes, not a database.\n".utf8)
    try contents.write(to: manager.storeURL)

    let error = try #require(throws: NSError.self) { try manager.mainContext }
    #expect(error.code == NSPersistentStoreInvalidTypeError)
    #expect(error.description.contains(manager.storeURL.path))
    #expect(try Data(contentsOf: manager.storeURL) == contents)
    let leftovers = try FileManager.default.contentsOfDirectory(atPath: folder.url.path)
    #expect(leftovers == ["DataModel.sqlite"], "no -wal, -shm or -journal file next to the refused file")

    // Nothing half-built was kept: the next access fails again, and succeeds once the file is gone.
    #expect(throws: NSError.self) { try manager.mainContext }
    try FileManager.default.removeItem(at: manager.storeURL)
    #expect(try manager.mainContext.persistentStoreCoordinator?.persistentStores.count == 1)
  }
}

/// What the persistence test compares: a note's title, notebook and tag names.
struct NoteSummary: Equatable, Sendable {
  let title: String
  let notebook: String?
  let tags: [String]
}
