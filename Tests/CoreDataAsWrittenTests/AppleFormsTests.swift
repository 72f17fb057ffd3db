import Foundation
import ObjectGraph
import TestSupport
import Testing

/// Forms of Core Data's API that ported code writes and that once needed rewriting: the async `perform` of
/// a block that cannot throw, batch requests made from an entity, merging a notification's user info, and
/// looking up an object a context holds.
@Suite("Core Data's forms", .temporaryFolders)
struct AppleFormsTests {
  @Test func asyncPerformOfABlockThatCannotThrowNeedsNoTry() async throws {
    let container = makeContainer(at: try TemporaryFolder().appending("Model.sqlite"))
    let context = container.newBackgroundContext()
    let count = await context.perform { 5 }
    #expect(count == 5)
    let made = await container.performBackgroundTask { context in
      let item = Item(context: context)
      item.title = "From the background"
      return item.objectID.isTemporaryID
    }
    #expect(made)
  }

  @Test func batchRequestsMadeFromAnEntity() throws {
    let container = makeContainer(at: try TemporaryFolder().appending("Model.sqlite"))
    let context = container.newBackgroundContext()
    try context.performAndWait {
      let objects: [[String: Any]] = (1...4).map { ["title": "Row \($0)", "quantity": $0, "done": false] }
      let insertRequest = NSBatchInsertRequest(entity: Item.entity(), objects: objects)
      _ = try context.execute(insertRequest)
      let updateRequest = NSBatchUpdateRequest(entity: Item.entity())
      updateRequest.predicate = NSPredicate(format: "quantity >= %d", 3)
      updateRequest.propertiesToUpdate = ["done": true]
      updateRequest.resultType = .updatedObjectsCountResultType
      let result = try context.execute(updateRequest) as? NSBatchUpdateResult
      #expect(result?.result as? Int == 2)
      let done: NSFetchRequest<Item> = Item.fetchRequest()
      done.predicate = NSPredicate(format: "done == YES")
      #expect(try context.count(for: done) == 2)
    }
  }

  @Test func mergingADidSaveNotificationsUserInfo() throws {
    let container = makeContainer(at: try TemporaryFolder().appending("Model.sqlite"))
    let writer = container.newBackgroundContext()
    let reader = container.newBackgroundContext()
    let readerCopy = try reader.performAndWait { () -> NSManagedObjectID in
      let item = Item(context: reader)
      item.title = "Before"
      try reader.save()
      return item.objectID
    }
    let observer = NotificationCenter.default.addObserver(
      forName: .NSManagedObjectContextDidSave, object: writer, queue: nil
    ) { notification in
      NSManagedObjectContext.mergeChanges(fromRemoteContextSave: notification.userInfo ?? [:], into: [reader])
    }
    defer { NotificationCenter.default.removeObserver(observer) }
    try writer.performAndWait {
      let item = try #require(try writer.existingObject(with: readerCopy) as? Item)
      item.title = "After"
      try writer.save()
    }
    reader.performAndWait {
      #expect((reader.object(with: readerCopy) as? Item)?.title == "After")
    }
  }

  @Test func registeredObjectNeverReadsTheStore() throws {
    let container = makeContainer(at: try TemporaryFolder().appending("Model.sqlite"))
    let writer = container.newBackgroundContext()
    let objectID = try writer.performAndWait { () -> NSManagedObjectID in
      let item = Item(context: writer)
      item.title = "Saved"
      try writer.save()
      #expect(writer.registeredObject(for: item.objectID) === item)
      return item.objectID
    }
    let other = container.newBackgroundContext()
    other.performAndWait {
      #expect(other.registeredObject(for: objectID) == nil)
      let fault = other.object(with: objectID)
      #expect(other.registeredObject(for: objectID) === fault)
    }
  }
}

/// The in-memory store of Xcode's app template (`PersistenceController(inMemory: true)`): the description's URL
/// is `/dev/null`, and the store works for the life of the container, keeping nothing.
@Suite("Xcode's /dev/null store")
struct DevNullStoreTests {
  static func previewContainer() throws -> NSPersistentContainer {
    let container = NSPersistentContainer(name: "Model", managedObjectModel: sharedModel)
    container.persistentStoreDescriptions.first!.url = URL(fileURLWithPath: "/dev/null")
    container.loadPersistentStores { storeDescription, error in
      #expect(error == nil)
    }
    return container
  }

  @Test func savesAndFetchesAndKeepsNothing() throws {
    let container = try Self.previewContainer()
    let store = try #require(container.persistentStoreCoordinator.persistentStores.first)
    #expect(store.url?.path == "/dev/null")
    let viewContext = container.viewContext
    try viewContext.performAndWait {
      for index in 0..<3 {
        let item = Item(context: viewContext)
        item.title = "Preview \(index)"
      }
      try viewContext.save()
      let request: NSFetchRequest<Item> = Item.fetchRequest()
      #expect(try viewContext.count(for: request) == 3)
    }
    let background = container.newBackgroundContext()
    #expect(try background.performAndWait { try background.count(for: NSFetchRequest<Item>(entityName: "Item")) } == 3)

    let another = try Self.previewContainer()
    #expect(try another.viewContext.performAndWait { try another.viewContext.count(for: NSFetchRequest<Item>(entityName: "Item")) } == 0)
    #expect(FileManager.default.fileExists(atPath: "/dev/null"))
    #expect(!FileManager.default.fileExists(atPath: "/dev/null-wal"))
  }
}
