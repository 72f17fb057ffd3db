import EngineTestSupport
import Foundation
import TestSupport
import Testing

@testable import ObjectGraph

/// `affectedStores`: a fetch, a count, a batch request or a history request goes to the stores it names
/// and no others.
@Suite("Requests sent to some stores: affectedStores", .temporaryFolders)
struct AffectedStoresTests {
  /// Writes notes titled `titles` to a new store at `url` (with history when `tracking`), through a coordinator of its own.
  private func write(_ titles: [String], to url: URL, tracking: Bool = false) throws {
    let coordinator = NSPersistentStoreCoordinator(managedObjectModel: try Models.notes())
    let store = try coordinator.addPersistentStore(
      type: .sqlite, at: url, options: tracking ? [NSPersistentHistoryTrackingKey: true] : nil)
    defer { try? coordinator.remove(store) }
    let context = NSManagedObjectContext(concurrencyType: .privateQueueConcurrencyType)
    context.persistentStoreCoordinator = coordinator
    try context.performAndWait { () throws in
      for title in titles { Note(context: context).title = title }
      try context.save()
    }
  }

  /// A coordinator with the two stores (every entity in each), and a context on it.
  private func twoStores(_ folder: TemporaryFolder, tracking: Bool = false) throws -> (
    context: NSManagedObjectContext, a: NSPersistentStore, b: NSPersistentStore
  ) {
    try write(["a1", "a2"], to: folder.appending("A.sqlite"), tracking: tracking)
    try write(["b1"], to: folder.appending("B.sqlite"), tracking: tracking)
    let options: [AnyHashable: Any]? = tracking ? [NSPersistentHistoryTrackingKey: true] : nil
    let coordinator = NSPersistentStoreCoordinator(managedObjectModel: try Models.notes())
    let a = try coordinator.addPersistentStore(type: .sqlite, at: folder.appending("A.sqlite"), options: options)
    let b = try coordinator.addPersistentStore(type: .sqlite, at: folder.appending("B.sqlite"), options: options)
    let context = NSManagedObjectContext(concurrencyType: .privateQueueConcurrencyType)
    context.persistentStoreCoordinator = coordinator
    return (context, a, b)
  }

  private func titles(_ context: NSManagedObjectContext, in stores: [NSPersistentStore]?) throws -> [String] {
    let request = NSFetchRequest<Note>(entityName: "Note")
    request.affectedStores = stores
    request.sortDescriptors = [NSSortDescriptor(key: "title", ascending: true)]
    return try context.fetch(request).compactMap(\.title)
  }

  @Test("a fetch and a count read only the stores named; unsaved inserts count as in the first store")
  func fetchAndCount() throws {
    let folder = try TemporaryFolder()
    let (context, a, b) = try twoStores(folder)
    try context.performAndWait { () throws in
      #expect(try titles(context, in: nil) == ["a1", "a2", "b1"])
      #expect(try titles(context, in: [b]) == ["b1"])
      #expect(try titles(context, in: [a]) == ["a1", "a2"])
      #expect(try titles(context, in: []) == [])
      let count = NSFetchRequest<Note>(entityName: "Note")
      count.affectedStores = [a]
      #expect(try context.count(for: count) == 2)
      // An unsaved insert would be saved to A, the first store holding Note.
      Note(context: context).title = "new"
      #expect(try titles(context, in: [a]) == ["a1", "a2", "new"])
      #expect(try titles(context, in: [b]) == ["b1"])
      #expect(try context.count(for: count) == 3)
      // A limit applies to the stores named.
      let first = NSFetchRequest<Note>(entityName: "Note")
      first.affectedStores = [b]
      first.fetchLimit = 1
      first.includesPendingChanges = false
      #expect(try context.fetch(first).map(\.title) == ["b1"])
    }
    // A child context's fetch goes through its parent with the same stores.
    let child = NSManagedObjectContext(concurrencyType: .privateQueueConcurrencyType)
    child.parent = context
    try child.performAndWait { () throws in #expect(try titles(child, in: [b]) == ["b1"]) }
  }

  @Test("a dictionary fetch across two stores is ordered, de-duplicated and cut as a whole; grouping needs one store")
  func dictionaries() throws {
    let folder = try TemporaryFolder()
    let (context, _, b) = try twoStores(folder)
    try context.performAndWait { () throws in
      let request = NSFetchRequest<NSDictionary>(entityName: "Note")
      request.resultType = .dictionaryResultType
      request.propertiesToFetch = ["title"]
      request.sortDescriptors = [NSSortDescriptor(key: "title", ascending: false)]
      #expect(try context.fetch(request).map { $0["title"] as? String } == ["b1", "a2", "a1"])
      request.fetchOffset = 1
      request.fetchLimit = 1
      #expect(try context.fetch(request).map { $0["title"] as? String } == ["a2"], "the window is the whole's")
      request.fetchOffset = 0
      request.fetchLimit = 0

      // Both stores hold "b1" now: distinct results keep one.
      let copy = NSEntityDescription.insertNewObject(forEntityName: "Note", into: context)
      copy.setValue("b1", forKey: "title")
      try context.save()
      #expect(try context.fetch(request).map { $0["title"] as? String } == ["b1", "b1", "a2", "a1"])
      request.returnsDistinctResults = true
      #expect(try context.fetch(request).map { $0["title"] as? String } == ["b1", "a2", "a1"])

      // Sorting by what was not fetched cannot order rows of two stores.
      request.sortDescriptors = [NSSortDescriptor(key: "createdAt", ascending: true)]
      _ = expectCode(.unknownKey) { _ = try context.fetch(request) }

      // Groups and aggregates are one store's work: refused across two, run in the one named.
      let counted = NSExpressionDescription()
      counted.name = "count"
      counted.expression = NSExpression(forFunction: "count:", arguments: [NSExpression(forKeyPath: "title")])
      counted.expressionResultType = .integer64AttributeType
      let grouped = NSFetchRequest<NSDictionary>(entityName: "Note")
      grouped.resultType = .dictionaryResultType
      grouped.propertiesToFetch = ["title", counted]
      grouped.propertiesToGroupBy = ["title"]
      _ = expectCode(.unsupportedFeature) { _ = try context.fetch(grouped) }
      grouped.affectedStores = [b]
      #expect(try context.fetch(grouped).map { $0["title"] as? String } == ["b1"])
      #expect(try context.fetch(grouped).map { $0["count"] as? Int } == [1])
    }
  }

  @Test("batch update, delete and insert change only the stores named")
  func batchRequests() throws {
    let folder = try TemporaryFolder()
    let (context, a, b) = try twoStores(folder)
    try context.performAndWait { () throws in
      let update = NSBatchUpdateRequest(entityName: "Note")
      update.propertiesToUpdate = ["rating": 5]
      update.affectedStores = [b]
      update.resultType = .updatedObjectsCountResultType
      #expect((try context.execute(update) as? NSBatchUpdateResult)?.result as? Int == 1)

      let insert = NSBatchInsertRequest(entityName: "Note", objects: [["title": "b2"], ["title": "b3"]])
      insert.affectedStores = [b]
      try context.execute(insert)

      let delete = NSBatchDeleteRequest(fetchRequest: NSFetchRequest(entityName: "Note"))
      delete.affectedStores = [a]
      try context.execute(delete)

      context.reset()
      #expect(try titles(context, in: nil) == ["b1", "b2", "b3"])
      let rated = NSFetchRequest<Note>(entityName: "Note")
      rated.predicate = NSPredicate(format: "rating == 5")
      #expect(try context.fetch(rated).map(\.title) == ["b1"])
    }
  }

  @Test("a store that is not the coordinator's is refused, for fetches and batch requests alike")
  func strangerRefused() throws {
    let folder = try TemporaryFolder()
    let (context, _, _) = try twoStores(folder)
    let other = NSPersistentStoreCoordinator(managedObjectModel: try Models.notes())
    let stranger = try other.addPersistentStore(type: .inMemory, at: URL(fileURLWithPath: "/dev/null"))
    context.performAndWait { () in
      let error = expectCode(.persistentStoreOperation) { _ = try titles(context, in: [stranger]) }
      #expect(error?.localizedDescription.contains("not one of this coordinator's stores") == true)
      let delete = NSBatchDeleteRequest(fetchRequest: NSFetchRequest(entityName: "Note"))
      delete.affectedStores = [stranger]
      _ = expectCode(.persistentStoreOperation) { try context.execute(delete) }
    }
    #expect(try context.performAndWait { try titles(context, in: nil) } == ["a1", "a2", "b1"])
  }

  @Test("a history request reads and deletes the history of the stores named")
  func history() throws {
    let folder = try TemporaryFolder()
    let (context, a, b) = try twoStores(folder, tracking: true)
    func transactions(_ stores: [NSPersistentStore]?) throws -> [String] {
      let request = NSPersistentHistoryChangeRequest.fetchHistory(after: nil as NSPersistentHistoryToken?)
      request.affectedStores = stores
      let result = try context.execute(request) as? NSPersistentHistoryResult
      return (result?.result as? [NSPersistentHistoryTransaction] ?? []).map(\.storeID)
    }
    try context.performAndWait { () throws in
      #expect(Set(try transactions(nil)) == [a.identifier, b.identifier])
      #expect(try transactions([b]) == [b.identifier])
      let delete = NSPersistentHistoryChangeRequest.deleteHistory(before: Date.distantFuture)
      delete.affectedStores = [a]
      try context.execute(delete)
      #expect(try transactions(nil) == [b.identifier])
    }
  }
}
