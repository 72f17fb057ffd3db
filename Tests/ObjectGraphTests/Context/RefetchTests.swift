import EngineTestSupport
import Foundation
import TestSupport
import Testing

@testable import ObjectGraph

/// What a fetch does to objects the context already holds when another coordinator has changed their rows
/// (two coordinators on one SQLite file, as two processes or two stacks would be).
@Suite("Refetching changed rows", .temporaryFolders)
struct RefetchTests {
  /// A stack whose store holds one note titled "old", and a second coordinator's context on the same file.
  static func twoStacks() throws -> (stack: StoreStack, other: NSManagedObjectContext, keep: NSPersistentStoreCoordinator) {
    let stack = try StoreStack()
    try stack.context.performAndWait {
      let note = Note(context: stack.context)
      note.title = "old"
      note.body = "body"
      try stack.context.save()
      stack.context.reset()
    }
    let (coordinator, other) = try stack.reopened()
    return (stack, other, coordinator)
  }

  /// Each stored note's title and body, as a fresh context reads them.
  static func titlesAndBodies(_ stack: StoreStack) throws -> [[String?]] {
    try stack.stored("Note") { [$0.value(forKey: "title") as? String, $0.value(forKey: "body") as? String] }
  }

  /// The other coordinator sets the note's title and saves.
  static func retitle(_ other: NSManagedObjectContext, _ title: String) throws {
    try other.performAndWait {
      let note = try #require(try other.fetch(NSFetchRequest<Note>()).first)
      note.title = title
      try other.save()
    }
  }

  @Test("A fault that was never fired takes the row a refetch reads")
  func unfiredFaultTakesRefetchedRow() throws {
    let (stack, other, keep) = try Self.twoStacks()
    let context = stack.context
    try context.performAndWait {
      let note = try #require(try context.fetch(NSFetchRequest<Note>()).first)
      #expect(note.isFault)
      try Self.retitle(other, "new")
      let again = try #require(try context.fetch(NSFetchRequest<Note>()).first)
      #expect(again === note)
      #expect(note.title == "new")
      note.body = "edited"
      try context.save()
    }
    #expect(try Self.titlesAndBodies(stack) == [["new", "edited"]])
    withExtendedLifetime(keep) {}
  }

  @Test("An object dropped and fetched again reads the row the fetch read")
  func droppedObjectReadsRefetchedRow() throws {
    let (stack, other, keep) = try Self.twoStacks()
    let context = stack.context
    try context.performAndWait {
      #expect(try context.fetch(NSFetchRequest<Note>()).count == 1)
      try Self.retitle(other, "new")
      let note = try #require(try context.fetch(NSFetchRequest<Note>()).first)
      #expect(note.title == "new")
    }
    withExtendedLifetime(keep) {}
  }

  @Test("An object in use keeps its values on refetch, but a later change saves without a conflict")
  func firedObjectKeepsValuesAndSaves() throws {
    let (stack, other, keep) = try Self.twoStacks()
    let context = stack.context
    try context.performAndWait {
      let note = try #require(try context.fetch(NSFetchRequest<Note>()).first)
      #expect(note.title == "old")
      try Self.retitle(other, "new")
      _ = try context.fetch(NSFetchRequest<Note>())
      // Core Data's default: what the object shows does not change under the code using it.
      #expect(note.title == "old")
      #expect(!note.hasChanges)
      note.body = "edited"
      try context.save()
    }
    // Only the changed property was written: the other coordinator's title stays.
    #expect(try Self.titlesAndBodies(stack) == [["new", "edited"]])
    withExtendedLifetime(keep) {}
  }

  @Test("An object with unsaved changes keeps them and its snapshot: saving still reports the conflict")
  func changedObjectStillConflicts() throws {
    let (stack, other, keep) = try Self.twoStacks()
    let context = stack.context
    try context.performAndWait {
      let note = try #require(try context.fetch(NSFetchRequest<Note>()).first)
      note.body = "edited"
      try Self.retitle(other, "new")
      _ = try context.fetch(NSFetchRequest<Note>())
      #expect(note.title == "old")
      #expect(note.body == "edited")
      _ = expectCode(.managedObjectMerge) { try context.save() }
    }
    withExtendedLifetime(keep) {}
  }

  @Test("shouldRefreshRefetchedObjects: objects in use take the row's values, unsaved changes kept on top")
  func shouldRefreshRefetchedObjects() throws {
    let (stack, other, keep) = try Self.twoStacks()
    let context = stack.context
    let refreshed = NotificationLog(NSManagedObjectContext.didChangeObjectsNotification, object: context) { note in
      (note.userInfo?[NSManagedObjectContext.NotificationKey.refreshedObjects.rawValue] as? Set<NSManagedObject>)?.count
    }
    try context.performAndWait {
      let request = NSFetchRequest<Note>()
      #expect(request.shouldRefreshRefetchedObjects == false)
      let note = try #require(try context.fetch(request).first)
      note.body = "edited"
      try Self.retitle(other, "new")
      request.shouldRefreshRefetchedObjects = true
      _ = try context.fetch(request)
      #expect(note.title == "new")
      #expect(note.body == "edited")
      #expect(note.isUpdated)
      #expect(note.changedValues().keys.sorted() == ["body"])
      try context.save()
    }
    #expect(refreshed.entries.contains(1))
    #expect(try Self.titlesAndBodies(stack) == [["new", "edited"]])
    withExtendedLifetime(keep) {}
  }

  @Test("shouldRefreshRefetchedObjects with a batch size: an unchanged object in use reads the new row with its batch")
  func shouldRefreshWithBatchSize() throws {
    let (stack, other, keep) = try Self.twoStacks()
    let context = stack.context
    try context.performAndWait {
      let note = try #require(try context.fetch(NSFetchRequest<Note>()).first)
      #expect(note.title == "old")
      try Self.retitle(other, "new")
      let request = NSFetchRequest<Note>()
      request.fetchBatchSize = 10
      _ = try context.fetch(request)
      #expect(note.title == "old")
      request.shouldRefreshRefetchedObjects = true
      _ = try context.fetch(request)
      #expect(note.title == "new")
    }
    withExtendedLifetime(keep) {}
  }

  @Test("In a child context, a never-fired fault takes the parent's current values on refetch")
  func childRefetchSeesParentChanges() throws {
    let stack = try StoreStack()
    let parent = stack.context
    try parent.performAndWait {
      Note(context: parent).title = "old"
      try parent.save()
    }
    let child = NSManagedObjectContext(concurrencyType: .privateQueueConcurrencyType)
    child.parent = parent
    try child.performAndWait {
      let note = try #require(try child.fetch(NSFetchRequest<Note>()).first)
      #expect(note.isFault)
      try parent.performAndWait {
        let mine = try #require(try parent.fetch(NSFetchRequest<Note>()).first)
        mine.title = "unsaved in the parent"
      }
      _ = try child.fetch(NSFetchRequest<Note>())
      #expect(note.title == "unsaved in the parent")
    }
  }
}
