import Foundation
import ObjectGraph
import TestSupport
import Testing

@Suite("NSManagedObjectContext", .temporaryFolders)
struct ContextTests {
  @Test func performAndWaitReturnsItsValue() throws {
    let container = makeContainer(at: try TemporaryFolder().appending("Model.sqlite"))
    let context = container.newBackgroundContext()
    let title = try context.performAndWait {
      let item = Item(context: context)
      item.title = "Bread"
      try context.save()
      return item.title
    }
    #expect(title == "Bread")
    #expect(context.performAndWait { context.hasChanges } == false)
  }

  @Test func performRunsOnTheContextsQueue() async throws {
    let container = makeContainer(at: try TemporaryFolder().appending("Model.sqlite"))
    let context = container.newBackgroundContext()
    let count = try await context.perform {
      let item = Item(context: context)
      item.title = "Async"
      try context.save()
      return try context.count(for: Item.fetchRequest())
    }
    #expect(count == 1)
  }

  @Test func didSaveNotificationCarriesTheInsertedObjects() throws {
    let container = makeContainer(at: try TemporaryFolder().appending("Model.sqlite"))
    let context = container.newBackgroundContext()
    let received = NotificationBox()
    let observer = NotificationCenter.default.addObserver(
      forName: .NSManagedObjectContextDidSave, object: context, queue: nil
    ) { notification in
      let inserted = notification.userInfo?[NSInsertedObjectsKey] as? Set<NSManagedObject> ?? []
      received.append(inserted.compactMap { ($0 as? Item)?.title })
    }
    defer { NotificationCenter.default.removeObserver(observer) }
    try context.performAndWait {
      let item = Item(context: context)
      item.title = "Noticed"
      try context.save()
    }
    #expect(received.values == [["Noticed"]])
  }

  @Test func didSaveObjectsNotificationName() throws {
    let container = makeContainer(at: try TemporaryFolder().appending("Model.sqlite"))
    let context = container.newBackgroundContext()
    let received = NotificationBox()
    let observer = NotificationCenter.default.addObserver(
      forName: NSManagedObjectContext.didSaveObjectsNotification, object: context, queue: nil
    ) { notification in
      let updated = notification.userInfo?[NSUpdatedObjectsKey] as? Set<NSManagedObject> ?? []
      let deleted = notification.userInfo?[NSDeletedObjectsKey] as? Set<NSManagedObject> ?? []
      received.append(["updated \(updated.count)", "deleted \(deleted.count)"])
    }
    defer { NotificationCenter.default.removeObserver(observer) }
    try context.performAndWait {
      let first = Item(context: context)
      first.title = "One"
      let second = Item(context: context)
      second.title = "Two"
      try context.save()
      first.title = "One, changed"
      context.delete(second)
      try context.save()
    }
    #expect(received.values == [["updated 0", "deleted 0"], ["updated 1", "deleted 1"]])
  }

  @Test func objectsDidChangeNotificationAfterProcessPendingChanges() throws {
    let container = makeContainer(at: try TemporaryFolder().appending("Model.sqlite"))
    let context = container.newBackgroundContext()
    let received = NotificationBox()
    let observer = NotificationCenter.default.addObserver(
      forName: .NSManagedObjectContextObjectsDidChange, object: context, queue: nil
    ) { notification in
      let inserted = notification.userInfo?[NSInsertedObjectsKey] as? Set<NSManagedObject> ?? []
      received.append(inserted.compactMap { ($0 as? Item)?.title })
    }
    defer { NotificationCenter.default.removeObserver(observer) }
    context.performAndWait {
      let item = Item(context: context)
      item.title = "Changed"
      context.processPendingChanges()
    }
    #expect(received.values == [["Changed"]])
  }

  @Test func awakeFromInsertSetsInitialValues() throws {
    let container = makeContainer(at: try TemporaryFolder().appending("Model.sqlite"))
    let context = container.newBackgroundContext()
    context.performAndWait {
      let list = ItemList(context: context)
      #expect(list.name == "New List")
      #expect(list.changedValues()["name"] as? String == "New List")
    }
  }

  @Test func mergeChangesFromContextDidSave() throws {
    let container = makeContainer(at: try TemporaryFolder().appending("Model.sqlite"))
    let viewContext = container.viewContext
    let background = container.newBackgroundContext()
    let observer = NotificationCenter.default.addObserver(
      forName: .NSManagedObjectContextDidSave, object: background, queue: nil
    ) { notification in
      viewContext.performAndWait {
        viewContext.mergeChanges(fromContextDidSave: notification)
      }
    }
    defer { NotificationCenter.default.removeObserver(observer) }
    let objectID = try viewContext.performAndWait {
      let item = Item(context: viewContext)
      item.title = "Old"
      try viewContext.save()
      return item.objectID
    }
    let held = viewContext.performAndWait { viewContext.object(with: objectID) as? Item }
    _ = viewContext.performAndWait { held?.title }
    try background.performAndWait {
      let item = try #require(try background.existingObject(with: objectID) as? Item)
      item.title = "New"
      try background.save()
    }
    #expect(viewContext.performAndWait { held?.title } == "New")
  }

  @Test func mergeByPropertyObjectTrumpKeepsTheSavingContextsValue() throws {
    let container = makeContainer(at: try TemporaryFolder().appending("Model.sqlite"))
    let (_, second, objectID, secondsCopy) = try makeStaleCopy(in: container, title: "Original", category: "none") { item in
      item.title = "First's title"
      item.category = "first"
    }
    second.mergePolicy = NSMergeByPropertyObjectTrumpMergePolicy
    try second.performAndWait {
      secondsCopy.title = "Second's title"
      try second.save()
    }
    let reader = container.newBackgroundContext()
    try reader.performAndWait {
      let item = try #require(try reader.existingObject(with: objectID) as? Item)
      #expect(item.title == "Second's title")
      #expect(item.category == "first")
    }
  }

  @Test func mergePolicyReadsBack() throws {
    let container = makeContainer(at: try TemporaryFolder().appending("Model.sqlite"))
    let context = container.newBackgroundContext()
    context.mergePolicy = NSMergePolicy.mergeByPropertyStoreTrump
    #expect((context.mergePolicy as? NSMergePolicy)?.mergeType == .mergeByPropertyStoreTrumpMergePolicyType)
  }

  @Test func childContextSavesIntoItsParentOnly() throws {
    let container = makeContainer(at: try TemporaryFolder().appending("Model.sqlite"))
    let viewContext = container.viewContext
    let child = NSManagedObjectContext(concurrencyType: .privateQueueConcurrencyType)
    child.parent = viewContext
    try child.performAndWait {
      let item = Item(context: child)
      item.title = "Draft"
      try child.save()
    }
    let store = container.newBackgroundContext()
    let storeCount = try store.performAndWait { try store.count(for: Item.fetchRequest()) }
    #expect(storeCount == 0)
    try viewContext.performAndWait {
      #expect(viewContext.hasChanges)
      #expect(try viewContext.fetch(Item.fetchRequest()).map(\.title) == ["Draft"])
      try viewContext.save()
    }
    let reader = container.newBackgroundContext()
    #expect(try reader.performAndWait { try reader.count(for: Item.fetchRequest()) } == 1)
  }

  @Test func childContextDiscardedLeavesParentUntouched() throws {
    let container = makeContainer(at: try TemporaryFolder().appending("Model.sqlite"))
    let viewContext = container.viewContext
    let child = NSManagedObjectContext(concurrencyType: .mainQueueConcurrencyType)
    child.parent = viewContext
    child.performAndWait {
      let item = Item(context: child)
      item.title = "Never saved"
      child.rollback()
      #expect(child.hasChanges == false)
    }
    #expect(viewContext.performAndWait { viewContext.hasChanges } == false)
  }

  @Test func obtainPermanentIDsBeforeSaving() throws {
    let container = makeContainer(at: try TemporaryFolder().appending("Model.sqlite"))
    let context = container.newBackgroundContext()
    try context.performAndWait {
      let item = Item(context: context)
      item.title = "Numbered"
      #expect(item.objectID.isTemporaryID)
      try context.obtainPermanentIDs(for: [item])
      #expect(item.objectID.isTemporaryID == false)
      let permanent = item.objectID
      try context.save()
      #expect(item.objectID == permanent)
    }
  }

  @Test func objectIDsCrossQueuesAsURIs() throws {
    let container = makeContainer(at: try TemporaryFolder().appending("Model.sqlite"))
    let context = container.newBackgroundContext()
    let uri = try context.performAndWait {
      let item = Item(context: context)
      item.title = "By URI"
      try context.save()
      return item.objectID.uriRepresentation()
    }
    let other = container.newBackgroundContext()
    try other.performAndWait {
      let objectID = try #require(container.persistentStoreCoordinator.managedObjectID(forURIRepresentation: uri))
      let item = try #require(try other.existingObject(with: objectID) as? Item)
      #expect(item.title == "By URI")
    }
  }

  @Test func refreshWithMergeChangesReadsTheStore() throws {
    let container = makeContainer(at: try TemporaryFolder().appending("Model.sqlite"))
    let context = container.newBackgroundContext()
    let other = container.newBackgroundContext()
    let item = try context.performAndWait {
      let item = Item(context: context)
      item.title = "Mine"
      item.category = "a"
      try context.save()
      return item
    }
    let objectID = context.performAndWait { item.objectID }
    try other.performAndWait {
      let copy = try #require(try other.existingObject(with: objectID) as? Item)
      copy.category = "b"
      try other.save()
    }
    context.performAndWait {
      item.title = "Mine, edited"
      context.refresh(item, mergeChanges: true)
      #expect(item.category == "b")
      #expect(item.title == "Mine, edited")
      #expect(item.hasChanges)
    }
  }

  @Test func rollbackAndDelete() throws {
    let container = makeContainer(at: try TemporaryFolder().appending("Model.sqlite"))
    let context = container.newBackgroundContext()
    try context.performAndWait {
      let item = Item(context: context)
      item.title = "Keep"
      try context.save()
      item.title = "Changed"
      #expect(context.updatedObjects.contains(item))
      context.rollback()
      #expect(item.title == "Keep")
      context.delete(item)
      #expect(item.isDeleted)
      try context.save()
      #expect(try context.count(for: Item.fetchRequest()) == 0)
    }
  }
}

/// What a notification handler collected (handlers run on the posting queue).
final class NotificationBox: @unchecked Sendable {
  private let lock = NSLock()
  private var collected: [[String]] = []
  func append(_ value: [String]) { lock.withLock { collected.append(value) } }
  var values: [[String]] { lock.withLock { collected } }
}
