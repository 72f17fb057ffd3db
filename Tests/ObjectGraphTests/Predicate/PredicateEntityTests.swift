import EngineTestSupport
import Foundation
import TestSupport
import Testing

@testable import ObjectGraph

/// `entity` in predicates, as ported code writes it (`entity == %@` with an ``NSEntityDescription``,
/// `entity.name == "Note"`): answered by SQLite through `Z_ENT` and by the in-memory evaluator, which
/// must agree.
@Suite("The entity key in predicates", .temporaryFolders)
struct PredicateEntityTests {
  /// Three notes (two in a notebook), two image attachments and a file attachment on the first note.
  private func populated(_ type: NSPersistentStore.StoreType) throws -> StoreStack {
    let stack = try StoreStack(type: type)
    try stack.context.performAndWait {
      let work = Notebook(context: stack.context)
      work.name = "Work"
      var notes: [Note] = []
      for (index, title) in ["a", "b", "c"].enumerated() {
        let note = Note(context: stack.context)
        note.title = title
        note.notebook = index < 2 ? work : nil
        notes.append(note)
      }
      for (name, size) in [("ImageAttachment", 1), ("ImageAttachment", 2), ("FileAttachment", 3)] {
        let attachment = NSManagedObject(entity: stack.entity(name), insertInto: stack.context)
        attachment.setValue(Int32(size), forKey: "size")
        attachment.setValue(notes[0], forKey: "note")
      }
      try stack.context.save()
    }
    return stack
  }

  /// The sorted `key` values of the `entityName` objects the predicate matches, asked of SQLite (a context
  /// with nothing pending) and of the evaluator; expects both to agree.
  private func matches(
    _ stack: StoreStack, _ entityName: String, _ key: String, _ format: String, _ arguments: Any?...,
    sourceLocation: SourceLocation = #_sourceLocation
  ) throws -> [String] {
    let predicate = NSPredicate(format: format, argumentArray: arguments.map { $0 as Any })
    let (_, context) = try stack.reader()
    return try context.performAndWait {
      let request = NSFetchRequest<NSManagedObject>(entityName: entityName)
      request.predicate = predicate
      let sql = try context.fetch(request).map { "\($0.value(forKey: key) ?? "nil")" }.sorted()
      let all = try context.fetch(NSFetchRequest<NSManagedObject>(entityName: entityName))
      let memory = all.filter { predicate.evaluate(with: $0) }.map { "\($0.value(forKey: key) ?? "nil")" }.sorted()
      #expect(sql == memory, "SQL and memory disagree for \(format)", sourceLocation: sourceLocation)
      return sql
    }
  }

  @Test("entity == %@ matches an entity's own instances, not its subentities'; IN lists several", arguments: bothStoreTypes)
  func entityEquals(type: NSPersistentStore.StoreType) throws {
    let stack = try populated(type)
    let image = stack.entity("ImageAttachment")
    let file = stack.entity("FileAttachment")
    let attachment = stack.entity("Attachment")
    #expect(try matches(stack, "Note", "title", "entity == %@", stack.entity("Note")) == ["a", "b", "c"])
    #expect(try matches(stack, "Attachment", "size", "entity == %@", image) == ["1", "2"])
    #expect(try matches(stack, "Attachment", "size", "entity != %@", image) == ["3"])
    #expect(try matches(stack, "Attachment", "size", "%@ == entity", file) == ["3"])
    // An instance of a subentity is not `entity == <its parent>`: the descriptions differ.
    #expect(try matches(stack, "Attachment", "size", "entity == %@", attachment) == [])
    #expect(try matches(stack, "Attachment", "size", "entity IN %@", [image, file]) == ["1", "2", "3"])
    #expect(try matches(stack, "Attachment", "size", "entity IN %@", [attachment]) == [])
    #expect(try matches(stack, "Attachment", "size", "NOT entity IN %@", [file]) == ["1", "2"])
    // An entity of another model, by name: the same entity.
    #expect(try matches(stack, "Attachment", "size", "entity == %@", try Models.notes().entitiesByName["FileAttachment"]) == ["3"])
  }

  @Test("entity.name is the entity's name, and both keys work through to-ones and to-manys", arguments: bothStoreTypes)
  func entityNameAndPaths(type: NSPersistentStore.StoreType) throws {
    let stack = try populated(type)
    #expect(try matches(stack, "Note", "title", "entity.name == 'Note'") == ["a", "b", "c"])
    #expect(try matches(stack, "Attachment", "size", "entity.name == 'FileAttachment'") == ["3"])
    #expect(try matches(stack, "Attachment", "size", "entity.name BEGINSWITH[c] 'image'") == ["1", "2"])
    #expect(try matches(stack, "Attachment", "size", "SELF.entity.name != 'ImageAttachment'") == ["3"])
    // Through a to-one (nil for a note without a notebook) and a to-many.
    #expect(try matches(stack, "Note", "title", "notebook.entity == %@", stack.entity("Notebook")) == ["a", "b"])
    #expect(try matches(stack, "Note", "title", "notebook.entity == nil") == ["c"])
    #expect(try matches(stack, "Note", "title", "notebook.entity.name == 'Notebook'") == ["a", "b"])
    #expect(try matches(stack, "Note", "title", "ANY attachments.entity == %@", stack.entity("FileAttachment")) == ["a"])
    #expect(
      try matches(stack, "Note", "title", "SUBQUERY(attachments, $x, $x.entity.name == 'ImageAttachment').@count == 2") == ["a"])
    #expect(try matches(stack, "Attachment", "size", "note.entity == %@", stack.entity("Note")) == ["1", "2", "3"])
  }

  @Test("An unsaved object matches on its entity in a fetch with pending changes")
  func pendingChanges() throws {
    let stack = try populated(.sqlite)
    try stack.context.performAndWait { () throws in
      let note = Note(context: stack.context)
      note.title = "new"
      let request = NSFetchRequest<Note>(entityName: "Note")
      request.predicate = NSPredicate(format: "entity == %@ AND title == 'new'", stack.entity("Note"))
      #expect(try stack.context.fetch(request).map(\.title) == ["new"])
      #expect(try stack.context.count(for: request) == 1)
    }
  }

  @Test("An entity compared with anything but an entity, or with another operator, is refused")
  func refusals() throws {
    let stack = try populated(.sqlite)
    stack.context.performAndWait {
      let request = NSFetchRequest<Note>(entityName: "Note")
      request.predicate = NSPredicate(format: "entity == 'Note'")
      _ = expectCode(.invalidValue) { _ = try stack.context.fetch(request) }
      request.predicate = NSPredicate(format: "entity > %@", stack.entity("Note"))
      _ = expectCode(.predicateSyntax) { _ = try stack.context.fetch(request) }
      request.predicate = NSPredicate(format: "entity.superentity == nil")
      _ = expectCode(.unknownKey) { _ = try stack.context.fetch(request) }
      request.predicate = nil
      request.sortDescriptors = [NSSortDescriptor(key: "entity", ascending: true)]
      _ = expectCode(.unknownKey) { _ = try stack.context.fetch(request) }
    }
  }
}
