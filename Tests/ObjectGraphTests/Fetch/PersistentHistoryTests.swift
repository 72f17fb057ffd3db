import EngineTestSupport
import Foundation
import TestSupport
import Testing

@testable import ObjectGraph

/// Persistent history: two coordinators on one file (as an app and its extension in two processes),
/// each catching up with the other's saves through the store's history.
@Suite("Persistent history", .temporaryFolders)
struct PersistentHistoryTests {
  /// A coordinator and a context on `url` with history tracked, saving as `author`.
  private func side(_ url: URL, author: String, tracking: Bool = true) throws -> (NSPersistentStoreCoordinator, NSManagedObjectContext) {
    let stack = try StoreStack(
      model: try Models.notes(), at: url,
      options: [
        NSMigratePersistentStoresAutomaticallyOption: true, NSInferMappingModelAutomaticallyOption: true,
        NSPersistentHistoryTrackingKey: tracking,
      ])
    stack.context.transactionAuthor = author
    stack.context.name = "\(author) context"
    return (stack.coordinator, stack.context)
  }

  private func history(_ context: NSManagedObjectContext, after token: NSPersistentHistoryToken?) throws -> [NSPersistentHistoryTransaction]
  {
    try context.historyTransactions(after: token)
  }

  @Test("Each save is a transaction with its author, context name and changes; another coordinator reads them and catches up")
  func catchingUp() throws {
    let folder = try TemporaryFolder()
    let url = folder.appending("Shared.sqlite")
    let (_, app) = try side(url, author: "app")
    let (widgetCoordinator, widget) = try side(url, author: "widget")

    let (first, second) = try app.performAndWait {
      let first = Note(context: app)
      first.title = "first"
      let second = Note(context: app)
      second.title = "second"
      try app.save()
      return (first, second)
    }
    // The widget holds the first note before the app changes it again.
    let held = try widget.performAndWait { try widget.existingObject(with: first.objectID) as? Note }
    #expect(widget.performAndWait { held?.title } == "first")
    try app.performAndWait {
      first.title = "first, edited"
      first.rating = 5
      try app.save()
      app.delete(second)
      try app.save()
    }

    let transactions = try history(widget, after: nil)
    #expect(transactions.count == 3)
    #expect(transactions.allSatisfy { $0.author == "app" && $0.contextName == "app context" })
    let changeTypes: [[NSPersistentHistoryChangeType]] = transactions.map { transaction -> [NSPersistentHistoryChangeType] in
      transaction.changes?.map(\.changeType) ?? []
    }
    #expect(changeTypes == [[.insert, .insert], [.update], [.delete]])
    #expect(Set(transactions[0].changes?.map(\.changedObjectID) ?? []) == [first.objectID, second.objectID])
    #expect(transactions[1].changes?.first?.updatedProperties == ["title", "rating"])
    #expect(transactions[2].changes?.first?.changedObjectID == second.objectID)
    #expect(transactions.map(\.transactionNumber) == transactions.map(\.transactionNumber).sorted())

    // The widget merges what others wrote, skipping its own, and remembers where it got to.
    var lastToken: NSPersistentHistoryToken?
    widget.performAndWait {
      for transaction in transactions where transaction.author != "widget" {
        widget.mergeChanges(fromContextDidSave: transaction.objectIDNotification())
        lastToken = transaction.token
      }
    }
    #expect(widget.performAndWait { held?.title } == "first, edited")
    #expect(lastToken == widgetCoordinator.currentPersistentHistoryToken())

    // The widget saves; the app catches up from its own last token and sees only the widget's change.
    let appToken = try #require(try history(app, after: nil).last?.token)
    try widget.performAndWait {
      let note = Note(context: widget)
      note.title = "from the widget"
      try widget.save()
    }
    let news = try history(app, after: appToken)
    #expect(news.count == 1 && news[0].author == "widget" && news[0].changes?.first?.changeType == .insert)
    try app.performAndWait {
      app.mergeChanges(fromContextDidSave: news[0].savedObjectIDs)
      let id = try #require(news[0].changes?.first?.changedObjectID)
      #expect((try app.existingObject(with: id) as? Note)?.title == "from the widget")
    }
    // A token survives a relaunch: it encodes and decodes.
    let data = try JSONEncoder().encode(appToken)
    #expect(try JSONDecoder().decode(NSPersistentHistoryToken.self, from: data) == appToken)
  }

  @Test("Batch requests are recorded too; a refused save records nothing")
  func batchesAndFailures() throws {
    let folder = try TemporaryFolder()
    let (_, context) = try side(folder.appending("Store.sqlite"), author: "importer")
    try context.performAndWait {
      let insert = NSBatchInsertRequest(entityName: "Note", objects: [["title": "a"], ["title": "b"]])
      insert.resultType = .objectIDs
      let ids = try #require((try context.execute(insert) as? NSBatchInsertResult)?.result as? [NSManagedObjectID])
      let update = NSBatchUpdateRequest(entityName: "Note")
      update.propertiesToUpdate = ["body": "x"]
      _ = try context.execute(update)
      _ = try context.execute(NSBatchDeleteRequest(objectIDs: [ids[0]]))
      _ = Note(context: context)  // no title: the save is refused
      _ = expectCode(.validationMissingMandatoryProperty) { try context.save() }
      context.rollback()
    }
    let transactions = try history(context, after: nil)
    #expect(transactions.map { $0.changes?.count ?? 0 } == [2, 2, 1])
    #expect(transactions.allSatisfy { $0.author == "importer" })
    #expect(transactions[1].changes?.allSatisfy { $0.updatedProperties == ["body"] } == true)
  }

  @Test("resultType .objectIDs gives the IDs of the objects changed, each once, in the order of their first change")
  func objectIDsResultType() throws {
    let folder = try TemporaryFolder()
    let (_, context) = try side(folder.appending("Store.sqlite"), author: "app")
    let (first, second) = try context.performAndWait {
      let first = Note(context: context)
      first.title = "first"
      try context.save()
      let second = Note(context: context)
      second.title = "second"
      first.title = "first, edited"
      try context.save()
      return (first.objectID, second.objectID)
    }
    try context.performAndWait {
      let request = NSPersistentHistoryChangeRequest.fetchHistory(after: nil as NSPersistentHistoryToken?)
      request.resultType = .objectIDs
      let result = try #require(try context.execute(request) as? NSPersistentHistoryResult)
      #expect(result.resultType == .objectIDs)
      #expect(result.resultType.rawValue == 1)
      #expect(result.result as? [NSManagedObjectID] == [first, second])
    }
  }

  @Test("Old history is deleted up to a token or before a date; counts and other result types")
  func deletingAndResultTypes() throws {
    let folder = try TemporaryFolder()
    let (coordinator, context) = try side(folder.appending("Store.sqlite"), author: "app")
    try context.performAndWait {
      for title in ["a", "b", "c"] {
        Note(context: context).title = title
        try context.save()
      }
    }
    let all = try history(context, after: nil)
    #expect(all.count == 3)
    try context.performAndWait {
      let counting = NSPersistentHistoryChangeRequest.fetchHistory(after: all[0].token)
      counting.resultType = .count
      #expect((try context.execute(counting) as? NSPersistentHistoryResult)?.result as? Int == 2)
      let changesOnly = NSPersistentHistoryChangeRequest.fetchHistory(after: nil as NSPersistentHistoryToken?)
      changesOnly.resultType = .changesOnly
      #expect(((try context.execute(changesOnly) as? NSPersistentHistoryResult)?.result as? [NSPersistentHistoryChange])?.count == 3)
      let transactionsOnly = NSPersistentHistoryChangeRequest.fetchHistory(after: Date.distantPast)
      transactionsOnly.resultType = .transactionsOnly
      let bare = (try context.execute(transactionsOnly) as? NSPersistentHistoryResult)?.result as? [NSPersistentHistoryTransaction]
      #expect(bare?.count == 3 && bare?.allSatisfy { $0.changes == nil } == true)

      let delete = NSPersistentHistoryChangeRequest.deleteHistory(before: all[1].token)
      delete.resultType = .count
      #expect((try context.execute(delete) as? NSPersistentHistoryResult)?.result as? Int == 2)
    }
    #expect(try history(context, after: nil).map(\.token) == [all[2].token])
    #expect(coordinator.currentPersistentHistoryToken() == all[2].token)
    try context.performAndWait { _ = try context.execute(NSPersistentHistoryChangeRequest.deleteHistory(before: Date.distantFuture)) }
    #expect(try history(context, after: nil).isEmpty)
    // Transaction numbers are never reused after a delete.
    try context.performAndWait {
      Note(context: context).title = "d"
      try context.save()
    }
    #expect(try history(context, after: nil).first.map { $0.transactionNumber > all[2].transactionNumber } == true)
  }

  @Test("A transaction names the program and the process that wrote it; an earlier engine's history tables gain both")
  func writerOfATransaction() throws {
    let folder = try TemporaryFolder()
    let url = folder.appending("Shared.sqlite")
    do {
      let (coordinator, app) = try side(url, author: "app")
      try app.performAndWait {
        Note(context: app).title = "first"
        try app.save()
      }
      // The tables as an earlier engine made them: no ZBUNDLEID, no ZPROCESSID.
      try coordinator.persistentStores[0].database.write { db in
        try db.execute(sql: "ALTER TABLE ATRANSACTION DROP COLUMN ZBUNDLEID")
        try db.execute(sql: "ALTER TABLE ATRANSACTION DROP COLUMN ZPROCESSID")
      }
      try coordinator.remove(coordinator.persistentStores[0])
    }
    let (_, app) = try side(url, author: "app")
    try app.performAndWait {
      Note(context: app).title = "second"
      try app.save()
    }
    let transactions = try history(app, after: nil)
    #expect(transactions.count == 2)
    #expect(transactions.first?.bundleID == "" && transactions.first?.processID == "")
    #expect(transactions.last?.processID == "\(ProcessInfo.processInfo.processIdentifier)")
    #expect(transactions.last?.bundleID == (Bundle.main.bundleIdentifier ?? ProcessInfo.processInfo.processName))
    #expect(transactions.last?.bundleID.isEmpty == false)
  }

  @Test("Without tracking, history requests are refused saying how to turn it on; a token of another store is refused")
  func notTracking() throws {
    let folder = try TemporaryFolder()
    let (_, context) = try side(folder.appending("Plain.sqlite"), author: "app", tracking: false)
    try context.performAndWait {
      Note(context: context).title = "untracked"
      try context.save()
      let error = expectCode(.persistentStoreOperation) {
        _ = try context.execute(NSPersistentHistoryChangeRequest.fetchHistory(after: nil as NSPersistentHistoryToken?))
      }
      #expect(error?.message.contains("NSPersistentHistoryTrackingKey: true") == true)
    }
    let (_, tracked) = try side(folder.appending("Tracked.sqlite"), author: "app")
    tracked.performAndWait {
      let stranger = NSPersistentHistoryToken(storeIdentifier: "nowhere", transactionNumber: 1)
      _ = expectCode(.persistentStoreOperation) { _ = try tracked.execute(NSPersistentHistoryChangeRequest.fetchHistory(after: stranger)) }
    }
  }
}

extension NSManagedObjectContext {
  /// The transactions after `token`, as an app fetches them: `fetchHistory(after:)` run on the context's queue.
  func historyTransactions(after token: NSPersistentHistoryToken?) throws -> [NSPersistentHistoryTransaction] {
    try performAndWait {
      let result = try execute(NSPersistentHistoryChangeRequest.fetchHistory(after: token)) as? NSPersistentHistoryResult
      return result?.result as? [NSPersistentHistoryTransaction] ?? []
    }
  }
}
