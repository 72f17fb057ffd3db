import Foundation
import NotesModel
import ObjectGraph
import Stage4
import TestSupport
import Testing

/// The consumers are handed what they use; each test gives them a stack of its own, in memory.
@Suite("Stage 4: consumers that are handed the stack")
@MainActor
struct InjectionTests {
  @Test("The list counts what the main context holds, and follows inserts and deletes")
  func listFollowsChanges() async throws {
    let controller = try await makeStack()
    let list = try NoteList(context: controller.mainContext)
    let log = CountLog(list)
    let first = newNote("One", in: controller.mainContext)
    newNote("Two", in: controller.mainContext)
    try await drainMainQueue()
    #expect(list.count == 2)
    controller.mainContext.delete(first)
    try await drainMainQueue()
    #expect(list.count == 1)
    #expect(log.counts == [2, 1])
  }

  @Test("The list can be given any main-queue context: here one over an in-memory store, without a controller")
  func listWithoutController() async throws {
    let context = try contextOfItsOwn(.mainQueue, storeAt: nil)
    newNote("Saved", in: context)
    try context.save()
    let list = try NoteList(context: context)
    #expect(list.count == 1)
    #expect(try list.newestTitles(limit: 5) == ["Saved"])
  }

  @Test("The editor renames a note found by its ID, and saves it up")
  func editorRenames() async throws {
    let controller = try await makeStack()
    let outcome = try await NoteImporter(controller: controller).importNotes(drafts(1))
    let id = try #require(outcome.lastNoteID)
    try NoteEditor(context: controller.mainContext).rename(id, to: "Renamed")
    #expect(controller.mainContext.hasChanges == false)
    try await controller.writeToDisk()
    let note = try #require(try controller.mainContext.existingObject(with: id) as? Note)
    #expect(note.title == "Renamed")
  }

  @Test("The editor is told when the note is gone, and changes nothing")
  func editorNoteGone() async throws {
    let controller = try await makeStack()
    let outcome = try await NoteImporter(controller: controller).importNotes(drafts(1))
    let id = try #require(outcome.lastNoteID)
    let worker = controller.newWorker()
    try await worker.perform {
      worker.delete(try worker.existingObject(with: id))
      try worker.save()
    }
    try await drainMainQueue()
    let error = try #require(throws: NSError.self) {
      try NoteEditor(context: controller.mainContext).rename(id, to: "Too late")
    }
    #expect(error.code == 900_004)  // no object for the ID: ObjectGraph's error where Core Data raises an exception
    #expect(controller.mainContext.hasChanges == false)
  }

  @Test("An ID from another stack is refused with a clear error, not a crash")
  func editorForeignID() async throws {
    let controller = try await makeStack()
    let other = try await makeStack()
    let outcome = try await NoteImporter(controller: other).importNotes(drafts(1))
    let foreign = try #require(outcome.lastNoteID)
    let error = try #require(throws: NSError.self) {
      try NoteEditor(context: controller.mainContext).rename(foreign, to: "Not mine")
    }
    #expect(error.code == 900_004)
    #expect(error.localizedDescription.contains("comes from another stack"), "\(error.localizedDescription)")
    #expect(controller.mainContext.hasChanges == false)
  }
}
