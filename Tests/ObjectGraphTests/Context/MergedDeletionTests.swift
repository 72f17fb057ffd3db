import EngineTestSupport
import Foundation
import TestSupport
import Testing

@testable import ObjectGraph

/// A context that merged another context's saved deletion (`mergeChanges(fromContextDidSave:)`): as
/// Core Data documents, the merge calls `delete(_:)` on the object, so the receiver has a pending
/// deletion; saving it must neither fail nor write anything, as the row is already gone.
@Suite("Merged deletions", .temporaryFolders)
struct MergedDeletionTests {
  private struct Traced {
    let log = Locked<[String]>([])
    let stack: StoreStack
    init() throws {
      let log = self.log
      stack = try StoreStack(
        model: try Models.notes(), fileName: "Merged.sqlite",
        options: [
          NSMigratePersistentStoresAutomaticallyOption: true, NSInferMappingModelAutomaticallyOption: true,
          ObjectGraphSQLTraceOption: { sql in log.withLock { $0.append(sql) } } as @Sendable (String) -> Void,
        ])
    }
    func context() -> NSManagedObjectContext { stack.freshContext() }
  }

  /// Saves a note in one context, reads it in a second, deletes and saves in the first, and merges that
  /// save into the second. `change` runs on the second context's copy before the merge.
  private func mergedDeletion(change: @escaping (Note) -> Void) throws -> (Traced, NSManagedObjectContext, Note) {
    let traced = try Traced()
    let writer = traced.context()
    let receiver = traced.context()
    let id = try writer.performAndWait {
      let note = Note(context: writer)
      note.title = "doomed"
      try writer.save()
      return note.objectID
    }
    let note = try receiver.performAndWait {
      let note = try #require(try receiver.existingObject(with: id) as? Note)
      _ = note.title
      change(note)
      return note
    }
    let saved = Locked<SavedObjectIDs?>(nil)
    let observer = NotificationCenter.default.addObserver(
      forName: NSManagedObjectContext.didSaveObjectIDsNotification, object: writer, queue: nil
    ) { notification in
      let ids = SavedObjectIDs(notification)
      saved.withLock { $0 = ids }
    }
    try writer.performAndWait {
      writer.delete(writer.object(with: id))
      try writer.save()
    }
    NotificationCenter.default.removeObserver(observer)
    let changes = try #require(saved.withLock { $0 })
    #expect(changes.deleted == [id])
    receiver.performAndWait { receiver.mergeChanges(fromContextDidSave: changes) }
    return (traced, receiver, note)
  }

  private func expectSaveWritesNothing(_ traced: Traced, _ receiver: NSManagedObjectContext, _ note: Note) throws {
    receiver.performAndWait {
      // Core Data's merge invokes delete(_:): the deletion is pending in the receiver until it saves.
      #expect(note.isDeleted)
      #expect(receiver.hasChanges)
      #expect(receiver.deletedObjects == [note])
      #expect(receiver.updatedObjects.isEmpty)
      #expect(note.managedObjectContext === receiver)
    }
    traced.log.withLock { $0 = [] }
    try receiver.performAndWait { try receiver.save() }
    #expect(traced.log.withLock { $0 } == [], "the row is already gone: the save has nothing to write")
    receiver.performAndWait {
      #expect(!receiver.hasChanges)
      #expect(receiver.deletedObjects.isEmpty)
      #expect(note.managedObjectContext == nil)
      #expect(!note.isDeleted)
    }
  }

  @Test("An unchanged object deleted elsewhere: the receiver's save afterwards writes nothing")
  func unchanged() throws {
    let (traced, receiver, note) = try mergedDeletion { _ in }
    try expectSaveWritesNothing(traced, receiver, note)
  }

  @Test("An object the receiver had deleted too, deleted elsewhere: the receiver's save writes nothing")
  func deletedInBoth() throws {
    let (traced, receiver, note) = try mergedDeletion { note in note.managedObjectContext?.delete(note) }
    try expectSaveWritesNothing(traced, receiver, note)
  }

  @Test("An object the receiver had changed, deleted elsewhere: its change is dropped and the save writes nothing")
  func changed() throws {
    let (traced, receiver, note) = try mergedDeletion { note in note.title = "edited here" }
    try expectSaveWritesNothing(traced, receiver, note)
  }
}
