import EngineTestSupport
import Foundation
import TestSupport
import Testing

@testable import ObjectGraph

/// A child's save into its parent, object by object: the parent makes its own objects under the child's
/// IDs with the child's values, and the two contexts' objects stay independent afterwards.
@Suite("Child save into its parent", .temporaryFolders)
struct ChildSaveTests {
  private func child(of parent: NSManagedObjectContext) -> NSManagedObjectContext {
    let context = NSManagedObjectContext(concurrencyType: .privateQueueConcurrencyType)
    context.parent = parent
    return context
  }

  @Test("Objects with and without relationships keep their IDs, values and relationships in the parent")
  func pairingAndValues() throws {
    let stack = try StoreStack()
    let child = child(of: stack.context)
    // 40 plain notes, then a notebook, two tags and 10 notes related to them, in one save.
    let ids = try child.performAndWait {
      var plain: [NSManagedObjectID] = []
      for number in 0..<40 {
        let note = Note(context: child)
        note.title = "plain \(number)"
        note.rating = Int64(number)
        plain.append(note.objectID)
      }
      let notebook = Notebook(context: child)
      notebook.name = "book"
      let tags = (0..<2).map { number in
        let tag = Tag(context: child)
        tag.name = "tag \(number)"
        return tag
      }
      var related: [NSManagedObjectID] = []
      var relatedNotes: [Note] = []
      for number in 0..<10 {
        let note = Note(context: child)
        note.title = "related \(number)"
        note.notebook = notebook
        note.tags = number.isMultiple(of: 2) ? Set(tags) : [tags[0]]
        related.append(note.objectID)
        relatedNotes.append(note)
      }
      try child.save()
      // The child's objects keep their temporary IDs and are saved (no changes left).
      #expect(plain.allSatisfy(\.isTemporaryID) && related.allSatisfy(\.isTemporaryID))
      #expect(!child.hasChanges)
      return (
        plain: plain, related: related, notebook: notebook.objectID, tags: tags.map(\.objectID), relatedNotes: relatedNotes
      )
    }
    try stack.context.performAndWait {
      #expect(stack.context.insertedObjects.count == 53)
      for (number, id) in ids.plain.enumerated() {
        let note = try #require(try stack.context.existingObject(with: id) as? Note)
        #expect(note.objectID == id && note.isInserted)
        #expect(note.title == "plain \(number)" && note.rating == Int64(number))
        #expect(note.notebook == nil && note.tags.isEmpty)
      }
      let notebook = try #require(try stack.context.existingObject(with: ids.notebook) as? Notebook)
      #expect(notebook.name == "book" && notebook.notes.count == 10)
      for (number, id) in ids.related.enumerated() {
        let note = try #require(try stack.context.existingObject(with: id) as? Note)
        #expect(note.title == "related \(number)")
        #expect(note.notebook === notebook)
        #expect(Set(note.tags.map(\.objectID)) == (number.isMultiple(of: 2) ? Set(ids.tags) : [ids.tags[0]]))
      }
      try stack.context.save()
    }
    // The parent's save wrote the rows with their relationships, under new permanent IDs.
    let (_, reader) = try stack.reopened()
    try reader.performAndWait {
      let notes = try reader.fetch(NSFetchRequest<Note>(entityName: "Note"))
      #expect(notes.count == 50)
      let related = notes.filter { $0.title?.hasPrefix("related") ?? false }
      #expect(related.count == 10 && related.allSatisfy { $0.notebook?.name == "book" })
      let tagLinks: Int = related.reduce(0) { (sum: Int, note: Note) -> Int in sum + note.tags.count }
      #expect(tagLinks == 15)
    }
    // The child still names its objects by their temporary IDs, and can save changes to them.
    try child.performAndWait {
      let note = ids.relatedNotes[3]
      #expect(note.objectID == ids.related[3] && note.objectID.isTemporaryID)
      note.title = "related 3, renamed"
      try child.save()
    }
    try stack.context.performAndWait { try stack.context.save() }
    #expect(try stack.stored("Note") { $0.value(forKey: "title") as? String }.contains("related 3, renamed"))
  }

  @Test("After a child's save, a change in the child or in the parent stays in that context")
  func objectsStayIndependent() throws {
    let stack = try StoreStack()
    let child = child(of: stack.context)
    let (childNote, id) = try child.performAndWait {
      let note = Note(context: child)
      note.title = "saved"
      note.body = "body"
      try child.save()
      note.title = "changed in the child"
      return (note, note.objectID)
    }
    let parentNote = try stack.context.performAndWait {
      let note = try #require(try stack.context.existingObject(with: id) as? Note)
      #expect(note.title == "saved" && note.body == "body")
      note.body = "changed in the parent"
      return note
    }
    #expect(child.performAndWait { (childNote.title, childNote.body) } == ("changed in the child", "body"))
    #expect(stack.context.performAndWait { (parentNote.title, parentNote.body) } == ("saved", "changed in the parent"))
    // The child's pending change is an update of the saved values.
    #expect(child.performAndWait { child.updatedObjects.count == 1 && childNote.changedValues().keys.sorted() == ["title"] })
  }

  @Test("Many small child saves, with the parent holding its own inserts and IDs obtained in the child")
  func manySmallSaves() throws {
    let stack = try StoreStack()
    let own = stack.context.performAndWait {
      let note = Note(context: stack.context)
      note.title = "the parent's own"
      return note
    }
    let child = child(of: stack.context)
    var ids: [NSManagedObjectID] = []
    try child.performAndWait {
      for round in 0..<30 {
        let notes = (0..<3).map { number in
          let note = Note(context: child)
          note.title = "round \(round) note \(number)"
          return note
        }
        // Every third round asks for permanent IDs first: the parent gets those, not temporary ones.
        if round.isMultiple(of: 3) { try child.obtainPermanentIDs(for: notes) }
        try child.save()
        ids += notes.map(\.objectID)
      }
    }
    #expect(ids.filter { !$0.isTemporaryID }.count == 30)
    try stack.context.performAndWait {
      #expect(stack.context.insertedObjects.count == 91)
      #expect(stack.context.insertedObjects.contains(own))
      for id in ids {
        let note = try #require(try stack.context.existingObject(with: id) as? Note)
        #expect(note.objectID == id && note.isInserted)
      }
      try stack.context.save()
    }
    try stack.expectStored("Note", count: 91, table: "ZNOTE")
  }
}
