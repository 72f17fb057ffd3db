import EngineTestSupport
import Foundation
import TestSupport
import Testing

@testable import ObjectGraph

/// `migratePersistentStore(_:to:options:type:)`: a store moved to a new place or type, its objects still in
/// the contexts, its old file left as it was, and nothing overwritten.
@Suite("Migrating a store to a new place or type", .temporaryFolders)
struct MigratePersistentStoreTests {
  /// A coordinator with a store of `type` at `url` holding notes titled `titles`, and a context on it.
  private func stack(_ type: NSPersistentStore.StoreType = .sqlite, at url: URL, titles: [String], options: [AnyHashable: Any]? = nil)
    throws -> (NSPersistentStoreCoordinator, NSPersistentStore, NSManagedObjectContext)
  {
    let coordinator = NSPersistentStoreCoordinator(managedObjectModel: try Models.notes())
    let store = try coordinator.addPersistentStore(type: type, at: url, options: options)
    let context = NSManagedObjectContext(concurrencyType: .privateQueueConcurrencyType)
    context.persistentStoreCoordinator = coordinator
    try context.performAndWait {
      for title in titles { Note(context: context).title = title }
      try context.save()
    }
    return (coordinator, store, context)
  }

  /// The titles stored in the store of `type` at `url`, read by a coordinator of its own.
  private func storedTitles(_ type: NSPersistentStore.StoreType = .sqlite, at url: URL) throws -> [String] {
    let coordinator = NSPersistentStoreCoordinator(managedObjectModel: try Models.notes())
    let store = try coordinator.addPersistentStore(type: type, at: url)
    defer { try? coordinator.remove(store) }
    let context = NSManagedObjectContext(concurrencyType: .privateQueueConcurrencyType)
    context.persistentStoreCoordinator = coordinator
    return try context.performAndWait { try context.fetch(NSFetchRequest<Note>(entityName: "Note")).compactMap(\.title).sorted() }
  }

  @Test("a SQLite store moved to a new file: the contexts' objects now live there, the old file keeps what it had")
  func moveToNewFile() throws {
    let folder = try TemporaryFolder()
    let old = folder.appending("Old.sqlite")
    let new = folder.appending("Shared.sqlite")
    let (coordinator, store, context) = try stack(at: old, titles: ["milk", "eggs"])
    let (note, id) = try context.performAndWait {
      let note = try #require(try context.fetch(NSFetchRequest<Note>(entityName: "Note")).first { $0.title == "milk" })
      return (note, note.objectID)
    }
    let migrated = try coordinator.migratePersistentStore(store, to: new, type: .sqlite)
    #expect(coordinator.persistentStores.map(ObjectIdentifier.init) == [ObjectIdentifier(migrated)])
    #expect(migrated.url?.standardizedFileURL == new.standardizedFileURL)
    #expect(migrated.identifier == store.identifier)
    #expect(migrated.type == NSSQLiteStoreType)
    #expect(coordinator.metadata(for: migrated)[NSStoreTypeKey] as? String == NSSQLiteStoreType)

    // The object the context held is the same object of the new store; a save goes to the new file only.
    try context.performAndWait {
      #expect(context.object(with: id) === note)
      note.title = "oat milk"
      Note(context: context).title = "bread"
      try context.save()
      let refetched = NSManagedObjectContext(concurrencyType: .privateQueueConcurrencyType)
      refetched.persistentStoreCoordinator = coordinator
      let title = try refetched.performAndWait { try refetched.existingObject(with: id).value(forKey: "title") as? String }
      #expect(title == "oat milk")
    }
    #expect(try storedTitles(at: new) == ["bread", "eggs", "oat milk"])
    #expect(try storedTitles(at: old) == ["eggs", "milk"])
  }

  @Test("SQLite to binary, binary to in-memory, in-memory to SQLite: every row comes along each time")
  func changeOfType() throws {
    let folder = try TemporaryFolder()
    let (coordinator, store, context) = try stack(at: folder.appending("A.sqlite"), titles: ["a", "b", "c"])
    let binary = try coordinator.migratePersistentStore(
      store, to: folder.appending("A.binary"), options: nil, withType: NSBinaryStoreType)
    #expect(binary.type == NSBinaryStoreType)
    #expect(try storedTitles(.binary, at: folder.appending("A.binary")) == ["a", "b", "c"])

    let memory = try coordinator.migratePersistentStore(binary, to: URL(fileURLWithPath: "/dev/null"), type: .inMemory)
    #expect(memory.type == NSInMemoryStoreType)
    try context.performAndWait {
      Note(context: context).title = "d"
      try context.save()
    }
    let back = try coordinator.migratePersistentStore(memory, to: folder.appending("B.sqlite"), type: .sqlite)
    #expect(coordinator.persistentStores.count == 1 && coordinator.persistentStores.first === back)
    #expect(try storedTitles(at: folder.appending("B.sqlite")) == ["a", "b", "c", "d"])
    // The binary file was left as the binary store last wrote it.
    #expect(try storedTitles(.binary, at: folder.appending("A.binary")) == ["a", "b", "c"])
  }

  @Test("nothing is overwritten: a file at the destination is refused, and the store stays as it was")
  func refusesExistingFile() throws {
    let folder = try TemporaryFolder()
    let (coordinator, store, context) = try stack(at: folder.appending("A.sqlite"), titles: ["a"])
    let other = folder.appending("Other.sqlite")
    _ = try stack(at: other, titles: ["keep me"])
    let before = try Data(contentsOf: other)
    let error = expectCode(.persistentStoreOperation) {
      _ = try coordinator.migratePersistentStore(store, to: other, type: .sqlite)
    }
    #expect(error?.localizedDescription.contains("never overwrites") == true)
    #expect(try Data(contentsOf: other) == before)
    #expect(coordinator.persistentStores.first === store)
    // Its own file, a store of another coordinator, a missing folder, an unknown type: refused too.
    _ = expectCode(.persistentStoreOperation) {
      _ = try coordinator.migratePersistentStore(store, to: folder.appending("A.sqlite"), type: .sqlite)
    }
    _ = expectCode(.persistentStoreOpen) {
      _ = try coordinator.migratePersistentStore(store, to: folder.appending("missing/B.sqlite"), type: .sqlite)
    }
    _ = expectCode(.persistentStoreInvalidType) {
      _ = try coordinator.migratePersistentStore(store, to: folder.appending("B.xml"), withType: "XML")
    }
    let elsewhere = NSPersistentStoreCoordinator(managedObjectModel: try Models.notes())
    _ = expectCode(.persistentStoreOperation) {
      _ = try elsewhere.migratePersistentStore(store, to: folder.appending("C.sqlite"), type: .sqlite)
    }
    #expect(!FileManager.default.fileExists(atPath: folder.appending("B.sqlite").path))
    #expect(!FileManager.default.fileExists(atPath: folder.appending("C.sqlite").path))
    try context.performAndWait {
      Note(context: context).title = "b"
      try context.save()
    }
    #expect(try storedTitles(at: folder.appending("A.sqlite")) == ["a", "b"])
  }

  @Test("a binary store cannot record history: refused, and no file is left at the destination")
  func refusedOptionsLeaveNoFile() throws {
    let folder = try TemporaryFolder()
    let (coordinator, store, _) = try stack(at: folder.appending("A.sqlite"), titles: ["a"])
    let destination = folder.appending("A.binary")
    _ = expectCode(.persistentStoreOperation) {
      _ = try coordinator.migratePersistentStore(
        store, to: destination, options: [NSPersistentHistoryTrackingKey: true], type: .binary)
    }
    #expect(!FileManager.default.fileExists(atPath: destination.path))
    #expect(coordinator.persistentStores.first === store)
  }

  @Test("history comes along when the new store tracks it, and is left behind when it does not")
  func history() throws {
    let folder = try TemporaryFolder()
    let tracking: [AnyHashable: Any] = [NSPersistentHistoryTrackingKey: true]
    let (coordinator, store, context) = try stack(at: folder.appending("A.sqlite"), titles: ["a", "b"], options: tracking)
    func transactions() throws -> Int {
      try context.performAndWait {
        let request = NSPersistentHistoryChangeRequest.fetchHistory(after: nil as NSPersistentHistoryToken?)
        return ((try context.execute(request) as? NSPersistentHistoryResult)?.result as? [NSPersistentHistoryTransaction])?.count ?? -1
      }
    }
    #expect(try transactions() == 1)
    let kept = try coordinator.migratePersistentStore(store, to: folder.appending("B.sqlite"), options: tracking, type: .sqlite)
    #expect(try transactions() == 1)
    // Without tracking, the new store is an ordinary writable store with no history tables.
    _ = try coordinator.migratePersistentStore(kept, to: folder.appending("C.sqlite"), type: .sqlite)
    try context.performAndWait {
      Note(context: context).title = "c"
      try context.save()
    }
    #expect(try storedTitles(at: folder.appending("C.sqlite")) == ["a", "b", "c"])
    let tables = try NSPersistentStoreCoordinator.metadataForPersistentStore(type: .sqlite, at: folder.appending("C.sqlite"))
    #expect(tables[NSStoreTypeKey] as? String == NSSQLiteStoreType)
  }

  @Test("one did-change notification tells the store added and the store removed, after will-remove")
  func notification() throws {
    let folder = try TemporaryFolder()
    let (coordinator, store, _) = try stack(at: folder.appending("A.sqlite"), titles: [])
    let heard = Locked<[(String, [ObjectIdentifier], [ObjectIdentifier])]>([])
    var observers: [any NSObjectProtocol] = []
    for name in [NSNotification.Name.NSPersistentStoreCoordinatorStoresDidChange, .NSPersistentStoreCoordinatorWillRemoveStore] {
      observers.append(
        NotificationCenter.default.addObserver(forName: name, object: nil, queue: nil) { [weak coordinator] notification in
          // Other tests run at the same time: only this coordinator's notifications and its store's count.
          guard notification.object as AnyObject? === coordinator || notification.object as AnyObject? === store else { return }
          let added = (notification.userInfo?[NSAddedPersistentStoresKey] as? [NSPersistentStore] ?? []).map(ObjectIdentifier.init)
          let removed =
            (notification.userInfo?[NSRemovedPersistentStoresKey] as? [NSPersistentStore] ?? []).map(ObjectIdentifier.init)
          heard.withLock { $0.append((notification.name.rawValue, added, removed)) }
        })
    }
    defer { for observer in observers { NotificationCenter.default.removeObserver(observer) } }
    let migrated = try coordinator.migratePersistentStore(store, to: folder.appending("B.sqlite"), type: .sqlite)
    let events = heard.withLock { $0 }
    #expect(
      events.map(\.0) == [
        "NSPersistentStoreCoordinatorWillRemoveStoreNotification", "NSPersistentStoreCoordinatorStoresDidChangeNotification",
      ])
    #expect(events.last?.1 == [ObjectIdentifier(migrated)])
    #expect(events.last?.2 == [ObjectIdentifier(store)])
  }

  @Test("saves from eight queues while the store moves: every one lands, in the copy or in the new store")
  func savesDuringTheMove() async throws {
    let folder = try TemporaryFolder()
    let (coordinator, store, _) = try stack(at: folder.appending("A.sqlite"), titles: [])
    let perQueue = 25
    try await withThrowingTaskGroup(of: Void.self) { group in
      for queue in 0..<8 {
        group.addTask {
          let context = NSManagedObjectContext(concurrencyType: .privateQueueConcurrencyType)
          context.persistentStoreCoordinator = coordinator
          for index in 0..<perQueue {
            try context.performAndWait {
              Note(context: context).title = "\(queue)-\(index)"
              try context.save()
            }
          }
        }
      }
      group.addTask {
        try coordinator.migratePersistentStore(store, to: folder.appending("B.sqlite"), type: .sqlite)
      }
      try await group.waitForAll()
    }
    #expect(try storedTitles(at: folder.appending("B.sqlite")).count == 8 * perQueue)
  }
}
