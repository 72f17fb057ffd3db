import EngineTestSupport
import Foundation
import Synchronization
import TestSupport
import Testing

@testable import ObjectGraph

/// Refreshing objects (`refresh(_:mergeChanges:)`, `refreshAllObjects()`) and how old the values a fault
/// uses may be (`stalenessInterval`), against rows another coordinator changes on the same file.
@Suite("Refreshing objects", .temporaryFolders)
struct RefreshTests {
  /// Whether the object holds value storage of its own (a released fault shares its layout's initial values).
  static func holdsValues(_ object: NSManagedObject) -> Bool {
    let mine = object.values.withUnsafeBufferPointer { $0.baseAddress }
    let shared = object.layout.initialValues.withUnsafeBufferPointer { $0.baseAddress }
    return mine != shared
  }

  @Test("refresh(_:mergeChanges: false) releases the values; touching the object reads the current row")
  func refreshFalseReleasesValues() throws {
    let (stack, other, keep) = try RefetchTests.twoStacks()
    let context = stack.context
    try context.performAndWait {
      let note = try #require(try context.fetch(NSFetchRequest<Note>()).first)
      note.body = "unsaved"
      #expect(Self.holdsValues(note))
      context.refresh(note, mergeChanges: false)
      #expect(note.isFault)
      #expect(!note.hasChanges)
      #expect(!Self.holdsValues(note))
      #expect(note.snapshot == nil)
      try RefetchTests.retitle(other, "new")
      #expect(note.title == "new")
      #expect(note.body == "body")
      #expect(Self.holdsValues(note))
      note.body = "edited"
      try context.save()
    }
    withExtendedLifetime(keep) {}
  }

  @Test("refresh(_:mergeChanges: true) keeps unsaved changes over the current row; an unchanged object becomes a fault")
  func refreshTrueKeepsChanges() throws {
    let (stack, other, keep) = try RefetchTests.twoStacks()
    let context = stack.context
    try context.performAndWait {
      let note = try #require(try context.fetch(NSFetchRequest<Note>()).first)
      note.body = "edited"
      try RefetchTests.retitle(other, "new")
      context.refresh(note, mergeChanges: true)
      #expect(note.title == "new")
      #expect(note.body == "edited")
      #expect(note.isUpdated)
      try context.save()
      context.refresh(note, mergeChanges: true)
      #expect(note.isFault)
      #expect(!Self.holdsValues(note))
      #expect(note.title == "new")
    }
    #expect(try RefetchTests.titlesAndBodies(stack) == [["new", "edited"]])
    withExtendedLifetime(keep) {}
  }

  /// A notebook "N" holding the notes "one" and "two", saved, and a second coordinator on the same file.
  static func notebookStacks() throws -> (stack: StoreStack, other: NSManagedObjectContext, keep: NSPersistentStoreCoordinator) {
    let stack = try StoreStack()
    try stack.context.performAndWait {
      let notebook = Notebook(context: stack.context)
      notebook.name = "N"
      for title in ["one", "two"] {
        let note = Note(context: stack.context)
        note.title = title
        note.notebook = notebook
      }
      try stack.context.save()
      stack.context.reset()
    }
    let (coordinator, other) = try stack.reopened()
    return (stack, other, coordinator)
  }

  /// The titles of the notes in notebook "N", as a fresh context reads them.
  static func notebookTitles(_ stack: StoreStack) throws -> [String] {
    try stack.stored("Note") { note -> String? in
      (note.value(forKey: "notebook") as? NSManagedObject)?.value(forKey: "name") as? String == "N"
        ? note.value(forKey: "title") as? String : nil
    }.compactMap { $0 }.sorted()
  }

  /// The other context adds a note titled `title` to notebook "N" and saves.
  static func addNote(_ title: String, in other: NSManagedObjectContext) throws {
    try other.performAndWait {
      let notebook = try #require(try other.fetch(NSFetchRequest<Notebook>()).first)
      let note = Note(context: other)
      note.title = title
      note.notebook = notebook
      try other.save()
    }
  }

  @Test("refresh(_:mergeChanges: true) on a changed to-many: the store's members, with this context's additions and removals on top")
  func refreshMergesToMany() throws {
    let (stack, other, keep) = try Self.notebookStacks()
    let context = stack.context
    try context.performAndWait {
      let notebook = try #require(try context.fetch(NSFetchRequest<Notebook>()).first)
      let one = try #require(notebook.notes.first { $0.title == "one" })
      let three = Note(context: context)
      three.title = "three"
      notebook.notes.remove(one)
      notebook.notes.insert(three)
      try Self.addNote("four", in: other)
      context.refresh(notebook, mergeChanges: true)
      #expect(notebook.notes.compactMap(\.title).sorted() == ["four", "three", "two"])
      #expect(notebook.isUpdated)
      try context.save()
    }
    #expect(try Self.notebookTitles(stack) == ["four", "three", "two"])
    withExtendedLifetime(keep) {}
  }

  @Test("Merging another context's save into a changed to-many keeps the member that context saved, and this context's edits")
  func mergeKeepsToManyMembers() throws {
    let (stack, _, keep) = try Self.notebookStacks()
    let context = stack.context
    let sibling = stack.freshContext()
    try context.performAndWait {
      let notebook = try #require(try context.fetch(NSFetchRequest<Notebook>()).first)
      let three = Note(context: context)
      three.title = "three"
      notebook.notes.insert(three)
      let saved = try sibling.performAndWait {
        let theirs = try #require(try sibling.fetch(NSFetchRequest<Notebook>()).first)
        let four = Note(context: sibling)
        four.title = "four"
        four.notebook = theirs
        let changes = Mutex<SavedObjectIDs?>(nil)
        let observer = NotificationCenter.default.addObserver(
          forName: NSManagedObjectContext.didSaveObjectsNotification, object: sibling, queue: nil
        ) { notification in changes.withLock { $0 = SavedObjectIDs(notification) } }
        defer { NotificationCenter.default.removeObserver(observer) }
        try sibling.save()
        return try #require(changes.withLock { $0 })
      }
      context.mergeChanges(fromContextDidSave: saved)
      #expect(notebook.notes.compactMap(\.title).sorted() == ["four", "one", "three", "two"])
      try context.save()
    }
    #expect(try Self.notebookTitles(stack) == ["four", "one", "three", "two"])
    withExtendedLifetime(keep) {}
  }

  @Test("refreshAllObjects() keeps unsaved changes, faults the unchanged objects, leaves inserted and deleted ones")
  func refreshAllObjects() throws {
    let stack = try StoreStack()
    let context = stack.context
    let refreshed = NotificationLog(NSManagedObjectContext.didChangeObjectsNotification, object: context) { note in
      (note.userInfo?[NSManagedObjectContext.NotificationKey.refreshedObjects.rawValue] as? Set<NSManagedObject>)?.count
    }
    try context.performAndWait {
      for title in ["a", "b", "c"] { Note(context: context).title = title }
      try context.save()
      let notes = try context.fetch(NSFetchRequest<Note>())
      for note in notes { _ = note.title }
      let (changed, unchanged, deleted) = (notes[0], notes[1], notes[2])
      changed.body = "edited"
      context.delete(deleted)
      let inserted = Note(context: context)
      inserted.title = "d"
      let (coordinator, other) = try stack.reopened()
      try other.performAndWait {
        let rows = try other.fetch(NSFetchRequest<Note>())
        for row in rows { row.setValue("\(row.value(forKey: "title") as? String ?? "")!", forKey: "title") }
        try other.save()
      }
      refreshed.removeAll()
      context.refreshAllObjects()
      #expect(changed.title == "a!")
      #expect(changed.body == "edited")
      #expect(changed.isUpdated)
      #expect(unchanged.isFault)
      #expect(!Self.holdsValues(unchanged))
      #expect(unchanged.title == "b!")
      #expect(deleted.isDeleted)
      #expect(inserted.isInserted)
      #expect(inserted.title == "d")
      withExtendedLifetime(coordinator) {}
    }
    #expect(refreshed.entries.first == 2)
  }

  @Test("stalenessInterval: by default a fault uses the values fetched with it, however old; 0 reads the row again")
  func stalenessInterval() throws {
    let (stack, other, keep) = try RefetchTests.twoStacks()
    let context = stack.context
    #expect(context.stalenessInterval == -1)
    try context.performAndWait {
      let cached = try #require(try context.fetch(NSFetchRequest<Note>()).first)
      try RefetchTests.retitle(other, "new")
      #expect(cached.title == "old")
    }
    context.reset()
    context.stalenessInterval = 300
    try context.performAndWait {
      let cached = try #require(try context.fetch(NSFetchRequest<Note>()).first)
      try RefetchTests.retitle(other, "newer")
      #expect(cached.title == "new")
    }
    context.reset()
    context.stalenessInterval = 0
    try context.performAndWait {
      let fresh = try #require(try context.fetch(NSFetchRequest<Note>()).first)
      try RefetchTests.retitle(other, "newest")
      #expect(fresh.title == "newest")
      // An object in use is not affected: only firing a fault looks at the interval.
      try RefetchTests.retitle(other, "latest")
      #expect(fresh.title == "newest")
    }
    context.stalenessInterval = -1
    withExtendedLifetime(keep) {}
  }

  @Test("stalenessInterval 0: a prefetched row waiting in the row cache is read again when its fault fires")
  func stalenessIntervalAndPrefetchedRows() throws {
    let stack = try StoreStack()
    let context = stack.context
    try context.performAndWait {
      let notebook = Notebook(context: context)
      notebook.name = "old"
      Note(context: context).notebook = notebook
      notebook.notes.first?.title = "n"
      try context.save()
      context.reset()
    }
    let (coordinator, other) = try stack.reopened()
    context.stalenessInterval = 0
    try context.performAndWait {
      let request = NSFetchRequest<Note>()
      request.relationshipKeyPathsForPrefetching = ["notebook"]
      let note = try #require(try context.fetch(request).first)
      #expect(context.rowCacheCount == 1)
      try other.performAndWait {
        let notebook = try #require(try other.fetch(NSFetchRequest<Notebook>()).first)
        notebook.name = "new"
        try other.save()
      }
      #expect(note.notebook?.name == "new")
    }
    context.stalenessInterval = -1
    withExtendedLifetime(coordinator) {}
  }
}
