import Dispatch
import EngineTestSupport
import Foundation
import TestSupport
import Testing

@testable import ObjectGraph

/// A merge into a child context (the main context under a writer, in the stages) must not wait for the
/// parent's queue, which is often busy writing the very saves being merged.
@Suite("Merging into a child context", .temporaryFolders)
struct MergeIntoChildTests {
  @Test("Merging inserted objects with permanent IDs into a child does not wait for its parent's queue")
  func mergeDoesNotWaitForParent() throws {
    let stack = try StoreStack()
    let writer = stack.context
    let child = NSManagedObjectContext(concurrencyType: .privateQueueConcurrencyType)
    child.parent = writer
    let sibling = NSManagedObjectContext(concurrencyType: .privateQueueConcurrencyType)
    sibling.parent = writer

    let saved = try sibling.performAndWait {
      let notes = (1...20).map { number in
        let note = Note(context: sibling)
        note.title = "Note \(number)"
        return note
      }
      try sibling.obtainPermanentIDs(for: notes)
      try sibling.save()
      return notes.map(\.objectID)
    }

    // The writer's queue is held, as it is while it writes a batch to disk.
    let holding = DispatchSemaphore(value: 0)
    let release = DispatchSemaphore(value: 0)
    writer.perform {
      holding.signal()
      release.wait()
    }
    holding.wait()
    defer { release.signal() }

    let insertedCounts = NotificationLog(NSManagedObjectContext.didChangeObjectsNotification, object: child) { notification in
      (notification.userInfo?[NSManagedObjectContext.NotificationKey.insertedObjects.rawValue] as? Set<NSManagedObject>)?.count
    }
    let merged = DispatchSemaphore(value: 0)
    DispatchQueue.global().async {
      child.performAndWait { child.mergeChanges(fromContextDidSave: SavedObjectIDs(inserted: Set(saved))) }
      merged.signal()
    }
    #expect(merged.wait(timeout: .now() + 5) == .success, "the merge waited for the parent's queue")
    #expect(insertedCounts.entries == [20])
  }

  @Test("A child that holds an object under a temporary ID still finds it by the permanent ID its parent gave it")
  func twinStillFound() throws {
    let stack = try StoreStack()
    let writer = stack.context
    let child = NSManagedObjectContext(concurrencyType: .privateQueueConcurrencyType)
    child.parent = writer
    try child.performAndWait {
      let note = Note(context: child)
      note.title = "Inserted in the child"
      try child.save()
      let temporary = note.objectID
      try writer.performAndWait { try writer.save() }
      let (_, reader) = try stack.reader()
      let stored = try reader.performAndWait { try reader.fetch(NSFetchRequest<Note>(entityName: "Note")).first?.objectID }
      let permanent = try #require(stored)
      #expect(temporary.isTemporaryID)
      #expect(child.object(with: permanent) === note, "the child's object, not a second one for the same row")
    }
  }

  @Test("obtainPermanentIDs for a child's new objects does not wait for its parent's queue; for pushed ones the parent adopts them")
  func obtainingIDsDoesNotWaitForParent() throws {
    let stack = try StoreStack()
    let writer = stack.context
    let worker = NSManagedObjectContext(concurrencyType: .privateQueueConcurrencyType)
    worker.parent = writer
    // One note the worker has already saved into the writer, under its temporary ID.
    let pushed = try worker.performAndWait {
      let note = Note(context: worker)
      note.title = "Pushed"
      try worker.save()
      return note
    }

    // The writer's queue is held, as it is while it writes a batch to disk.
    let holding = DispatchSemaphore(value: 0)
    let release = DispatchSemaphore(value: 0)
    writer.perform {
      holding.signal()
      release.wait()
    }
    holding.wait()
    let fresh = Shared<[NSManagedObjectID]>([])
    let obtained = DispatchSemaphore(value: 0)
    DispatchQueue.global().async {
      worker.performAndWait {
        let notes = (1...5).map { number in
          let note = Note(context: worker)
          note.title = "Fresh \(number)"
          return note
        }
        try? worker.obtainPermanentIDs(for: notes)
        fresh.withLock { $0 = notes.map(\.objectID) }
      }
      obtained.signal()
    }
    let waited = obtained.wait(timeout: .now() + 5)
    release.signal()
    #expect(waited == .success, "obtainPermanentIDs waited for the parent's queue")
    let freshIDs = fresh.withLock { $0 }
    #expect(freshIDs.count == 5 && freshIDs.allSatisfy { !$0.isTemporaryID })
    #expect(Set(freshIDs).count == 5)

    // An object the writer holds goes through it: the writer renumbers its copy to the same ID, and the
    // save writes the row under the ID the worker handed out.
    let pushedID = try worker.performAndWait {
      try worker.obtainPermanentIDs(for: [pushed])
      try worker.save()
      return pushed.objectID
    }
    #expect(!pushedID.isTemporaryID)
    try writer.performAndWait {
      #expect(writer.registeredObjects.contains { $0.objectID == pushedID })
      try writer.save()
    }
    let reader = NSManagedObjectContext(concurrencyType: .privateQueueConcurrencyType)
    reader.persistentStoreCoordinator = writer.persistentStoreCoordinator
    try reader.performAndWait {
      let titles = try reader.fetch(NSFetchRequest<Note>(entityName: "Note")).map { $0.title ?? "" }
      #expect(titles.sorted() == ["Fresh 1", "Fresh 2", "Fresh 3", "Fresh 4", "Fresh 5", "Pushed"])
      #expect((reader.object(with: pushedID) as? Note)?.title == "Pushed")
      for id in freshIDs { #expect((reader.object(with: id) as? Note)?.title?.hasPrefix("Fresh") == true) }
    }
  }
}
