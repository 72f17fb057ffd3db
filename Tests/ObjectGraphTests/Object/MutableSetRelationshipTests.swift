import EngineTestSupport
import Foundation
import ObjectGraph
import TestSupport
import Testing

@Suite("mutableSetValue(forKey:): an unordered to-many changed in place", .temporaryFolders)
struct MutableSetRelationshipTests {
  /// A note and three tags, saved.
  private func setUp(_ stack: StoreStack) throws -> (Note, [String: Tag]) {
    try stack.context.performAndWait {
      let note = Note(context: stack.context)
      note.title = "Groceries"
      var tags: [String: Tag] = [:]
      for name in ["home", "urgent", "someday"] {
        let tag = Tag(context: stack.context)
        tag.name = name
        tags[name] = tag
      }
      try stack.context.save()
      return (note, tags)
    }
  }

  private func names(_ tags: some Sequence<NSManagedObject>) -> [String] {
    tags.compactMap { ($0 as? Tag)?.name }.sorted()
  }

  @Test("add and remove change the relationship and its inverse, and a save writes them")
  func addAndRemove() throws {
    let stack = try StoreStack()
    let (note, tags) = try setUp(stack)
    try stack.context.performAndWait {
      let set = note.mutableSetValue(forKey: "tags")
      set.add(try #require(tags["home"]))
      set.add(try #require(tags["urgent"]))
      set.add(try #require(tags["home"]))  // a member already: nothing changes
      #expect(set.count == 2 && names(set) == ["home", "urgent"])
      #expect(names(note.tags) == ["home", "urgent"], "the object's own property shows the change")
      #expect(try #require(tags["urgent"]).notes.contains(note), "the inverse follows")
      #expect(stack.context.hasChanges)
      try stack.context.save()
      set.remove(try #require(tags["home"]))
      #expect(try #require(tags["home"]).notes.isEmpty)
      try stack.context.save()
    }
    // A fresh context reads what was saved.
    let reader = NSManagedObjectContext(concurrencyType: .privateQueueConcurrencyType)
    reader.persistentStoreCoordinator = stack.coordinator
    try reader.performAndWait {
      let request = NSFetchRequest<Note>(entityName: "Note")
      let stored = try #require(try reader.fetch(request).first)
      #expect(names(stored.tags) == ["urgent"])
    }
  }

  @Test("The view is live: a change made with setValue(_:forKey:) shows through it, and the set operations work")
  func liveViewAndSetOperations() throws {
    let stack = try StoreStack()
    let (note, tags) = try setUp(stack)
    try stack.context.performAndWait {
      let home = try #require(tags["home"])
      let urgent = try #require(tags["urgent"])
      let someday = try #require(tags["someday"])
      let set = note.mutableSetValue(forKey: "tags")
      note.setValue(Set([home]), forKey: "tags")
      #expect(set.contains(home) && !set.contains(urgent) && set.member(home) === home && set.member(urgent) == nil)
      set.union([urgent, someday])
      #expect(names(set) == ["home", "someday", "urgent"])
      set.minus([someday])
      #expect(names(set) == ["home", "urgent"] && someday.notes.isEmpty)
      set.intersect([urgent, someday])
      #expect(names(set) == ["urgent"] && home.notes.isEmpty)
      set.setSet([home, someday])
      #expect(names(set.set) == ["home", "someday"])
      set.removeAllObjects()
      #expect(set.count == 0 && note.tags.isEmpty && home.notes.isEmpty && someday.notes.isEmpty)
    }
  }

  @Test("A change through the view is undone by the context's undo manager")
  func undoable() throws {
    let stack = try StoreStack()
    let (note, tags) = try setUp(stack)
    stack.context.performAndWait { stack.context.undoManager = UndoManager() }
    try stack.context.performAndWait {
      note.mutableSetValue(forKey: "tags").add(try #require(tags["home"]))
    }
    stack.context.performAndWait {
      #expect(names(note.tags) == ["home"])
      stack.context.undo()
      #expect(note.tags.isEmpty && (tags["home"]?.notes.isEmpty ?? false))
    }
  }

  @Test("Asking for a to-one, an ordered or an unknown key stops the program, naming it")
  func misuseStops() async throws {
    let stopped = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
      let stack = try StoreStack(type: .inMemory)
      stack.context.performAndWait {
        let note = Note(context: stack.context)
        _ = note.mutableSetValue(forKey: "notebook")
      }
    }
    let said = String(decoding: stopped?.standardErrorContent ?? [], as: UTF8.self)
    #expect(said.contains("Note.notebook is not an unordered to-many relationship"), "it printed: \(said)")
  }
}
