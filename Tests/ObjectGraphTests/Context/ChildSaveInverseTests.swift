import EngineTestSupport
import Foundation
import TestSupport
import Testing

@testable import ObjectGraph

@Suite("A child's save keeps the parent's inverse relationships", .temporaryFolders)
struct ChildSaveInverseTests {
  @Test("Notes a child files in a notebook are in that notebook's notes in the parent, fetched again")
  func inverseAfterChildSave() throws {
    let stack = try StoreStack()
    let writer = stack.context
    try writer.performAndWait {
      let inbox = Notebook(context: writer)
      inbox.name = "Inbox"
      let notebook = Notebook(context: writer)
      notebook.name = "Recipes"
      let old = Note(context: writer)
      old.title = "Old note"
      old.notebook = inbox
      try writer.save()
    }
    let main = NSManagedObjectContext(concurrencyType: .mainQueueConcurrencyType)
    main.parent = writer
    let held = try main.performAndWait {
      let request = NSFetchRequest<Notebook>(entityName: "Notebook")
      request.predicate = NSPredicate(format: "name == %@", "Recipes")
      return try #require(try main.fetch(request).first)
    }
    let notebookID = held.objectID
    let child = NSManagedObjectContext(concurrencyType: .privateQueueConcurrencyType)
    child.parent = main
    try child.performAndWait {
      let target = try #require(try child.existingObject(with: notebookID) as? Notebook)
      for title in ["Pancakes", "Lemonade"] {
        let note = Note(context: child)
        note.title = title
        note.notebook = target
      }
      try child.save()
    }
    let titles = try main.performAndWait {
      let notebooks = try main.fetch(NSFetchRequest<Notebook>(entityName: "Notebook"))
      return notebooks.filter { $0.name == "Recipes" }.flatMap { $0.notes.compactMap(\.title) }.sorted()
    }
    #expect(titles == ["Lemonade", "Pancakes"])
    #expect(main.performAndWait { held.notes.count } == 2)
  }
}

extension ChildSaveInverseTests {
  @Test("A refetch in the parent keeps what a child's save changed in an object it had fetched as a fault")
  func refetchKeepsChildChangesInAFault() throws {
    let stack = try StoreStack()
    let writer = stack.context
    try writer.performAndWait {
      let notebook = Notebook(context: writer)
      notebook.name = "Recipes"
      try writer.save()
    }
    let main = NSManagedObjectContext(concurrencyType: .privateQueueConcurrencyType)
    main.parent = writer
    // Fetched as a fault with its values cached, and never touched.
    let held = try main.performAndWait { try #require(try main.fetch(NSFetchRequest<Notebook>(entityName: "Notebook")).first) }
    let child = NSManagedObjectContext(concurrencyType: .privateQueueConcurrencyType)
    child.parent = main
    try child.performAndWait {
      let target = try #require(try child.existingObject(with: held.objectID) as? Notebook)
      let note = Note(context: child)
      note.title = "Pancakes"
      note.notebook = target
      target.name = "Breakfast"
      try child.save()
    }
    let (name, titles) = try main.performAndWait {
      _ = try main.fetch(NSFetchRequest<Notebook>(entityName: "Notebook"))
      return (held.name, held.notes.compactMap(\.title))
    }
    #expect(name == "Breakfast")
    #expect(titles == ["Pancakes"])
  }
}
