import Foundation
import ObjectGraph
import TestSupport
import Testing

@Suite("NSPersistentContainer", .temporaryFolders)
struct ContainerTests {
  @Test func descriptionWithOptionsLoadsAndReportsItself() throws {
    let storeURL = try TemporaryFolder().appending("Model.sqlite")
    let container = NSPersistentContainer(name: "Model", managedObjectModel: sharedModel)
    let description = NSPersistentStoreDescription(url: storeURL)
    description.type = NSSQLiteStoreType
    description.shouldAddStoreAsynchronously = false
    description.setOption(true as NSNumber, forKey: NSPersistentHistoryTrackingKey)
    description.setOption(true as NSNumber, forKey: NSMigratePersistentStoresAutomaticallyOption)
    description.setOption(true as NSNumber, forKey: NSInferMappingModelAutomaticallyOption)
    container.persistentStoreDescriptions = [description]

    container.loadPersistentStores { storeDescription, error in
      #expect(error == nil)
      #expect(storeDescription.url == storeURL)
    }
    let store = try #require(container.persistentStoreCoordinator.persistentStores.first)
    #expect(store.url == storeURL)
    #expect(store.type == NSSQLiteStoreType)
    #expect(FileManager.default.fileExists(atPath: storeURL.path))
  }

  @Test func loadErrorKeptInAVariable() throws {
    let container = NSPersistentContainer(name: "Model", managedObjectModel: sharedModel)
    let missingFolder = try TemporaryFolder().appending("missing")
    container.persistentStoreDescriptions = [NSPersistentStoreDescription(url: missingFolder.appendingPathComponent("Model.sqlite"))]
    var loadError: Error?
    var loaded: [URL] = []
    container.loadPersistentStores { storeDescription, error in
      if let error {
        loadError = error
      } else if let url = storeDescription.url {
        loaded.append(url)
      }
    }
    let error = try #require(loadError as NSError?)
    #expect(error.domain == NSCocoaErrorDomain)
    #expect(loaded.isEmpty)
  }

  @Test func storeAddedAsynchronouslyCallsBack() async throws {
    let storeURL = try TemporaryFolder().appending("Model.sqlite")
    let container = NSPersistentContainer(name: "Model", managedObjectModel: sharedModel)
    let description = NSPersistentStoreDescription(url: storeURL)
    description.shouldAddStoreAsynchronously = true
    container.persistentStoreDescriptions = [description]
    let error: (any Error)? = await withCheckedContinuation { continuation in
      container.loadPersistentStores { _, error in
        continuation.resume(returning: error)
      }
    }
    #expect(error == nil)
    #expect(container.persistentStoreCoordinator.persistentStores.count == 1)
  }

  @Test func inMemoryStoreDescription() throws {
    let container = NSPersistentContainer(name: "Model", managedObjectModel: sharedModel)
    let description = NSPersistentStoreDescription()
    description.type = NSInMemoryStoreType
    container.persistentStoreDescriptions = [description]
    container.loadPersistentStores { _, error in
      #expect(error == nil)
    }
    let context = container.viewContext
    try context.performAndWait {
      let item = Item(context: context)
      item.title = "In memory"
      try context.save()
      #expect(try context.count(for: Item.fetchRequest()) == 1)
    }
  }

  @Test func backgroundContextSaveReachesViewContextThatMergesAutomatically() async throws {
    let container = makeContainer(at: try TemporaryFolder().appending("Model.sqlite"))
    let viewContext = container.viewContext
    viewContext.automaticallyMergesChangesFromParent = true
    let items = try viewContext.performAndWait { try viewContext.fetch(Item.fetchRequest()) }
    #expect(items.isEmpty)

    let background = container.newBackgroundContext()
    #expect(background.concurrencyType == .privateQueueConcurrencyType)
    try background.performAndWait {
      let item = Item(context: background)
      item.title = "From the background"
      try background.save()
    }
    let titles = try viewContext.performAndWait {
      try viewContext.fetch(Item.fetchRequest()).compactMap(\.title)
    }
    #expect(titles == ["From the background"])
  }

  @Test func automaticMergeRefreshesAnObjectTheViewContextHolds() async throws {
    let container = makeContainer(at: try TemporaryFolder().appending("Model.sqlite"))
    let viewContext = container.viewContext
    viewContext.automaticallyMergesChangesFromParent = true
    let objectID = try viewContext.performAndWait {
      let item = Item(context: viewContext)
      item.title = "Before"
      try viewContext.save()
      return item.objectID
    }
    let held = viewContext.performAndWait { viewContext.object(with: objectID) as? Item }
    #expect(viewContext.performAndWait { held?.title } == "Before")

    let background = container.newBackgroundContext()
    try background.performAndWait {
      let item = try #require(try background.existingObject(with: objectID) as? Item)
      item.title = "After"
      try background.save()
    }
    // The merge is delivered on the view context's queue: wait for it (up to 5 seconds).
    var title = viewContext.performAndWait { held?.title }
    for _ in 0..<100 where title != "After" {
      try await Task.sleep(for: .milliseconds(50))
      title = viewContext.performAndWait { held?.title }
    }
    #expect(title == "After")
  }

  @Test func performBackgroundTaskSaves() async throws {
    let container = makeContainer(at: try TemporaryFolder().appending("Model.sqlite"))
    await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
      container.performBackgroundTask { context in
        let item = Item(context: context)
        item.title = "Task"
        do {
          try context.save()
        } catch {
          Issue.record(error)
        }
        continuation.resume()
      }
    }
    let viewContext = container.viewContext
    let count = try viewContext.performAndWait { try viewContext.count(for: Item.fetchRequest()) }
    #expect(count == 1)
  }

  @Test func asyncPerformReturnsManagedObjects() async throws {
    let container = makeContainer(at: try TemporaryFolder().appending("Model.sqlite"))
    let viewContext = container.viewContext
    let saved = try await container.performBackgroundTask { context in
      let item = Item(context: context)
      item.title = "Fetched"
      try context.save()
      return item
    }
    #expect(saved.objectID.isTemporaryID == false)
    let items = try await viewContext.perform(schedule: .enqueued) {
      let request: NSFetchRequest<Item> = Item.fetchRequest()
      return try viewContext.fetch(request)
    }
    #expect(items.map(\.objectID) == [saved.objectID])
  }

  @Test func defaultStoreIsNamedAfterTheContainer() {
    let container = NSPersistentContainer(name: "Model", managedObjectModel: sharedModel)
    let url = container.persistentStoreDescriptions.first?.url
    #expect(url?.lastPathComponent == "Model.sqlite")
    #expect(url?.deletingLastPathComponent() == NSPersistentContainer.defaultDirectoryURL())
    #expect(container.name == "Model")
    #expect(container.managedObjectModel === sharedModel)
  }

  @Test func destroyPersistentStoreRemovesItsFiles() throws {
    let storeURL = try TemporaryFolder().appending("Model.sqlite")
    do {
      let container = makeContainer(at: storeURL)
      let context = container.viewContext
      try context.performAndWait {
        let item = Item(context: context)
        item.title = "Soon gone"
        try context.save()
      }
      let coordinator = container.persistentStoreCoordinator
      for store in coordinator.persistentStores {
        try coordinator.remove(store)
      }
      try coordinator.destroyPersistentStore(at: storeURL, ofType: NSSQLiteStoreType, options: nil)
    }
    #expect(!FileManager.default.fileExists(atPath: storeURL.path))
    let container = makeContainer(at: storeURL)
    let context = container.viewContext
    let count = try context.performAndWait { try context.count(for: Item.fetchRequest()) }
    #expect(count == 0)
  }

  @Test func storeThatCannotBeOpenedReportsAnError() throws {
    let folder = try TemporaryFolder()
    let notAStore = folder.appending("Model.sqlite")
    try Data("this is not a database".utf8).write(to: notAStore)
    let container = NSPersistentContainer(name: "Model", managedObjectModel: sharedModel)
    container.persistentStoreDescriptions = [NSPersistentStoreDescription(url: notAStore)]
    container.loadPersistentStores { _, error in
      let error = error as NSError?
      #expect(error?.domain == NSCocoaErrorDomain)
    }
    #expect(container.persistentStoreCoordinator.persistentStores.isEmpty)
  }
}
