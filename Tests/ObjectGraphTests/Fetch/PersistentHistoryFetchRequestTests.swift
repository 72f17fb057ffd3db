import EngineTestSupport
import Foundation
import TestSupport
import Testing

@testable import ObjectGraph

/// History as apps query it: a history request narrowed by a fetch request of transactions or of changes
/// (Apple's "Consuming relevant store changes": skip your own author, keep the entities you show).
@Suite("Persistent history: fetch requests", .temporaryFolders)
struct PersistentHistoryFetchRequestTests {
  /// Two coordinators on one file, the app's and the widget's, with history tracked; the app saves a
  /// notebook with a note, the widget a note, the app deletes its note.
  private func sharedStore() throws -> (app: StoreStack, widget: StoreStack) {
    let folder = try TemporaryFolder()
    let url = folder.appending("Shared.sqlite")
    func side(_ author: String) throws -> StoreStack {
      let stack = try StoreStack(
        model: try Models.notes(), at: url,
        options: [
          NSMigratePersistentStoresAutomaticallyOption: true, NSInferMappingModelAutomaticallyOption: true,
          NSPersistentHistoryTrackingKey: true,
        ])
      stack.context.transactionAuthor = author
      return stack
    }
    let app = try side("app")
    let widget = try side("widget")
    let note = try app.context.performAndWait {
      let notebook = Notebook(context: app.context)
      notebook.name = "Home"
      let note = Note(context: app.context)
      note.title = "milk"
      note.notebook = notebook
      try app.context.save()
      return note
    }
    try widget.context.performAndWait {
      Note(context: widget.context).title = "from the widget"
      try widget.context.save()
    }
    try app.context.performAndWait {
      app.context.delete(note)
      try app.context.save()
    }
    return (app, widget)
  }

  private func transactions(_ request: NSPersistentHistoryChangeRequest, in stack: StoreStack) throws
    -> [NSPersistentHistoryTransaction]
  {
    try stack.context.performAndWait {
      try (stack.context.execute(request) as? NSPersistentHistoryResult)?.result as? [NSPersistentHistoryTransaction] ?? []
    }
  }

  @Test("a transaction fetch request with author != ours keeps the other writer's transactions, changes and all")
  func skipOwnAuthor() throws {
    let (app, _) = try sharedStore()
    let request = NSPersistentHistoryChangeRequest.fetchHistory(after: nil as NSPersistentHistoryToken?)
    let fetch = try #require(NSPersistentHistoryTransaction.fetchRequest)
    fetch.predicate = NSPredicate(format: "author != %@", "app")
    request.fetchRequest = fetch
    let kept = try transactions(request, in: app)
    #expect(kept.map(\.author) == ["widget"])
    #expect(kept.first?.changes?.map(\.changeType) == [.insert])
    // Keys of the transaction and its changes: ANY over the changes, the process that wrote it.
    fetch.predicate = NSPredicate(format: "ANY changes.changeType == %d", NSPersistentHistoryChangeType.delete.rawValue)
    #expect(try transactions(request, in: app).map(\.author) == ["app"])
    fetch.predicate = NSPredicate(
      format: "processID == %@ AND transactionNumber > 1", "\(ProcessInfo.processInfo.processIdentifier)")
    #expect(try transactions(request, in: app).count == 2)
  }

  @Test("a change fetch request keeps the matching changes, and the transactions left with one")
  func changesOfOneEntity() throws {
    let (app, _) = try sharedStore()
    let fetch = try #require(NSPersistentHistoryChange.fetchRequest)
    fetch.predicate = NSPredicate(
      format: "changedEntity == %@ AND changeType == %d", app.entity("Note"), NSPersistentHistoryChangeType.insert.rawValue)
    let request = NSPersistentHistoryChangeRequest.fetchHistory(withFetch: fetch)
    let kept = try transactions(request, in: app)
    #expect(kept.map(\.author) == ["app", "widget"])
    #expect(kept.map { $0.changes?.count ?? 0 } == [1, 1])
    #expect(kept.allSatisfy { $0.changes?.allSatisfy { $0.changedObjectID.entity.name == "Note" } == true })
    // A change knows its transaction; changesOnly gives the changes alone; a limit caps the changes.
    request.resultType = .changesOnly
    let changes = try #require(
      try app.context.performAndWait { try (app.context.execute(request) as? NSPersistentHistoryResult)?.result }
        as? [NSPersistentHistoryChange])
    #expect(changes.map { $0.transaction?.author } == ["app", "widget"])
    #expect(changes.allSatisfy { $0.transaction?.changes == nil })
    fetch.fetchLimit = 1
    request.resultType = .transactionsAndChanges
    #expect(try transactions(request, in: app).map(\.author) == ["app"])
    // A key of the change's transaction.
    fetch.fetchLimit = 0
    fetch.predicate = NSPredicate(format: "transaction.author == %@", "widget")
    #expect(try transactions(request, in: app).map(\.author) == ["widget"])
  }

  @Test("fetchHistory and deleteHistory after and before a transaction; the request's token")
  func aroundATransaction() throws {
    let (app, _) = try sharedStore()
    let all = try transactions(NSPersistentHistoryChangeRequest.fetchHistory(after: nil as NSPersistentHistoryToken?), in: app)
    #expect(all.count == 3)
    let after = NSPersistentHistoryChangeRequest.fetchHistory(after: all[0])
    #expect(after.token == all[0].token)
    #expect(try transactions(after, in: app).map(\.transactionNumber) == [all[1].transactionNumber, all[2].transactionNumber])
    #expect(NSPersistentHistoryChangeRequest.fetchHistory(after: Date()).token == nil)
    _ = try app.context.performAndWait { try app.context.execute(NSPersistentHistoryChangeRequest.deleteHistory(before: all[1])) }
    #expect(
      try transactions(NSPersistentHistoryChangeRequest.fetchHistory(after: nil as NSPersistentHistoryToken?), in: app).map(
        \.transactionNumber) == [
          all[2].transactionNumber
        ])
  }

  @Test("the history entities describe the keys; a fetch request of another entity or a bad key is refused")
  func entitiesAndRefusals() throws {
    let (app, _) = try sharedStore()
    let transaction = try #require(NSPersistentHistoryTransaction.entityDescription)
    #expect(transaction.name == "NSPersistentHistoryTransaction")
    #expect(Set(transaction.propertiesByName.keys).isSuperset(of: ["author", "timestamp", "bundleID", "processID", "changes"]))
    #expect(NSPersistentHistoryChange.entityDescription(with: app.context)?.propertiesByName["changedEntity"] != nil)
    #expect(NSPersistentHistoryChange.fetchRequest?.entityName == "NSPersistentHistoryChange")

    let request = NSPersistentHistoryChangeRequest.fetchHistory(withFetch: NSFetchRequest<any NSFetchRequestResult>(entityName: "Note"))
    app.context.performAndWait {
      let error = expectCode(.persistentStoreOperation) { _ = try app.context.execute(request) }
      #expect(error?.message.contains("NSPersistentHistoryTransaction.fetchRequest") == true)
    }
    let fetch = try #require(NSPersistentHistoryTransaction.fetchRequest)
    fetch.predicate = NSPredicate(format: "color == %@", "red")
    let unknown = NSPersistentHistoryChangeRequest.fetchHistory(withFetch: fetch)
    app.context.performAndWait {
      let error = expectCode(.unknownKey) { _ = try app.context.execute(unknown) }
      #expect(error?.message.contains("'color' is not a key of NSPersistentHistoryTransaction") == true)
    }
  }
}
