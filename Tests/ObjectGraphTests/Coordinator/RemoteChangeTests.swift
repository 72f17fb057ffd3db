import EngineTestSupport
import Foundation
import TestSupport
import Testing

@testable import ObjectGraph

/// Remote change notifications (`NSPersistentStoreRemoteChangeNotificationPostOptionKey`): a store posts
/// `.NSPersistentStoreRemoteChange` after every write to it, its own coordinator's and anyone else's, with
/// the store's URL, identifier and last history token. The two-process case is in
/// Reliability/TwoProcessTests.swift.
@Suite("Remote change notifications", .temporaryFolders, .timeLimit(.minutes(2)))
struct RemoteChangeTests {
  /// A stack on `url` posting remote change notifications, its context saving as `author`.
  private func side(
    _ url: URL, author: String, history: Bool = true, posts: Bool = true, journal: String = "WAL"
  ) throws -> StoreStack {
    let stack = try StoreStack(
      model: try Models.notes(), at: url,
      options: [
        NSMigratePersistentStoresAutomaticallyOption: true, NSInferMappingModelAutomaticallyOption: true,
        NSPersistentHistoryTrackingKey: history, NSPersistentStoreRemoteChangeNotificationPostOptionKey: posts,
        NSSQLitePragmasOption: ["journal_mode": journal],
      ])
    stack.context.transactionAuthor = author
    return stack
  }

  private func save(_ stack: StoreStack, title: String) throws {
    try stack.context.performAndWait {
      let note = Note(context: stack.context)
      note.title = title
      try stack.context.save()
    }
  }

  @Test("the coordinator's own save is told, with the store's URL, identifier and the token of its transaction")
  func ownSave() throws {
    let folder = try TemporaryFolder()
    let url = folder.appending("Shared.sqlite")
    let app = try side(url, author: "app")
    let heard = RemoteChanges(from: app.coordinator)
    try save(app, title: "one")
    let notification = try #require(heard.first(within: 10))
    #expect(notification.object as AnyObject? === app.coordinator)
    #expect((notification.userInfo?[NSPersistentStoreURLKey] as? URL)?.standardizedFileURL == url.standardizedFileURL)
    #expect(notification.userInfo?[NSStoreUUIDKey] as? String == app.store.identifier)
    let token = try #require(notification.userInfo?[NSPersistentHistoryTokenKey] as? NSPersistentHistoryToken)
    #expect(token == app.coordinator.currentPersistentHistoryToken())
    // The token reads nothing new: the save it tells of is before it.
    #expect(try app.context.performAndWait { try app.context.historyTransactions(after: token) }.isEmpty)
  }

  @Test(
    "another coordinator's save is told to this one; its history after the last token is the other's transaction",
    arguments: ["WAL", "DELETE"])
  func otherCoordinator(journal: String) throws {
    let folder = try TemporaryFolder()
    let url = folder.appending("Shared.sqlite")
    let app = try side(url, author: "app", journal: journal)
    let widget = try side(url, author: "widget", journal: journal)
    try save(app, title: "from the app")
    let before = app.coordinator.currentPersistentHistoryToken()
    // Let the app's own notification pass, then listen for the widget's save only.
    Thread.sleep(forTimeInterval: 0.3)
    let heard = RemoteChanges(from: app.coordinator)
    try save(widget, title: "from the widget")
    let notification = try #require(heard.first(within: 10))
    let token = try #require(notification.userInfo?[NSPersistentHistoryTokenKey] as? NSPersistentHistoryToken)
    let new = try app.context.performAndWait { try app.context.historyTransactions(after: before) }
    #expect(new.map(\.author) == ["widget"])
    #expect(new.last?.token == token)
    // The widget's coordinator was told of its own save as well.
    #expect(widget.coordinator.persistentStores.count == 1)
  }

  @Test("without history the notification has no token; without the option there is none")
  func withoutHistoryOrOption() throws {
    let folder = try TemporaryFolder()
    let plain = try side(folder.appending("Plain.sqlite"), author: "app", history: false)
    let heard = RemoteChanges(from: plain.coordinator)
    try save(plain, title: "one")
    let notification = try #require(heard.first(within: 10))
    #expect(notification.userInfo?[NSPersistentHistoryTokenKey] == nil)
    #expect(notification.userInfo?[NSStoreUUIDKey] as? String == plain.store.identifier)

    let quiet = try side(folder.appending("Quiet.sqlite"), author: "app", posts: false)
    let silence = RemoteChanges(from: quiet.coordinator)
    try save(quiet, title: "one")
    Thread.sleep(forTimeInterval: 1.5)
    #expect(silence.count == 0)
    #expect(quiet.coordinator.remoteChangeWatchers.withLock { $0.isEmpty })
  }

  @Test("a removed store is no longer watched: another writer's save is not told")
  func removedStore() throws {
    let folder = try TemporaryFolder()
    let url = folder.appending("Shared.sqlite")
    let app = try side(url, author: "app")
    let widget = try side(url, author: "widget")
    try app.close()
    #expect(app.coordinator.remoteChangeWatchers.withLock { $0.isEmpty })
    let heard = RemoteChanges(from: app.coordinator)
    try save(widget, title: "after the app closed")
    Thread.sleep(forTimeInterval: 1.5)
    #expect(heard.count == 0)
  }

  @Test("many saves close together are told, the last notification carrying the last transaction's token")
  func manySaves() throws {
    let folder = try TemporaryFolder()
    let url = folder.appending("Shared.sqlite")
    let app = try side(url, author: "app")
    let widget = try side(url, author: "widget")
    let heard = RemoteChanges(from: app.coordinator)
    for index in 0..<20 { try save(index.isMultiple(of: 2) ? widget : app, title: "note \(index)") }
    let last = try #require(app.coordinator.currentPersistentHistoryToken())
    let arrived = heard.wait(within: 10) { notifications in
      notifications.contains { $0.userInfo?[NSPersistentHistoryTokenKey] as? NSPersistentHistoryToken == last }
    }
    #expect(arrived, "no notification carried the last transaction's token \(last); heard \(heard.count)")
    #expect(heard.count >= 1 && heard.count <= 20)
  }

  @Test("the option's value must be a Bool or an NSNumber; an in-memory store takes it and posts nothing")
  func optionValues() throws {
    let coordinator = NSPersistentStoreCoordinator(managedObjectModel: try Models.notes())
    #expect {
      try coordinator.addPersistentStore(
        type: .inMemory, at: URL(fileURLWithPath: "/dev/null"),
        options: [NSPersistentStoreRemoteChangeNotificationPostOptionKey: "yes"])
    } throws: { error in
      "\(error)".contains("NSPersistentStoreRemoteChangeNotificationOptionKey must be a Bool or an NSNumber")
    }
    try coordinator.addPersistentStore(
      type: .inMemory, at: URL(fileURLWithPath: "/dev/null"),
      options: [NSPersistentStoreRemoteChangeNotificationPostOptionKey: NSNumber(value: true)])
    #expect(coordinator.remoteChangeWatchers.withLock { $0.isEmpty })
  }
}

/// The remote change notifications one coordinator posts, collected from any queue.
final class RemoteChanges: Sendable {
  private let received = Locked<[Notification]>([])
  private let observer: Locked<(any NSObjectProtocol)?> = Locked(nil)

  init(from coordinator: NSPersistentStoreCoordinator) {
    let received = received
    observer.withLock {
      $0 = NotificationCenter.default.addObserver(
        forName: .NSPersistentStoreRemoteChange, object: coordinator, queue: nil
      ) { notification in
        received.withLock { $0.append(notification) }
      }
    }
  }

  deinit {
    if let observer = observer.withLock({ $0 }) { NotificationCenter.default.removeObserver(observer) }
  }

  var count: Int { received.withLock { $0.count } }

  /// Waits up to `seconds` until `condition` holds for the notifications received so far.
  func wait(within seconds: Double, until condition: ([Notification]) -> Bool) -> Bool {
    let deadline = Date().addingTimeInterval(seconds)
    while Date() < deadline {
      if received.withLock({ condition($0) }) { return true }
      Thread.sleep(forTimeInterval: 0.01)
    }
    return received.withLock { condition($0) }
  }

  /// The first notification, waited for up to `seconds`.
  func first(within seconds: Double) -> Notification? {
    _ = wait(within: seconds) { !$0.isEmpty }
    return received.withLock { $0.first }
  }
}
