import EngineTestSupport
import Foundation
import TestSupport
import Testing

@testable import ObjectGraph

/// Core Data's parent/child rules, one by one.
@Suite("Nested contexts", .temporaryFolders)
struct NestedContextTests {
  private func child(of parent: NSManagedObjectContext, _ type: NSManagedObjectContext.ConcurrencyType = .privateQueue)
    -> NSManagedObjectContext
  {
    let context = NSManagedObjectContext(type)
    context.parent = parent
    return context
  }

  @Test("A child's save goes one level up and no further; the parent's save reaches the store", arguments: bothStoreTypes)
  func childSaveStopsAtParent(type: NSPersistentStore.StoreType) throws {
    let stack = try StoreStack(type: type)
    let child = child(of: stack.context)
    try child.performAndWait {
      let note = Note(context: child)
      note.title = "from the child"
      try child.save()
      #expect(!child.hasChanges)
    }
    try stack.expectStored("Note", count: 0, table: "ZNOTE")
    try stack.context.performAndWait {
      #expect(stack.context.hasChanges)
      #expect(stack.context.insertedObjects.count == 1)
      try stack.context.save()
    }
    try stack.expectStored("Note", count: 1, table: "ZNOTE")
    #expect(try stack.stored("Note") { $0.value(forKey: "title") as? String } == ["from the child"])
    if let rows = try stack.fileRows("SELECT ZTITLE FROM ZNOTE") { #expect(rows[0]["ZTITLE"] as String == "from the child") }
  }

  @Test("A child's fetch sees its parent's unsaved state", arguments: bothStoreTypes)
  func childSeesParentState(type: NSPersistentStore.StoreType) throws {
    let stack = try StoreStack(type: type)
    let saved = try stack.context.performAndWait {
      let note = Note(context: stack.context)
      note.title = "saved"
      try stack.context.save()
      note.title = "changed, unsaved"
      let fresh = Note(context: stack.context)
      fresh.title = "inserted, unsaved"
      return note
    }
    let child = child(of: stack.context)
    let titles = try child.performAndWait {
      try child.fetch(NSFetchRequest<Note>(entityName: "Note")).compactMap(\.title).sorted()
    }
    #expect(titles == ["changed, unsaved", "inserted, unsaved"])
    withExtendedLifetime(saved) {}
  }

  @Test("A parent's save does not flow down, and siblings do not see each other's saves", arguments: bothStoreTypes)
  func noFlowDownNoSiblings(type: NSPersistentStore.StoreType) throws {
    let stack = try StoreStack(type: type)
    let id = try stack.context.performAndWait {
      let note = Note(context: stack.context)
      note.title = "v1"
      try stack.context.save()
      return note.objectID
    }
    let first = child(of: stack.context)
    let second = child(of: stack.context)
    let inFirst = try first.performAndWait { try #require(try first.existingObject(with: id) as? Note) }
    let inSecond = try second.performAndWait { try #require(try second.existingObject(with: id) as? Note) }
    try first.performAndWait {
      inFirst.title = "v2 from first"
      try first.save()
    }
    // The sibling keeps the object as it had it.
    #expect(second.performAndWait { inSecond.title } == "v1")
    // The parent has it; a save of the parent does not change the children's objects either.
    try stack.context.performAndWait {
      let note = try #require(try stack.context.existingObject(with: id) as? Note)
      #expect(note.title == "v2 from first")
      note.title = "v3 from parent"
      try stack.context.save()
    }
    #expect(first.performAndWait { inFirst.title } == "v2 from first")
    #expect(second.performAndWait { inSecond.title } == "v1")
  }

  @Test("Objects inserted in a child keep their temporary IDs after the parent saves them", arguments: bothStoreTypes)
  func temporaryIDsStayInChild(type: NSPersistentStore.StoreType) throws {
    let stack = try StoreStack(type: type)
    let child = child(of: stack.context)
    let note = try child.performAndWait {
      let note = Note(context: child)
      note.title = "made in the child"
      try child.save()
      return note
    }
    try stack.context.performAndWait { try stack.context.save() }
    let (idInChild, stillTemporary) = child.performAndWait { (note.objectID, note.objectID.isTemporaryID) }
    #expect(stillTemporary)
    // The parent gave its object a permanent ID; the temporary one names nothing there any more...
    let parentIDs = try stack.context.performAndWait {
      try stack.context.fetch(NSFetchRequest<Note>(entityName: "Note")).map(\.objectID)
    }
    #expect(parentIDs.count == 1 && !parentIDs[0].isTemporaryID && parentIDs[0] != idInChild)
    // ...yet the child can still save changes to its object, which reach the same row.
    try child.performAndWait {
      note.body = "edited later"
      try child.save()
    }
    try stack.context.performAndWait { try stack.context.save() }
    #expect(try stack.stored("Note") { $0.value(forKey: "body") as? String } == ["edited later"])
    if let rows = try stack.fileRows("SELECT ZBODY FROM ZNOTE") { #expect(rows[0]["ZBODY"] as String? == "edited later") }
    try stack.expectStored("Note", count: 1, table: "ZNOTE")
  }

  @Test("obtainPermanentIDs in a child gives the ID the row will have", arguments: bothStoreTypes)
  func obtainPermanentIDs(type: NSPersistentStore.StoreType) throws {
    let stack = try StoreStack(type: type)
    let child = child(of: stack.context)
    let id = try child.performAndWait {
      let note = Note(context: child)
      note.title = "numbered early"
      try child.obtainPermanentIDs(for: [note])
      #expect(!note.objectID.isTemporaryID)
      try child.save()
      return note.objectID
    }
    try stack.context.performAndWait { try stack.context.save() }
    let (_, reader) = try stack.reader()
    let title = try reader.performAndWait { (try reader.existingObject(with: id) as? Note)?.title }
    #expect(title == "numbered early")
  }

  @Test("obtainPermanentIDs after a child save renumbers the parent's copy too", arguments: bothStoreTypes)
  func obtainPermanentIDsAfterChildSave(type: NSPersistentStore.StoreType) throws {
    let stack = try StoreStack(type: type)
    let child = child(of: stack.context)
    let (note, id) = try child.performAndWait {
      let note = Note(context: child)
      note.title = "pushed, then numbered"
      try child.save()
      try child.obtainPermanentIDs(for: [note])
      return (note, note.objectID)
    }
    try stack.context.performAndWait { try stack.context.save() }
    try child.performAndWait {
      note.body = "edited after"
      try child.save()
    }
    try stack.context.performAndWait { try stack.context.save() }
    let (_, reader) = try stack.reader()
    let body = try reader.performAndWait { (try reader.existingObject(with: id) as? Note)?.body }
    #expect(body == "edited after")
    try stack.expectStored("Note", count: 1, table: "ZNOTE")
  }

  @Test("A child looks up an object its parent inserted, by the parent's temporary ID", arguments: bothStoreTypes)
  func existingObjectWithParentsTemporaryID(type: NSPersistentStore.StoreType) throws {
    let stack = try StoreStack(type: type)
    let (book, id) = stack.context.performAndWait {
      let book = Notebook(context: stack.context)
      book.name = "unsaved in the parent"
      return (book, book.objectID)
    }
    let child = child(of: stack.context)
    let name = try child.performAndWait { (try child.existingObject(with: id) as? Notebook)?.name }
    #expect(name == "unsaved in the parent")
    // A context without that ancestor says the ID names nothing it can reach.
    let (_, stranger) = try stack.reader()
    stranger.performAndWait {
      let error = expectCode(.objectNotFound) { _ = try stranger.existingObject(with: id) }
      #expect(error?.message.contains("obtainPermanentIDs") == true)
    }
    withExtendedLifetime(book) {}
  }

  @Test("Three levels: a grandchild's change reaches the store after each level saves", arguments: bothStoreTypes)
  func threeLevels(type: NSPersistentStore.StoreType) throws {
    let stack = try StoreStack(type: type)
    let middle = child(of: stack.context)
    let leaf = child(of: middle)
    try leaf.performAndWait {
      let book = Notebook(context: leaf)
      book.name = "deep"
      let note = Note(context: leaf)
      note.title = "leaf"
      note.notebook = book
      try leaf.save()
    }
    #expect(try middle.performAndWait { try middle.count(for: NSFetchRequest<Note>(entityName: "Note")) } == 1)
    try stack.expectStored("Note", count: 0, table: "ZNOTE")
    try middle.performAndWait { try middle.save() }
    try stack.expectStored("Note", count: 0, table: "ZNOTE")
    try stack.context.performAndWait { try stack.context.save() }
    try stack.expectStored("Note", count: 1, table: "ZNOTE")
    #expect(try stack.stored("Note") { [$0.value(forKey: "title") as? String, ($0 as? Note)?.notebook?.name] } == [["leaf", "deep"]])
    if let row = try stack.fileRows("SELECT n.ZTITLE AS t, b.ZNAME AS b FROM ZNOTE n JOIN ZNOTEBOOK b ON b.Z_PK = n.ZNOTEBOOK") {
      #expect(row.first?["t"] as String? == "leaf")
      #expect(row.first?["b"] as String? == "deep")
    }
  }

  @Test("Deletes in a child reach the store through the parent, with delete rules applied", arguments: bothStoreTypes)
  func deletesFlowUp(type: NSPersistentStore.StoreType) throws {
    let stack = try StoreStack(type: type)
    let id = try stack.context.performAndWait {
      let book = Notebook(context: stack.context)
      book.name = "old"
      for index in 0..<3 {
        let note = Note(context: stack.context)
        note.title = "n\(index)"
        note.notebook = book
      }
      try stack.context.save()
      return book.objectID
    }
    let child = child(of: stack.context)
    try child.performAndWait {
      child.delete(try child.existingObject(with: id))
      try child.save()
    }
    try stack.context.performAndWait { try stack.context.save() }
    try stack.expectStored("Note", count: 0, table: "ZNOTE")
  }

  @Test("performAndWait nests across parent and child, both ways, without deadlock", arguments: bothStoreTypes)
  func nestingDoesNotDeadlock(type: NSPersistentStore.StoreType) throws {
    let stack = try StoreStack(type: type)
    let parent = stack.context
    let child = child(of: parent)
    let depth = try child.performAndWait {
      try parent.performAndWait {
        try child.performAndWait {
          let note = Note(context: child)
          note.title = "nested"
          try child.save()  // the child's save calls into the parent, already on this thread's stack
          return parent.performAndWait { parent.insertedObjects.count }
        }
      }
    }
    #expect(depth == 1)
  }

  @Test("Many threads saving children of one parent at once lose nothing", arguments: bothStoreTypes)
  func concurrentChildren(type: NSPersistentStore.StoreType) async throws {
    let stack = try StoreStack(type: type)
    let parent = stack.context
    try await withThrowingTaskGroup(of: Void.self) { group in
      for worker in 0..<8 {
        group.addTask {
          let context = NSManagedObjectContext(concurrencyType: .privateQueueConcurrencyType)
          context.parent = parent
          for batch in 0..<5 {
            try await context.perform {
              for item in 0..<10 {
                let note = Note(context: context)
                note.title = "w\(worker) b\(batch) i\(item)"
              }
              try context.save()
            }
          }
        }
      }
      try await group.waitForAll()
    }
    try await parent.perform { try parent.save() }
    try stack.expectStored("Note", count: 400, table: "ZNOTE")
  }

  @Test("mergeChanges refreshes updated objects, drops deleted ones and keeps local changes", arguments: bothStoreTypes)
  func mergeChanges(type: NSPersistentStore.StoreType) throws {
    let stack = try StoreStack(type: type)
    let (keptID, goneID) = try stack.context.performAndWait {
      let kept = Note(context: stack.context)
      kept.title = "kept"
      let gone = Note(context: stack.context)
      gone.title = "gone"
      try stack.context.save()
      return (kept.objectID, gone.objectID)
    }
    let (_, other) = try stack.reader()
    let kept = try other.performAndWait { try #require(try other.existingObject(with: keptID) as? Note) }
    let gone = try other.performAndWait { try #require(try other.existingObject(with: goneID) as? Note) }
    other.performAndWait { kept.body = "local edit" }
    let saved = NotificationLog(NSManagedObjectContext.didSaveObjectIDsNotification, object: stack.context) { note in
      SavedObjectIDs(note)
    }
    try stack.context.performAndWait {
      let note = try #require(try stack.context.existingObject(with: keptID) as? Note)
      note.title = "renamed elsewhere"
      stack.context.delete(try stack.context.existingObject(with: goneID))
      try stack.context.save()
    }
    let changes = try #require(saved.entries.last)
    #expect(changes.updated == [keptID] && changes.deleted == [goneID])
    try other.performAndWait {
      other.mergeChanges(fromContextDidSave: changes)
      #expect(kept.title == "renamed elsewhere")
      #expect(kept.body == "local edit")
      #expect(kept.hasChanges)
      // Merged deletes go through delete(_:), as Core Data's do; saving them later writes nothing more.
      #expect(gone.isDeleted)
      #expect(other.deletedObjects.contains(gone))
      try other.save()
    }
    #expect(try stack.stored("Note", sortedBy: "title") { $0.value(forKey: "body") as? String } == ["local edit"])
    if let rows = try stack.fileRows("SELECT ZBODY FROM ZNOTE") { #expect(rows[0]["ZBODY"] as String? == "local edit") }
  }

  @Test("automaticallyMergesChangesFromParent brings the parent's saves into the child", arguments: bothStoreTypes)
  func automaticMerging(type: NSPersistentStore.StoreType) async throws {
    let stack = try StoreStack(type: type)
    let id = try stack.context.performAndWait {
      let note = Note(context: stack.context)
      note.title = "before"
      try stack.context.save()
      return note.objectID
    }
    let child = child(of: stack.context)
    child.automaticallyMergesChangesFromParent = true
    let registered = try child.performAndWait { try #require(try child.existingObject(with: id) as? Note) }
    try stack.context.performAndWait {
      (try stack.context.existingObject(with: id) as? Note)?.title = "after"
      try stack.context.save()
    }
    // The merge was queued on the child's queue by the parent's save; this block runs after it. (The
    // object itself may not cross into the block, a Sendable closure: Swift refuses. Its ID may.)
    let title = try await child.perform { (try child.existingObject(with: id) as? Note)?.title }
    #expect(title == "after")
    #expect(child.performAndWait { registered.title } == "after")
  }

  @Test("Changes post objects-did-change when pending changes are processed", arguments: bothStoreTypes)
  func objectsDidChange(type: NSPersistentStore.StoreType) throws {
    let stack = try StoreStack(type: type)
    let counts = NotificationLog(NSManagedObjectContext.didChangeObjectsNotification, object: stack.context) { note in
      (note.userInfo?["inserted"] as? Set<NSManagedObject>)?.count ?? -1
    }
    stack.context.performAndWait {
      let note = Note(context: stack.context)
      note.title = "seen"
      stack.context.processPendingChanges()
      stack.context.processPendingChanges()  // nothing new: no second notification
    }
    #expect(counts.entries == [1])
  }
}
