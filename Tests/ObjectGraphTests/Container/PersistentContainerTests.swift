import Foundation
import TestSupport
import Testing

@testable import ObjectGraph

/// The persistent container: the stack stage 4 builds by hand, in one object, with Core Data's choices.
@Suite("NSPersistentContainer", .timeLimit(.minutes(2)), .temporaryFolders)
struct PersistentContainerTests {
  /// A container for the tests' notes model with its store in `folder`.
  private func container(in folder: TemporaryFolder, async: Bool = false) throws -> NSPersistentContainer {
    let container = NSPersistentContainer(name: "Notes", managedObjectModel: try Models.notes())
    let description = NSPersistentStoreDescription(url: folder.appending("Notes.sqlite"))
    description.shouldAddStoreAsynchronously = async
    container.persistentStoreDescriptions = [description]
    return container
  }

  /// A bundle holding the Trips model (`Trips.xcdatamodeld`, whose current version is `Trips 2`) and nothing
  /// else but its mapping model.
  private func tripsBundle() throws -> Bundle {
    let folder = try TemporaryFolder()
    try TripsFixture.bundle(in: folder)
    return try #require(Bundle(path: folder.url.path))
  }

  @Test("The model is found by name in the bundle, at its current version; the default store is <name>.sqlite in the default folder")
  func defaults() throws {
    let container = NSPersistentContainer(name: "Trips", bundle: try tripsBundle())
    #expect(container.managedObjectModel.entitiesByName["Person"] != nil)
    #expect(container.managedObjectModel.entitiesByName["Traveller"] == nil)
    let url = try #require(container.persistentStoreDescriptions.first?.url)
    #expect(url.lastPathComponent == "Trips.sqlite")
    #expect(url.deletingLastPathComponent().standardizedFileURL == NSPersistentContainer.defaultDirectoryURL().standardizedFileURL)
    #expect(container.viewContext.concurrencyType == .mainQueueConcurrencyType)
    #expect(container.viewContext.persistentStoreCoordinator === container.persistentStoreCoordinator)
    #expect(container.persistentStoreCoordinator.persistentStores.isEmpty)

  }

  @Test("A missing model does not stop init(name:): the container's model is empty and loading reports the error, adding no store")
  func missingModel() throws {
    let folder = try TemporaryFolder()
    let container = NSPersistentContainer(name: "NoSuchModel", bundle: try tripsBundle())
    #expect(container.managedObjectModel.entities.isEmpty)
    let stores = [folder.appending("A.sqlite"), folder.appending("B.sqlite")]
    container.persistentStoreDescriptions = stores.map { NSPersistentStoreDescription(url: $0) }
    let reports = Shared<[(String, NSError?)]>([])
    container.loadPersistentStores { description, error in
      reports.withLock { $0.append((description.url?.lastPathComponent ?? "?", error as NSError?)) }
    }
    let reported = reports.withLock { $0 }
    #expect(reported.map(\.0) == ["A.sqlite", "B.sqlite"])
    for (_, error) in reported {
      #expect(error?.code == ObjectGraphModelInvalidError)
      #expect(error?.domain == "ObjectGraphErrorDomain")
      #expect(error?.localizedDescription.contains("NoSuchModel.xcdatamodeld") == true)
    }
    #expect(container.persistentStoreCoordinator.persistentStores.isEmpty)
    #expect(stores.allSatisfy { !FileManager.default.fileExists(atPath: $0.path) })
  }

  @Test("Loading adds each store before returning, reporting once per description; a background save reaches the view context by merging")
  func loadAndWork() async throws {
    let folder = try TemporaryFolder()
    let container = try container(in: folder)
    let reports = Shared<[String]>([])
    container.loadPersistentStores { description, error in
      reports.withLock { $0.append("\(description.url?.lastPathComponent ?? "?") \(error.map { "\($0)" } ?? "loaded")") }
    }
    #expect(reports.withLock { $0 } == ["Notes.sqlite loaded"])
    #expect(container.persistentStoreCoordinator.persistentStores.count == 1)

    let view = container.viewContext
    view.automaticallyMergesChangesFromParent = true
    let id = try await container.performBackgroundTask { context in
      let note = Note(context: context)
      note.title = "from the background"
      note.createdAt = Date()
      try context.save()
      return note.objectID
    }
    let deadline = Date().addingTimeInterval(10)
    var title: String?
    while title == nil && Date() < deadline {
      title = await MainActor.run { (try? view.existingObject(with: id) as? Note)?.title }
      if title == nil { try await Task.sleep(for: .milliseconds(10)) }
    }
    #expect(title == "from the background")
    let background = container.newBackgroundContext()
    #expect(background !== view && background.concurrencyType == .privateQueueConcurrencyType && background.parent == nil)
    #expect(try background.performAndWait { try background.count(for: NSFetchRequest<Note>(entityName: "Note")) } == 1)
  }

  @Test("An asynchronous description is added on a background queue and reports there; a bad folder is reported, not thrown")
  func asynchronousAndFailing() async throws {
    let folder = try TemporaryFolder()
    let container = try container(in: folder, async: true)
    let loaded = await withCheckedContinuation { continuation in
      container.loadPersistentStores { _, error in continuation.resume(returning: error == nil && !Thread.isMainThread) }
    }
    #expect(loaded)
    #expect(container.persistentStoreCoordinator.persistentStores.count == 1)

    let broken = NSPersistentContainer(name: "Notes", managedObjectModel: try Models.notes())
    broken.persistentStoreDescriptions = [NSPersistentStoreDescription(url: URL(fileURLWithPath: "/dev/null/Stores/Notes.sqlite"))]
    let failure = Shared<NSError?>(nil)
    broken.loadPersistentStores { _, error in failure.withLock { $0 = error.map { $0 as NSError } } }
    #expect(failure.withLock { $0 }?.code == NSPersistentStoreOpenError)
    #expect(broken.persistentStoreCoordinator.persistentStores.isEmpty)

    let memory = NSPersistentContainer(name: "Notes", managedObjectModel: try Models.notes())
    memory.persistentStoreDescriptions = [NSPersistentStoreDescription(url: URL(fileURLWithPath: "/dev/null"))]
    memory.loadPersistentStores { _, error in #expect(error == nil) }
    #expect(memory.persistentStoreCoordinator.persistentStores.first?.type == NSInMemoryStoreType)
  }
}
