import Foundation
import ObjectGraph
import TestSupport
import Testing

@Suite("Batch requests and persistent history", .temporaryFolders)
struct BatchAndHistoryTests {
  func container(history: Bool = false) throws -> NSPersistentContainer {
    let container = makeContainer(at: try TemporaryFolder().appending("Model.sqlite")) { description in
      if history {
        description.setOption(true as NSNumber, forKey: NSPersistentHistoryTrackingKey)
      }
    }
    let context = container.newBackgroundContext()
    try context.performAndWait {
      for index in 1...10 {
        let item = Item(context: context)
        item.title = "Item \(index)"
        item.quantity = NSNumber(value: index)
        item.category = index % 2 == 0 ? "even" : "odd"
      }
      try context.save()
    }
    return container
  }

  @Test func batchDeleteReturnsIDsThatAreMergedIntoTheViewContext() throws {
    let container = try container()
    let viewContext = container.viewContext
    let held = try viewContext.performAndWait {
      let request: NSFetchRequest<Item> = Item.fetchRequest()
      return try viewContext.fetch(request)
    }
    #expect(held.count == 10)

    let context = container.newBackgroundContext()
    try context.performAndWait {
      let fetchRequest: NSFetchRequest<NSFetchRequestResult> = NSFetchRequest(entityName: "Item")
      fetchRequest.predicate = NSPredicate(format: "category == %@", "odd")
      let deleteRequest = NSBatchDeleteRequest(fetchRequest: fetchRequest)
      deleteRequest.resultType = .resultTypeObjectIDs
      let result = try context.execute(deleteRequest) as? NSBatchDeleteResult
      let objectIDs = result?.result as? [NSManagedObjectID] ?? []
      #expect(objectIDs.count == 5)
      let changes = [NSDeletedObjectsKey: objectIDs]
      NSManagedObjectContext.mergeChanges(fromRemoteContextSave: changes, into: [viewContext])
    }
    let remaining = try viewContext.performAndWait { try viewContext.count(for: Item.fetchRequest()) }
    #expect(remaining == 5)
    #expect(viewContext.performAndWait { held.filter(\.isDeleted).count } == 5)
  }

  @Test func batchDeleteCount() throws {
    let container = try container()
    let context = container.newBackgroundContext()
    try context.performAndWait {
      let deleteRequest = NSBatchDeleteRequest(fetchRequest: Item.fetchRequest())
      deleteRequest.resultType = .resultTypeCount
      let result = try context.execute(deleteRequest) as? NSBatchDeleteResult
      #expect(result?.result as? Int == 10)
      #expect(try context.count(for: Item.fetchRequest()) == 0)
    }
  }

  @Test func batchUpdateSetsValuesInTheStore() throws {
    let container = try container()
    let context = container.newBackgroundContext()
    try context.performAndWait {
      let updateRequest = NSBatchUpdateRequest(entityName: "Item")
      updateRequest.predicate = NSPredicate(format: "quantity > %d", 7)
      updateRequest.propertiesToUpdate = ["done": true]
      updateRequest.resultType = .updatedObjectIDsResultType
      let result = try context.execute(updateRequest) as? NSBatchUpdateResult
      let objectIDs = result?.result as? [NSManagedObjectID] ?? []
      #expect(objectIDs.count == 3)
      NSManagedObjectContext.mergeChanges(fromRemoteContextSave: [NSUpdatedObjectsKey: objectIDs], into: [context])
      let done: NSFetchRequest<Item> = Item.fetchRequest()
      done.predicate = NSPredicate(format: "done == YES")
      #expect(try context.count(for: done) == 3)
    }
  }

  @Test func batchUpdateCount() throws {
    let container = try container()
    let context = container.newBackgroundContext()
    try context.performAndWait {
      let updateRequest = NSBatchUpdateRequest(entityName: "Item")
      updateRequest.propertiesToUpdate = ["category": "all"]
      updateRequest.resultType = .updatedObjectsCountResultType
      let result = try context.execute(updateRequest) as? NSBatchUpdateResult
      #expect(result?.result as? Int == 10)
    }
  }

  @Test func batchInsertWithObjectIDs() throws {
    let container = try container()
    let context = container.newBackgroundContext()
    try context.performAndWait {
      let objects: [[String: Any]] = [
        ["title": "Batch A", "quantity": 100, "done": false],
        ["title": "Batch B", "quantity": 200, "done": true],
      ]
      let insertRequest = NSBatchInsertRequest(entityName: "Item", objects: objects)
      insertRequest.resultType = .objectIDs
      let result = try context.execute(insertRequest) as? NSBatchInsertResult
      let objectIDs = result?.result as? [NSManagedObjectID] ?? []
      #expect(objectIDs.count == 2)
      let titles = objectIDs.compactMap { (context.object(with: $0) as? Item)?.title }.sorted()
      #expect(titles == ["Batch A", "Batch B"])
    }
  }

  @Test func batchInsertByEntityNameCount() throws {
    let container = try container()
    let context = container.newBackgroundContext()
    try context.performAndWait {
      let insertRequest = NSBatchInsertRequest(
        entityName: "Item", objects: (1...50).map { ["title": "Row \($0)", "quantity": $0] })
      insertRequest.resultType = .count
      let result = try context.execute(insertRequest) as? NSBatchInsertResult
      #expect(result?.result as? Int == 50)
      #expect(try context.count(for: Item.fetchRequest()) == 60)
    }
  }

  @Test func batchInsertWithADictionaryHandler() throws {
    let container = try container()
    let context = container.newBackgroundContext()
    try context.performAndWait {
      var index = 0
      let insertRequest = NSBatchInsertRequest(
        entityName: "Item",
        dictionaryHandler: { dictionary in
          guard index < 3 else { return true }
          dictionary["title"] = "Handled \(index)"
          dictionary["quantity"] = index * 10
          dictionary["done"] = true
          index += 1
          return false
        })
      insertRequest.resultType = .count
      let result = try context.execute(insertRequest) as? NSBatchInsertResult
      #expect(result?.result as? Int == 3)
      let handled: NSFetchRequest<Item> = Item.fetchRequest()
      handled.predicate = NSPredicate(format: "title BEGINSWITH %@", "Handled")
      handled.sortDescriptors = [NSSortDescriptor(key: "title", ascending: true)]
      let items = try context.fetch(handled)
      #expect(items.map { $0.quantity?.intValue } == [0, 10, 20])
      #expect(items.map(\.done) == [true, true, true])
    }
  }

  @Test func historyRecordsTransactionsWithTheirAuthor() throws {
    let container = try container(history: true)
    let start = Date()
    let context = container.newBackgroundContext()
    context.transactionAuthor = "importer"
    try context.performAndWait {
      let item = Item(context: context)
      item.title = "Imported"
      try context.save()
    }
    try context.performAndWait {
      let request = NSPersistentHistoryChangeRequest.fetchHistory(after: start.addingTimeInterval(-1))
      request.resultType = .transactionsAndChanges
      let result = try context.execute(request) as? NSPersistentHistoryResult
      let transactions = result?.result as? [NSPersistentHistoryTransaction] ?? []
      let imported = transactions.filter { $0.author == "importer" }
      #expect(imported.count == 1)
      let changes = imported.first?.changes ?? []
      #expect(changes.count == 1)
      #expect(changes.first?.changeType == .insert)
      #expect(changes.first?.changedObjectID.entity.name == "Item")
    }
  }

  @Test func historyAfterATokenAndDeletingIt() throws {
    let container = try container(history: true)
    let context = container.newBackgroundContext()
    let token: NSPersistentHistoryToken? = try context.performAndWait {
      let all = try context.execute(NSPersistentHistoryChangeRequest.fetchHistory(after: nil as NSPersistentHistoryToken?))
      let transactions = (all as? NSPersistentHistoryResult)?.result as? [NSPersistentHistoryTransaction] ?? []
      #expect(transactions.count == 1)
      return transactions.last?.token
    }
    try context.performAndWait {
      let item = Item(context: context)
      item.title = "After the token"
      try context.save()
      let newer = try context.execute(NSPersistentHistoryChangeRequest.fetchHistory(after: token))
      let transactions = (newer as? NSPersistentHistoryResult)?.result as? [NSPersistentHistoryTransaction] ?? []
      #expect(transactions.count == 1)

      // Purge what has been processed: everything up to the first transaction's token.
      _ = try context.execute(NSPersistentHistoryChangeRequest.deleteHistory(before: token))
      let rest = try context.execute(NSPersistentHistoryChangeRequest.fetchHistory(after: nil as NSPersistentHistoryToken?))
      let remaining = (rest as? NSPersistentHistoryResult)?.result as? [NSPersistentHistoryTransaction] ?? []
      #expect(remaining.count == 1)
      #expect(remaining.first?.token == transactions.last?.token)
    }
  }

  @Test func historyTransactionMergesIntoTheViewContext() throws {
    let container = try container(history: true)
    let viewContext = container.viewContext
    let start = Date().addingTimeInterval(-1)
    let context = container.newBackgroundContext()
    try context.performAndWait {
      let item = Item(context: context)
      item.title = "Remote"
      try context.save()
    }
    try viewContext.performAndWait {
      let result = try viewContext.execute(NSPersistentHistoryChangeRequest.fetchHistory(after: start))
      let transactions = (result as? NSPersistentHistoryResult)?.result as? [NSPersistentHistoryTransaction] ?? []
      for transaction in transactions {
        viewContext.mergeChanges(fromContextDidSave: transaction.objectIDNotification())
      }
      let request: NSFetchRequest<Item> = Item.fetchRequest()
      request.predicate = NSPredicate(format: "title == %@", "Remote")
      #expect(try viewContext.count(for: request) == 1)
    }
  }
}
