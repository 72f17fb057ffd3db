import EngineTestSupport
import Foundation
import Synchronization
import TestSupport
import Testing

@testable import ObjectGraph

/// What the contexts do when a store leaves their coordinator: the objects they hold from it are invalidated
/// and announced under `NSInvalidatedObjectsKey`.
@Suite("Stores: removal invalidates the objects contexts hold", .temporaryFolders)
struct StoreRemovalTests {
  /// The invalidated objects (the last part of their URIs) each context announced, by context name, one list
  /// per notification.
  final class Heard: Sendable {
    final class Announcements: Sendable {
      let byContext = Mutex<[String: [[String]]]>([:])
    }

    let announcements = Announcements()
    let token: ObserverToken

    init() {
      let announcements = announcements
      token = ObserverToken(
        token: NotificationCenter.default.addObserver(
          forName: NSManagedObjectContext.didChangeObjectsNotification, object: nil, queue: nil
        ) { note in
          guard let invalidated = note.userInfo?[NSInvalidatedObjectsKey] as? Set<NSManagedObject>,
            let context = note.object as? NSManagedObjectContext, let name = context.name
          else { return }
          let names = invalidated.map { $0.objectID.uriRepresentation().lastPathComponent }.sorted()
          announcements.byContext.withLock { $0[name, default: []].append(names) }
        })
    }

    var announced: [String: [[String]]] { announcements.byContext.withLock { $0 } }

    deinit { NotificationCenter.default.removeObserver(token.token) }
  }

  /// A coordinator with stores A and B (every entity in each), two notes saved in each.
  private func stack(_ folder: TemporaryFolder) throws -> (NSPersistentStoreCoordinator, NSPersistentStore, NSPersistentStore) {
    let coordinator = NSPersistentStoreCoordinator(managedObjectModel: try Models.notes())
    let a = try coordinator.addPersistentStore(type: .sqlite, at: folder.appending("A.sqlite"))
    let b = try coordinator.addPersistentStore(type: .sqlite, at: folder.appending("B.sqlite"))
    let writer = NSManagedObjectContext(concurrencyType: .privateQueueConcurrencyType)
    writer.persistentStoreCoordinator = coordinator
    try writer.performAndWait { () throws in
      for (title, store) in [("a1", a), ("a2", a), ("b1", b), ("b2", b)] {
        let note = Note(context: writer)
        note.title = title
        writer.assign(note, to: store)
      }
      try writer.save()
    }
    return (coordinator, a, b)
  }

  private func notes(_ context: NSManagedObjectContext) throws -> [String: Note] {
    let request = NSFetchRequest<Note>(entityName: "Note")
    return Dictionary(uniqueKeysWithValues: try context.fetch(request).map { ($0.title ?? "", $0) })
  }

  @Test("only the removed store's objects are invalidated: faults again, changes dropped, announced once per context")
  func removalInvalidatesThatStoresObjects() throws {
    let folder = try TemporaryFolder()
    let (coordinator, _, b) = try stack(folder)
    let heard = Heard()
    let context = NSManagedObjectContext(concurrencyType: .privateQueueConcurrencyType)
    context.persistentStoreCoordinator = coordinator
    context.name = "root-\(UUID())"
    let child = NSManagedObjectContext(concurrencyType: .privateQueueConcurrencyType)
    child.parent = context
    child.name = "child-\(UUID())"
    let bystander = NSManagedObjectContext(concurrencyType: .privateQueueConcurrencyType)
    bystander.persistentStoreCoordinator = NSPersistentStoreCoordinator(managedObjectModel: coordinator.managedObjectModel)
    bystander.name = "other-\(UUID())"

    // The test holds the objects, as an app's screen would: a context keeps only the objects someone holds.
    let byTitle = try context.performAndWait { () throws in try notes(context) }
    let (b1URI, b2URI) = context.performAndWait { () -> (String, String) in
      byTitle["a1"]?.title = "a1 edited"
      byTitle["b1"]?.title = "b1 edited"
      if let b2 = byTitle["b2"] { context.delete(b2) }
      let inserted = Note(context: context)
      inserted.title = "new"
      return (
        byTitle["b1"]?.objectID.uriRepresentation().lastPathComponent ?? "",
        byTitle["b2"]?.objectID.uriRepresentation().lastPathComponent ?? ""
      )
    }
    let childNotes = try child.performAndWait { () throws in try notes(child) }

    try coordinator.remove(b)

    try context.performAndWait { () throws in
      #expect(context.updatedObjects.compactMap { ($0 as? Note)?.title } == ["a1 edited"], "B's change is dropped, A's kept")
      #expect(context.deletedObjects.isEmpty, "B's delete is dropped")
      #expect(context.insertedObjects.count == 1, "an unsaved insert belongs to no store yet")
      let invalid = context.registeredObjects.filter { $0.objectID.storeIdentifier == b.identifier }
      #expect(invalid.count == 2)
      #expect(invalid.allSatisfy { $0.isFault })
      // Read now, an invalidated object finds no row: it becomes a deleted, empty object.
      let b1 = try #require(invalid.first as? Note)
      #expect(b1.title == nil)
      #expect(b1.isDeleted)
      _ = try context.save()
    }
    child.performAndWait {}
    let announced = heard.announced
    #expect(announced[context.name ?? ""] == [[b1URI, b2URI].sorted()])
    // The child fetched after its parent deleted b2: it holds b1 only.
    #expect(announced[child.name ?? ""] == [[b1URI]])
    #expect(announced[bystander.name ?? ""] == nil, "a context of another coordinator hears nothing")
    withExtendedLifetime((byTitle, childNotes)) {}
  }

  @Test("adding the store file again makes the invalidated objects readable again")
  func readdingTheStoreRevivesTheObjects() throws {
    let folder = try TemporaryFolder()
    let (coordinator, _, b) = try stack(folder)
    let context = NSManagedObjectContext(concurrencyType: .privateQueueConcurrencyType)
    context.persistentStoreCoordinator = coordinator
    let b1 = try context.performAndWait { () throws -> Note? in try notes(context)["b1"] }
    let url = try #require(b.url)
    try coordinator.remove(b)
    _ = try coordinator.addPersistentStore(type: .sqlite, at: url)
    context.performAndWait {
      #expect(b1?.isFault == true)
      #expect(b1?.title == "b1")
      #expect(b1?.isDeleted == false)
    }
  }

  @Test("many contexts on their own queues, reading while the store goes: each announces its objects once")
  func manyContextsOnRealQueues() throws {
    let folder = try TemporaryFolder()
    let (coordinator, _, b) = try stack(folder)
    let heard = Heard()
    let run = UUID().uuidString
    let contexts = (0..<8).map { index -> NSManagedObjectContext in
      let context = NSManagedObjectContext(concurrencyType: .privateQueueConcurrencyType)
      context.persistentStoreCoordinator = coordinator
      context.name = "\(run)-\(index)"
      return context
    }
    let held = try contexts.map { context in try context.performAndWait { () throws in try notes(context) } }
    let started = DispatchGroup()
    for context in contexts {
      started.enter()
      context.perform {
        started.leave()
        // Keeps reading while the store is removed: a fault of B's then finds nothing, without a crash.
        for _ in 0..<50 {
          for object in context.registeredObjects { _ = (object as? Note)?.title }
        }
      }
    }
    started.wait()
    try coordinator.remove(b)
    for context in contexts { context.performAndWait {} }
    let announced = heard.announced.filter { $0.key.hasPrefix(run) }
    #expect(announced.count == 8)
    #expect(announced.values.allSatisfy { $0.count == 1 && $0[0].count == 2 })
    withExtendedLifetime(held) {}
  }

  @Test("a context that has gone away is forgotten, not kept alive")
  func listenersAreWeak() throws {
    let folder = try TemporaryFolder()
    let (coordinator, _, b) = try stack(folder)
    weak var gone: NSManagedObjectContext?
    do {
      let context = NSManagedObjectContext(concurrencyType: .privateQueueConcurrencyType)
      context.persistentStoreCoordinator = coordinator
      try context.performAndWait { () throws in _ = try notes(context) }
      gone = context
    }
    #expect(gone == nil)
    try coordinator.remove(b)
  }
}
