import Foundation
import TestSupport
import Testing

@testable import ObjectGraph

/// Persistent history with two stores on one coordinator, in the shape of Apple's "Synchronizing a Local
/// Store to the Cloud" sample: a model with two configurations, one store each; the app saves as "app",
/// its extension (another coordinator on the same files) saves as "extension", and the app catches up
/// by fetching the history after its one token and merging every transaction that is not its own.
@Suite("Persistent history across two stores", .temporaryFolders)
struct PersistentHistoryStoresTests {
  /// Posts in the "Cloud" configuration, drafts in the "Local" one.
  private static func model() throws -> NSManagedObjectModel {
    let post = NSEntityDescription(name: "Post", properties: [.attribute(NSAttributeDescription(name: "title", type: .string))])
    let draft = NSEntityDescription(name: "Draft", properties: [.attribute(NSAttributeDescription(name: "text", type: .string))])
    return try NSManagedObjectModel(
      entities: [post, draft], versionIdentifiers: [], configurations: ["Cloud": ["Post"], "Local": ["Draft"]],
      fetchRequestTemplates: [], sourceURL: nil)
  }

  /// One process's stack: a coordinator with both stores of `folder`, history tracked, and a context
  /// that saves as `author`.
  private struct Side {
    let coordinator: NSPersistentStoreCoordinator
    let context: NSManagedObjectContext
    let cloud: NSPersistentStore
    let local: NSPersistentStore

    init(_ folder: TemporaryFolder, author: String) throws {
      coordinator = NSPersistentStoreCoordinator(managedObjectModel: try PersistentHistoryStoresTests.model())
      let options: [AnyHashable: Any] = [
        NSMigratePersistentStoresAutomaticallyOption: true, NSInferMappingModelAutomaticallyOption: true,
        NSPersistentHistoryTrackingKey: true,
      ]
      cloud = try coordinator.addPersistentStore(
        type: .sqlite, configuration: "Cloud", at: folder.appending("Cloud.sqlite"), options: options)
      local = try coordinator.addPersistentStore(
        type: .sqlite, configuration: "Local", at: folder.appending("Local.sqlite"), options: options)
      context = NSManagedObjectContext(concurrencyType: .privateQueueConcurrencyType)
      context.persistentStoreCoordinator = coordinator
      context.transactionAuthor = author
      context.name = "\(author) context"
    }

    func newContext() -> NSManagedObjectContext {
      let context = NSManagedObjectContext(concurrencyType: .privateQueueConcurrencyType)
      context.persistentStoreCoordinator = coordinator
      return context
    }

    /// Saves a post, a draft, or both, in one save; returns their IDs.
    @discardableResult
    func save(post: String? = nil, draft: String? = nil) throws -> [NSManagedObjectID] {
      try context.performAndWait {
        var objects: [NSManagedObject] = []
        if let post {
          let object = NSEntityDescription.insertNewObject(forEntityName: "Post", into: context)
          object.setValue(post, forKey: "title")
          objects.append(object)
        }
        if let draft {
          let object = NSEntityDescription.insertNewObject(forEntityName: "Draft", into: context)
          object.setValue(draft, forKey: "text")
          objects.append(object)
        }
        try context.save()
        return objects.map(\.objectID)
      }
    }
  }

  /// The app's reaction to a remote change: fetch the history after its one token, merge every
  /// transaction that is not its own into its view context, and keep the last transaction's token.
  private func catchUp(_ reader: NSManagedObjectContext, into view: NSManagedObjectContext, after token: NSPersistentHistoryToken?) throws
    -> (merged: [NSPersistentHistoryTransaction], token: NSPersistentHistoryToken?)
  {
    let transactions = try reader.historyTransactions(after: token)
    let merged = transactions.filter { $0.author != "app" }
    view.performAndWait {
      for transaction in merged { view.mergeChanges(fromContextDidSave: transaction.objectIDNotification()) }
    }
    return (merged, transactions.last?.token ?? token)
  }

  @Test("A save across two stores records the context's transaction author and name in each store's history")
  func authorInEveryStore() throws {
    let folder = try TemporaryFolder()
    let app = try Side(folder, author: "app")
    let ids = try app.save(post: "hello", draft: "notes")
    try app.context.performAndWait {
      for id in ids {
        let object = try app.context.existingObject(with: id)
        object.setValue("edited", forKey: object.entity.entityName == "Post" ? "title" : "text")
      }
      try app.context.save()
      for id in ids { app.context.delete(try app.context.existingObject(with: id)) }
      try app.context.save()
    }
    let transactions = try app.context.historyTransactions(after: nil)
    // An insert, an update and a delete in each store.
    #expect(transactions.count == 6)
    #expect(Set(transactions.map(\.storeID)) == [app.cloud.identifier, app.local.identifier])
    #expect(transactions.allSatisfy { $0.author == "app" && $0.contextName == "app context" })

    // The extension's save across both stores is recorded as its own; the app's filter keeps just those.
    let appExtension = try Side(folder, author: "extension")
    try appExtension.save(post: "from the extension", draft: "its draft")
    let others = try app.newContext().historyTransactions(after: nil).filter { $0.author != "app" }
    #expect(others.count == 2)
    #expect(others.allSatisfy { $0.author == "extension" && $0.contextName == "extension context" })
  }

  @Test("One token for two stores: the app that keeps the last transaction's token sees both stores' later saves, and only once")
  func oneTokenForTwoStores() throws {
    let folder = try TemporaryFolder()
    let app = try Side(folder, author: "app")
    let appExtension = try Side(folder, author: "extension")
    let reader = app.newContext()
    let view = app.newContext()

    try app.save(post: "mine", draft: "mine too")
    var (merged, token) = try catchUp(reader, into: view, after: nil)
    #expect(merged.isEmpty)  // the app's own save is not merged again

    let remote = try appExtension.save(post: "remote post", draft: "remote draft")
    (merged, token) = try catchUp(reader, into: view, after: token)
    #expect(merged.count == 2)
    #expect(Set(merged.map(\.storeID)) == [app.cloud.identifier, app.local.identifier])
    try view.performAndWait { () throws in
      #expect(try view.existingObject(with: remote[0]).value(forKey: "title") as? String == "remote post")
      #expect(try view.existingObject(with: remote[1]).value(forKey: "text") as? String == "remote draft")
    }

    // The extension writes the local store only, the app the cloud store; then the extension the cloud store.
    try appExtension.save(draft: "second remote draft")
    try app.save(post: "second post of mine")
    (merged, token) = try catchUp(reader, into: view, after: token)
    #expect(merged.map(\.storeID) == [app.local.identifier])
    try appExtension.save(post: "second remote post")
    (merged, token) = try catchUp(reader, into: view, after: token)
    #expect(merged.map(\.storeID) == [app.cloud.identifier])
    (merged, token) = try catchUp(reader, into: view, after: token)
    #expect(merged.isEmpty)

    // The token is where the reader is in both stores: the coordinator's current token.
    let current = try #require(app.coordinator.currentPersistentHistoryToken(fromStores: nil))
    #expect(token == current)
    #expect(Set(current.transactionNumbers.keys) == [app.cloud.identifier, app.local.identifier])
    let cloudOnly = try #require(app.coordinator.currentPersistentHistoryToken(fromStores: [app.cloud]))
    #expect(Array(cloudOnly.transactionNumbers.keys) == [app.cloud.identifier])

    // Once every reader is past it, the history up to the token goes, in both stores.
    try reader.performAndWait { () throws in
      let delete = NSPersistentHistoryChangeRequest.deleteHistory(before: token)
      delete.resultType = .count
      #expect((try reader.execute(delete) as? NSPersistentHistoryResult)?.result as? Int == 7)
    }
    #expect(try reader.historyTransactions(after: nil).isEmpty)
    try appExtension.save(draft: "after the purge")
    #expect(try catchUp(reader, into: view, after: token).merged.count == 1)
  }

  @Test("The token archives with NSKeyedArchiver to a file and, read back after a relaunch, keeps its place in both stores")
  func archivedToken() throws {
    let folder = try TemporaryFolder()
    let tokenFile = folder.appending("token.data")
    do {
      let app = try Side(folder, author: "app")
      let appExtension = try Side(folder, author: "extension")
      try app.save(post: "mine", draft: "mine too")
      try appExtension.save(post: "remote post", draft: "remote draft")
      let (merged, token) = try catchUp(app.newContext(), into: app.newContext(), after: nil)
      #expect(merged.count == 2)
      let data = try NSKeyedArchiver.archivedData(withRootObject: try #require(token), requiringSecureCoding: true)
      try data.write(to: tokenFile)
    }
    // Relaunched: the app reads its token back and sees only what the extension saved since.
    let app = try Side(folder, author: "app")
    let token = try #require(
      try NSKeyedUnarchiver.unarchivedObject(ofClass: NSPersistentHistoryToken.self, from: Data(contentsOf: tokenFile)))
    #expect(token == app.coordinator.currentPersistentHistoryToken())
    #expect(Set(token.transactionNumbers.keys) == [app.cloud.identifier, app.local.identifier])
    let appExtension = try Side(folder, author: "extension")
    try appExtension.save(draft: "while the app was away")
    try app.save(post: "the app's own")
    let (merged, _) = try catchUp(app.newContext(), into: app.newContext(), after: token)
    #expect(merged.count == 1 && merged.first?.storeID == app.local.identifier)

    // Copies are the token itself; it is Codable too, and a token encoded when it named one store decodes.
    #expect(token.copy() as? NSPersistentHistoryToken == token)
    #expect(try JSONDecoder().decode(NSPersistentHistoryToken.self, from: JSONEncoder().encode(token)) == token)
    let single = Data(#"{"storeIdentifier": "S", "transactionNumber": 4}"#.utf8)
    #expect(try JSONDecoder().decode(NSPersistentHistoryToken.self, from: single).transactionNumbers == ["S": 4])
    // An archive of something else is refused, not crashed on.
    let other = try NSKeyedArchiver.archivedData(withRootObject: NSString(string: "not a token"), requiringSecureCoding: true)
    #expect((try? NSKeyedUnarchiver.unarchivedObject(ofClass: NSPersistentHistoryToken.self, from: other)) == nil)
  }
}
