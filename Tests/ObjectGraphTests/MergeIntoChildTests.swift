import Dispatch
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
    let stack = try Stack()
    let writer = stack.context
    let child = ManagedObjectContext(concurrencyType: .privateQueue)
    child.parent = writer
    let sibling = ManagedObjectContext(concurrencyType: .privateQueue)
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

    let insertedCounts = NotificationLog(ManagedObjectContext.objectsDidChangeNotification, object: child) { notification in
      (notification.userInfo?[ManagedObjectContext.NotificationKey.insertedObjects.rawValue] as? Set<ManagedObject>)?.count
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
    let stack = try Stack()
    let writer = stack.context
    let child = ManagedObjectContext(concurrencyType: .privateQueue)
    child.parent = writer
    try child.performAndWait {
      let note = Note(context: child)
      note.title = "Inserted in the child"
      try child.save()
      let temporary = note.objectID
      try writer.performAndWait { try writer.save() }
      let (_, reader) = try stack.reader()
      let stored = try reader.performAndWait { try reader.fetch(FetchRequest<Note>(entityName: "Note")).first?.objectID }
      let permanent = try #require(stored)
      #expect(temporary.isTemporaryID)
      #expect(child.object(with: permanent) === note, "the child's object, not a second one for the same row")
    }
  }
}
