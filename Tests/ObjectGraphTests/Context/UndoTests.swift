import EngineTestSupport
import Foundation
import TestSupport
import Testing

@testable import ObjectGraph

/// A context's undo manager (`NSManagedObjectContext.undoManager`, `undo()`, `redo()`): what is recorded,
/// how it is grouped by event, what undo restores (values, both sides of relationships, inserts, deletes
/// with their delete rules), and what empties it (rollback, reset), on real queues.
@Suite("Undo")
struct UndoTests {
  /// An in-memory stack with the notes model, its private context recording undo.
  private struct Stack {
    let stack: StoreStack
    let context: NSManagedObjectContext
    let undoManager = UndoManager()

    init(contextType: NSManagedObjectContext.ConcurrencyType = .privateQueue) throws {
      stack = try StoreStack(model: try Models.notes(), type: .inMemory, contextType: contextType)
      context = stack.context
      let undoManager = undoManager
      context.performAndWait { context.undoManager = undoManager }
    }

    /// What a context that knows only the store reads for the note with `id`.
    func storedTitle(_ id: NSManagedObjectID) throws -> String? {
      let reader = stack.freshContext()
      return try reader.performAndWait { try reader.existingObject(with: id).value(forKey: "title") as? String }
    }
  }

  /// Saves a notebook with two notes (one tagged) in `stack`'s context, with nothing recorded for undo.
  private func savedNotebook(_ stack: Stack) throws -> (Notebook, Note, Note, Tag) {
    try stack.context.performAndWait {
      stack.undoManager.disableUndoRegistration()
      defer { stack.undoManager.enableUndoRegistration() }
      let notebook = Notebook(context: stack.context)
      notebook.name = "Work"
      let first = Note(context: stack.context)
      first.title = "first"
      first.notebook = notebook
      let second = Note(context: stack.context)
      second.title = "second"
      second.notebook = notebook
      let tag = Tag(context: stack.context)
      tag.name = "urgent"
      first.tags = [tag]
      try stack.context.save()
      return (notebook, first, second, tag)
    }
  }

  @Test("A context has no undo manager by default, and undo() and redo() then do nothing")
  func noUndoManagerByDefault() throws {
    let stack = try StoreStack(model: try Models.notes(), type: .inMemory)
    let context = stack.context
    try context.performAndWait {
      #expect(context.undoManager == nil)
      let note = Note(context: context)
      note.title = "kept"
      try context.save()
      note.title = "changed"
      context.undo()
      context.redo()
      #expect(note.title == "changed")
      #expect(context.hasChanges)
    }
  }

  @Test("Each event's attribute changes are one group: undo() goes back one event at a time, redo() forward")
  func attributeChangesByEvent() throws {
    let stack = try Stack()
    let context = stack.context
    let (_, note, _, _) = try savedNotebook(stack)
    #expect(!stack.undoManager.canUndo)
    context.performAndWait {
      note.title = "one"
      note.rating = 1
    }
    context.performAndWait { note.title = "two" }
    context.performAndWait {
      #expect(stack.undoManager.canUndo)
      context.undo()
      #expect(note.title == "one" && note.rating == 1)
      #expect(context.hasChanges)
      context.undo()
      #expect(note.title == "first" && note.rating == 0)
      // Back to the values last saved: nothing left to save.
      #expect(!context.hasChanges)
      #expect(context.updatedObjects.isEmpty)
      #expect(!stack.undoManager.canUndo && stack.undoManager.canRedo)
      context.redo()
      #expect(note.title == "one" && note.rating == 1)
      #expect(context.updatedObjects == [note])
      context.redo()
      #expect(note.title == "two")
      #expect(!stack.undoManager.canRedo)
    }
  }

  @Test("Undoing an insert takes the object out of the context; redo puts it back with its values")
  func insertUndone() throws {
    let stack = try Stack()
    let context = stack.context
    let (notebook, _, _, _) = try savedNotebook(stack)
    let note = context.performAndWait {
      let note = Note(context: context)
      note.title = "new"
      note.notebook = notebook
      return note
    }
    context.performAndWait {
      #expect(context.insertedObjects == [note])
      context.undo()
      #expect(context.insertedObjects.isEmpty)
      #expect(note.managedObjectContext == nil)
      #expect(!notebook.notes.contains(note), "the inverse side is undone too")
      #expect(notebook.notes.count == 2)
      #expect(!context.hasChanges)
      context.redo()
      #expect(note.managedObjectContext === context)
      #expect(context.insertedObjects == [note])
      #expect(note.title == "new" && note.notebook === notebook)
      #expect(notebook.notes.contains(note))
    }
    try context.performAndWait { try context.save() }
    #expect(try stack.storedTitle(note.objectID) == "new")
  }

  @Test("Undoing a delete brings back the object and what its delete rules did: cascaded objects, nullified inverses")
  func deleteUndoneWithItsRules() throws {
    let stack = try Stack()
    let context = stack.context
    let (notebook, first, second, tag) = try savedNotebook(stack)
    context.performAndWait { context.delete(notebook) }
    context.performAndWait {
      // The delete rules ran at the end of the event, in its group: the notes cascaded, the tag let go.
      #expect(context.deletedObjects == [notebook, first, second])
      #expect(tag.notes.isEmpty)
      context.undo()
      #expect(context.deletedObjects.isEmpty)
      #expect(!notebook.isDeleted && !first.isDeleted && !second.isDeleted)
      #expect(notebook.notes == [first, second])
      #expect(first.notebook === notebook && second.notebook === notebook)
      #expect(tag.notes == [first] && first.tags == [tag])
      #expect(!context.hasChanges)
      context.redo()
      #expect(context.deletedObjects == [notebook, first, second])
      #expect(tag.notes.isEmpty)
    }
    try context.performAndWait { try context.save() }
    #expect(try stack.stack.storedCount("Note") == 0)
  }

  @Test("Undoing a relationship change restores both sides of the old and the new partner")
  func relationshipBothSides() throws {
    let stack = try Stack()
    let context = stack.context
    let (work, first, _, tag) = try savedNotebook(stack)
    let home = try context.performAndWait {
      stack.undoManager.disableUndoRegistration()
      defer { stack.undoManager.enableUndoRegistration() }
      let home = Notebook(context: context)
      home.name = "Home"
      try context.save()
      return home
    }
    context.performAndWait {
      first.notebook = home
      first.tags = []
    }
    context.performAndWait {
      #expect(work.notes.count == 1 && home.notes == [first] && tag.notes.isEmpty)
      context.undo()
      #expect(first.notebook === work)
      #expect(work.notes.contains(first) && work.notes.count == 2)
      #expect(home.notes.isEmpty)
      #expect(first.tags == [tag] && tag.notes == [first])
      #expect(!context.hasChanges)
    }
  }

  @Test("Explicit groups: what beginUndoGrouping() and endUndoGrouping() bracket is undone together")
  func explicitGroups() throws {
    let stack = try Stack()
    let context = stack.context
    let (_, first, second, _) = try savedNotebook(stack)
    context.performAndWait {
      stack.undoManager.groupsByEvent = false
      stack.undoManager.beginUndoGrouping()
      first.title = "a"
      second.title = "b"
      stack.undoManager.setActionName("Rename both")
      stack.undoManager.endUndoGrouping()
      stack.undoManager.beginUndoGrouping()
      first.title = "c"
      stack.undoManager.endUndoGrouping()
      #expect(stack.undoManager.groupingLevel == 0)
      context.undo()
      #expect(first.title == "a" && second.title == "b")
      #expect(stack.undoManager.undoActionName == "Rename both")
      context.undo()
      #expect(first.title == "first" && second.title == "second")
      #expect(stack.undoManager.redoActionName == "Rename both")
    }
  }

  @Test("A save keeps the undo stack: undoing after it leaves a change that the next save writes")
  func undoAfterSave() throws {
    let stack = try Stack()
    let context = stack.context
    let (_, note, _, _) = try savedNotebook(stack)
    let inserted = try context.performAndWait {
      note.title = "saved"
      let inserted = Note(context: context)
      inserted.title = "inserted"
      try context.save()
      return inserted
    }
    #expect(try stack.storedTitle(note.objectID) == "saved")
    try context.performAndWait {
      #expect(stack.undoManager.canUndo)
      context.undo()
      #expect(note.title == "first")
      #expect(context.updatedObjects == [note])
      // The insert reached the store: undoing it deletes the object there.
      #expect(context.deletedObjects == [inserted])
      try context.save()
    }
    #expect(try stack.storedTitle(note.objectID) == "first")
    #expect(try stack.stack.storedCount("Note") == 2)
  }

  @Test("rollback() empties the undo manager, reset() removes the context's operations from it")
  func rollbackAndResetClear() throws {
    let stack = try Stack()
    let context = stack.context
    let (_, note, _, _) = try savedNotebook(stack)
    context.performAndWait { note.title = "changed" }
    context.performAndWait {
      #expect(stack.undoManager.canUndo)
      context.rollback()
      #expect(!stack.undoManager.canUndo && !stack.undoManager.canRedo)
      #expect(note.title == "first")
    }
    context.performAndWait { note.title = "again" }
    context.performAndWait {
      context.undo()
      #expect(stack.undoManager.canRedo)
      context.reset()
      #expect(!stack.undoManager.canUndo && !stack.undoManager.canRedo)
    }
  }

  @Test("What a merge brings is not recorded: the receiving context has nothing to undo")
  func mergesAreNotRecorded() throws {
    let stack = try Stack()
    let context = stack.context
    let (_, note, _, tag) = try savedNotebook(stack)
    let writer = stack.stack.freshContext()
    let saved = Locked<SavedObjectIDs?>(nil)
    let observer = NotificationCenter.default.addObserver(
      forName: NSManagedObjectContext.didSaveObjectIDsNotification, object: writer, queue: nil
    ) { notification in
      let ids = SavedObjectIDs(notification)
      saved.withLock { $0 = ids }
    }
    defer { NotificationCenter.default.removeObserver(observer) }
    try writer.performAndWait {
      let copy = try #require(try writer.existingObject(with: note.objectID) as? Note)
      copy.title = "from elsewhere"
      writer.delete(try writer.existingObject(with: tag.objectID))
      try writer.save()
    }
    let changes = try #require(saved.withLock { $0 })
    context.performAndWait {
      context.mergeChanges(fromContextDidSave: changes)
      context.processPendingChanges()
      // The merged delete's rule let go of the tag here: not recorded either.
      #expect(note.title == "from elsewhere" && note.tags.isEmpty)
      #expect(!stack.undoManager.canUndo)
      context.undo()
      #expect(note.title == "from elsewhere")
    }
  }

  @Test("A child's save is recorded by the child's undo manager, not by its parent's")
  func childSaveIsNotRecordedInTheParent() throws {
    let stack = try Stack()
    let parent = stack.context
    let (_, note, _, _) = try savedNotebook(stack)
    let child = NSManagedObjectContext(.privateQueue)
    child.parent = parent
    let childUndo = UndoManager()
    try child.performAndWait {
      child.undoManager = childUndo
      let copy = try #require(try child.existingObject(with: note.objectID) as? Note)
      copy.title = "from the child"
      try child.save()
    }
    parent.performAndWait {
      #expect(note.title == "from the child")
      #expect(parent.hasChanges)
      #expect(!stack.undoManager.canUndo, "the parent's user did not make this change")
      parent.undo()
      #expect(note.title == "from the child")
    }
    try child.performAndWait {
      #expect(childUndo.canUndo)
      child.undo()
      let copy = try #require(child.registeredObject(for: note.objectID) as? Note)
      #expect(copy.title == "first")
    }
  }

  @Test("Changes made while registration is disabled are not recorded; a new change empties the redo stack")
  func disabledRegistrationAndRedoStack() throws {
    let stack = try Stack()
    let context = stack.context
    let (_, note, _, _) = try savedNotebook(stack)
    context.performAndWait {
      stack.undoManager.disableUndoRegistration()
      note.title = "quiet"
      stack.undoManager.enableUndoRegistration()
      #expect(!stack.undoManager.canUndo)
      note.body = "loud"
    }
    context.performAndWait {
      context.undo()
      #expect(note.body == nil && note.title == "quiet")
      #expect(stack.undoManager.canRedo)
      note.rating = 5
      context.processPendingChanges()
      #expect(!stack.undoManager.canRedo, "a new change makes the undone one impossible to redo")
    }
  }

  @Test("levelsOfUndo keeps only the newest groups")
  func levelsOfUndo() throws {
    let stack = try Stack()
    let context = stack.context
    let (_, note, _, _) = try savedNotebook(stack)
    stack.context.performAndWait { stack.undoManager.levelsOfUndo = 2 }
    for title in ["a", "b", "c"] { context.performAndWait { note.title = title } }
    context.performAndWait {
      context.undo()
      context.undo()
      #expect(note.title == "a")
      #expect(!stack.undoManager.canUndo)
      context.undo()
      #expect(note.title == "a")
    }
  }

  @Test("perform blocks on a private queue are events: changes from concurrent tasks undo one block at a time")
  func performBlocksOnARealQueue() async throws {
    let stack = try Stack()
    let context = stack.context
    let (_, note, _, _) = try savedNotebook(stack)
    let noteID = note.objectID
    await context.perform {
      guard let note = context.registeredObject(for: noteID) as? Note else { return }
      note.title = "one"
    }
    await context.perform {
      guard let note = context.registeredObject(for: noteID) as? Note else { return }
      note.title = "two"
      note.rating = 2
    }
    let afterOneUndo = await context.perform {
      context.undo()
      let note = context.registeredObject(for: noteID) as? Note
      return "\(note?.title ?? "-") \(note?.rating ?? -1)"
    }
    #expect(afterOneUndo == "one 0")
    let afterTwo = await context.perform {
      context.undo()
      return (context.registeredObject(for: noteID) as? Note)?.title
    }
    #expect(afterTwo == "first")
  }

  @Test("A main-queue context closes the event's group at the end of the main queue's turn")
  func mainQueueContext() async throws {
    let stack = try Stack(contextType: .mainQueue)
    let context = stack.context
    let (_, note, _, _) = try savedNotebook(stack)
    let noteID = note.objectID
    await withCheckedContinuation { (done: CheckedContinuation<Void, Never>) in
      DispatchQueue.main.async {
        (context.registeredObject(for: noteID) as? Note)?.title = "main"
        done.resume()
      }
    }
    let title = await withCheckedContinuation { (done: CheckedContinuation<String?, Never>) in
      DispatchQueue.main.async {
        // The turn that changed the title has ended: its group is closed, and undo reverses it.
        context.undo()
        done.resume(returning: (context.registeredObject(for: noteID) as? Note)?.title)
      }
    }
    #expect(title == "first")
  }

  @Test("Contexts on their own queues, each with its own undo manager, record and undo in parallel without mixing")
  func parallelContexts() async throws {
    let stack = try StoreStack(model: try Models.notes(), type: .inMemory)
    let ids = try stack.context.performAndWait {
      let notes = (0..<4).map { index in
        let note = Note(context: stack.context)
        note.title = "start \(index)"
        return note
      }
      try stack.context.save()
      return notes.map(\.objectID)
    }
    let finals = try await withThrowingTaskGroup(of: [String].self) { group in
      for id in ids {
        group.addTask {
          let context = stack.freshContext()
          await context.perform { context.undoManager = UndoManager() }
          for step in 0..<20 {
            await context.perform { (context.object(with: id) as? Note)?.rating = Int64(step + 1) }
          }
          return await context.perform {
            var seen: [String] = []
            for _ in 0..<20 {
              context.undo()
              seen.append("\((context.object(with: id) as? Note)?.rating ?? -1)")
            }
            seen.append(context.hasChanges ? "changed" : "clean")
            return seen
          }
        }
      }
      var all: [[String]] = []
      for try await seen in group { all.append(seen) }
      return all
    }
    #expect(finals.count == 4)
    for seen in finals {
      #expect(seen == (0..<20).reversed().map { "\($0)" } + ["clean"])
    }
  }

  @Test("undo() posts objects-did-change with the objects it changed")
  func undoPostsObjectsDidChange() throws {
    let stack = try Stack()
    let context = stack.context
    let (_, note, _, _) = try savedNotebook(stack)
    context.performAndWait { note.title = "changed" }
    let updated = Locked<Int>(0)
    let observer = NotificationCenter.default.addObserver(
      forName: NSManagedObjectContext.didChangeObjectsNotification, object: context, queue: nil
    ) { notification in
      let count = (notification.userInfo?[NSManagedObjectContext.NotificationKey.updatedObjects.rawValue] as? Set<NSManagedObject>)?.count
      updated.withLock { $0 += count ?? 0 }
    }
    defer { NotificationCenter.default.removeObserver(observer) }
    context.performAndWait { context.undo() }
    #expect(updated.withLock { $0 } == 1)
  }

  // MARK: - Misuse

  @Test("endUndoGrouping() with no group open stops the program, as Foundation raises")
  func endWithoutBegin() async throws {
    let stopped = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
      UndoManager().endUndoGrouping()
    }
    let said = String(decoding: stopped?.standardErrorContent ?? [], as: UTF8.self)
    #expect(said.contains("endUndoGrouping() was called with no undo group open"), "it printed: \(said)")
  }

  @Test("Registering with groupsByEvent off and no group open stops the program")
  func registerWithoutGroup() async throws {
    let stopped = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
      let manager = UndoManager()
      manager.groupsByEvent = false
      let target = NSObject()
      manager.registerUndo(withTarget: target) { _ in }
    }
    let said = String(decoding: stopped?.standardErrorContent ?? [], as: UTF8.self)
    #expect(said.contains("no undo group open and groupsByEvent off"), "it printed: \(said)")
  }

  @Test("undo() with nested groups open stops the program")
  func undoWithNestedGroups() async throws {
    let stopped = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
      let manager = UndoManager()
      manager.beginUndoGrouping()
      manager.beginUndoGrouping()
      manager.undo()
    }
    let said = String(decoding: stopped?.standardErrorContent ?? [], as: UTF8.self)
    #expect(said.contains("nested undo groups open"), "it printed: \(said)")
  }

  // MARK: - The undo manager alone

  @Test("UndoManager alone: nested groups undo as one, targets are held weakly, removeAllActions(withTarget:)")
  func undoManagerAlone() {
    final class Box {
      var value = 0
    }
    let manager = UndoManager()
    let box = Box()
    func set(_ value: Int) {
      let old = box.value
      box.value = value
      manager.registerUndo(withTarget: box) { box in
        let current = box.value
        box.value = old
        manager.registerUndo(withTarget: box) { $0.value = current }
      }
    }
    manager.beginUndoGrouping()
    set(1)
    manager.beginUndoGrouping()
    set(2)
    manager.endUndoGrouping()
    manager.endUndoGrouping()
    #expect(manager.canUndo)
    manager.undo()
    #expect(box.value == 0)
    manager.redo()
    #expect(box.value == 2)
    // An operation whose target is gone is skipped.
    var gone: Box? = Box()
    if let target = gone {
      manager.registerUndo(withTarget: target) { _ in box.value = -1 }
    }
    gone = nil
    manager.undo()
    #expect(box.value == 2)
    manager.removeAllActions(withTarget: box)
    #expect(!manager.canUndo && !manager.canRedo)
  }
}
