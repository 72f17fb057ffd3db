import EngineTestSupport
import Foundation
import TestSupport
import Testing

@testable import ObjectGraph

/// A coordinator says when its stores change: `.NSPersistentStoreCoordinatorStoresDidChange` after a store is
/// added or removed, `WillRemoveStore` and `StoresWillChange` before a removal.
@Suite("Store change notifications", .temporaryFolders)
struct StoreChangeNotificationTests {
  /// The names and user info of the notifications about `coordinator` or its stores, in order.
  final class Heard: Sendable {
    let events = Locked<[(String, [String: [ObjectIdentifier]])]>([])
    private let observers = Locked<[any NSObjectProtocol]>([])

    init(_ coordinator: NSPersistentStoreCoordinator) {
      let events = events
      let names: [NSNotification.Name] = [
        .NSPersistentStoreCoordinatorStoresDidChange, .NSPersistentStoreCoordinatorStoresWillChange,
        .NSPersistentStoreCoordinatorWillRemoveStore,
      ]
      for name in names {
        let observer = NotificationCenter.default.addObserver(forName: name, object: nil, queue: nil) {
          [weak coordinator] notification in
          guard let coordinator else { return }
          let store = notification.object as? NSPersistentStore
          guard
            notification.object as AnyObject? === coordinator
              || store.map({ store in coordinator.persistentStores.contains { $0 === store } }) == true
          else { return }
          var info: [String: [ObjectIdentifier]] = [:]
          for key in [NSAddedPersistentStoresKey, NSRemovedPersistentStoresKey] {
            if let stores = notification.userInfo?[key] as? [NSPersistentStore] { info[key] = stores.map(ObjectIdentifier.init) }
          }
          if let store { info["object"] = [ObjectIdentifier(store)] }
          events.withLock { $0.append((notification.name.rawValue, info)) }
        }
        observers.withLock { $0.append(observer) }
      }
    }

    deinit { for observer in observers.withLock({ $0 }) { NotificationCenter.default.removeObserver(observer) } }
  }

  @Test("adding posts did-change with the store added; removing posts will-remove, will-change, did-change")
  func addAndRemove() throws {
    let folder = try TemporaryFolder()
    let coordinator = NSPersistentStoreCoordinator(managedObjectModel: try Models.notes())
    let heard = Heard(coordinator)
    let store = try coordinator.addPersistentStore(type: .sqlite, at: folder.appending("A.sqlite"))
    let id = ObjectIdentifier(store)
    #expect(heard.events.withLock { $0.map(\.0) } == ["NSPersistentStoreCoordinatorStoresDidChangeNotification"])
    #expect(heard.events.withLock { $0.first?.1[NSAddedPersistentStoresKey] } == [id])

    heard.events.withLock { $0.removeAll() }
    try coordinator.remove(store)
    let events = heard.events.withLock { $0 }
    #expect(
      events.map(\.0) == [
        "NSPersistentStoreCoordinatorWillRemoveStoreNotification", "NSPersistentStoreCoordinatorStoresWillChangeNotification",
        "NSPersistentStoreCoordinatorStoresDidChangeNotification",
      ])
    #expect(events.first?.1["object"] == [id])
    #expect(events.dropFirst().allSatisfy { $0.1[NSRemovedPersistentStoresKey] == [id] })

    // A store that is not the coordinator's: an error, and nothing said.
    heard.events.withLock { $0.removeAll() }
    #expect(throws: (any Error).self) { try coordinator.remove(store) }
    #expect(heard.events.withLock { $0.isEmpty })
  }

  @Test("a store refused at open is not announced")
  func refusedStore() throws {
    let folder = try TemporaryFolder()
    let file = folder.appending("NotAStore.sqlite")
    try Data("not a database".utf8).write(to: file)
    let coordinator = NSPersistentStoreCoordinator(managedObjectModel: try Models.notes())
    let heard = Heard(coordinator)
    #expect(throws: (any Error).self) { try coordinator.addPersistentStore(type: .sqlite, at: file) }
    #expect(heard.events.withLock { $0.isEmpty })
  }
}
