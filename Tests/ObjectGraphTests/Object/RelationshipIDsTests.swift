import EngineTestSupport
import Foundation
import ObjectGraph
import Synchronization
import TestSupport
import Testing

@Suite("Relationship IDs and faults, and the did-merge notification", .temporaryFolders)
struct RelationshipIDsTests {
  /// A notebook with two notes, saved; then a fresh context on the same coordinator.
  private func savedNotebook(_ stack: StoreStack) throws -> (
    fresh: NSManagedObjectContext, notebookID: NSManagedObjectID, noteIDs: Set<NSManagedObjectID>
  ) {
    let ids = try stack.context.performAndWait {
      let book = Notebook(context: stack.context)
      book.name = "Work"
      var notes: [Note] = []
      for title in ["a", "b"] {
        let note = Note(context: stack.context)
        note.title = title
        note.notebook = book
        notes.append(note)
      }
      try stack.context.save()
      // After the save: the permanent IDs.
      return (book.objectID, Set(notes.map(\.objectID)))
    }
    let fresh = NSManagedObjectContext(concurrencyType: .privateQueueConcurrencyType)
    fresh.persistentStoreCoordinator = stack.coordinator
    return (fresh, ids.0, ids.1)
  }

  @Test("objectIDs(forRelationshipNamed:) hands out the IDs without making the related objects; hasFault tells a relationship not yet read")
  func idsWithoutFaulting() throws {
    let stack = try StoreStack()
    let (fresh, notebookID, noteIDs) = try savedNotebook(stack)
    try fresh.performAndWait {
      let book = try #require(try fresh.existingObject(with: notebookID) as? Notebook)
      #expect(book.hasFault(forRelationshipNamed: "notes"), "its members' IDs are not read yet")
      let ids = book.objectIDs(forRelationshipNamed: "notes")
      #expect(Set(ids) == noteIDs)
      #expect(!book.hasFault(forRelationshipNamed: "notes"), "the IDs are read now")
      #expect(ids.allSatisfy { fresh.registeredObject(for: $0) == nil }, "no note was made to hand out its ID")

      let note = fresh.object(with: try #require(ids.first))
      #expect(note.isFault)
      #expect(note.hasFault(forRelationshipNamed: "notebook"), "a fault's to-one is a fault")
      #expect(note.isFault, "asking fired no fault")
      #expect(note.objectIDs(forRelationshipNamed: "notebook") == [notebookID])
      #expect(!note.isFault, "objectIDs fires the object's own fault, to read the ID")
      #expect(!note.hasFault(forRelationshipNamed: "notebook"), "its notebook is registered and loaded")
      #expect(note.objectIDs(forRelationshipNamed: "tags").isEmpty)
    }
  }

  @Test("Asking about an attribute stops the program, naming it")
  func attributeStops() async throws {
    let stopped = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
      let stack = try StoreStack(type: .inMemory)
      stack.context.performAndWait {
        let note = Note(context: stack.context)
        _ = note.objectIDs(forRelationshipNamed: "title")
      }
    }
    let said = String(decoding: stopped?.standardErrorContent ?? [], as: UTF8.self)
    #expect(said.contains("Note.title, which is an attribute, not a relationship"), "it printed: \(said)")
  }

  @Test("didMergeChangesObjectIDsNotification follows a merge with the merged IDs and what it refreshed")
  func didMergeNotification() throws {
    let stack = try StoreStack()
    let (fresh, notebookID, _) = try savedNotebook(stack)
    let posted = Mutex<[[String: Set<NSManagedObjectID>]]>([])
    let observer = NotificationCenter.default.addObserver(
      forName: NSManagedObjectContext.didMergeChangesObjectIDsNotification, object: fresh, queue: nil
    ) { notification in
      var sets: [String: Set<NSManagedObjectID>] = [:]
      for key in [
        NSInsertedObjectIDsKey, NSUpdatedObjectIDsKey, NSDeletedObjectIDsKey,
        NSManagedObjectContext.NotificationKey.refreshedObjectIDs.rawValue,
      ] {
        sets[key] = notification.userInfo?[key] as? Set<NSManagedObjectID> ?? []
      }
      posted.withLock { $0.append(sets) }
    }
    defer { NotificationCenter.default.removeObserver(observer) }
    try fresh.performAndWait { _ = try fresh.existingObject(with: notebookID) }  // the fresh context holds the notebook
    // Another context renames the notebook; its save is merged into the fresh context.
    let saved = Mutex<SavedObjectIDs?>(nil)
    let saveObserver = NotificationCenter.default.addObserver(
      forName: NSManagedObjectContext.didSaveObjectIDsNotification, object: stack.context, queue: nil
    ) { saved.withLock { [notification = $0] in $0 = SavedObjectIDs(notification) } }
    defer { NotificationCenter.default.removeObserver(saveObserver) }
    try stack.context.performAndWait {
      let book = try #require(try stack.context.existingObject(with: notebookID) as? Notebook)
      book.name = "Work (renamed)"
      try stack.context.save()
    }
    let changes = try #require(saved.withLock { $0 })
    fresh.performAndWait { fresh.mergeChanges(fromContextDidSave: changes) }
    let last = try #require(posted.withLock { $0.last })
    #expect(last[NSUpdatedObjectIDsKey] == [notebookID])
    #expect(last[NSManagedObjectContext.NotificationKey.refreshedObjectIDs.rawValue] == [notebookID])
    #expect(last[NSInsertedObjectIDsKey]?.isEmpty == true && last[NSDeletedObjectIDsKey]?.isEmpty == true)
  }
}
