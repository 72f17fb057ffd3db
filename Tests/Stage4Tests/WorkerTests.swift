import Dispatch
import Foundation
import NotesModel
import ObjectGraph
import Stage4
import TestSupport
import Testing

@Suite("Stage 4: workers and merging", .temporaryFolders)
@MainActor
struct WorkerTests {
  @Test("A worker's save reaches the main context on the main queue, then the disk", arguments: WorkerShape.allCases)
  func workerSaveReachesMainAndDisk(shape: WorkerShape) async throws {
    let folder = try TemporaryFolder()
    let controller = try await makeStack(in: folder)
    let list = try NoteList(context: controller.mainContext)
    let log = CountLog(list)

    let outcome = try await NoteImporter(controller: controller, shape: shape, batchSize: 10).importNotes(drafts(35))
    try await drainMainQueue()

    #expect(outcome.notes == 35)
    #expect(outcome.batches == 4)
    #expect(list.count == 35)
    #expect(log.counts.last == 35)
    #expect(log.counts.count >= 4, "the list changed as each batch landed, not once at the end")
    #expect(log.allOnMainQueue)
    #expect(try titlesOnDisk(in: folder).count == 35)
    #expect(try list.newestTitles(limit: 2) == ["Note 35", "Note 34"])
  }

  @Test("The main context sees a worker's notes before they are on disk only through the stack")
  func mainContextSeesMergedNotes() async throws {
    let controller = try await makeStack()
    let worker = controller.newWorker()
    let id = try await worker.perform {
      let note = newNote("From the worker", in: worker)
      try worker.obtainPermanentIDs(for: [note])
      try worker.save()
      return note.objectID
    }
    try await drainMainQueue()
    let note = try #require(try controller.mainContext.existingObject(with: id) as? Note)
    #expect(note.title == "From the worker")
    #expect(controller.mainContext.hasChanges == false, "a merge is not a change of the main context's own")
  }

  @Test("Only the controller's own workers' saves are merged: another stack's and a stranger's are not")
  func onlyOwnWorkersAreMerged() async throws {
    let controller = try await makeStack()
    let other = try await makeStack()
    let list = try NoteList(context: controller.mainContext)

    _ = try await NoteImporter(controller: other, batchSize: 5).importNotes(drafts(5))
    // A context of our own coordinator's family that the controller did not make: a child of the main
    // context is the only way in from outside, and its save goes into the main context directly.
    let stranger = NSManagedObjectContext(concurrencyType: .privateQueueConcurrencyType)
    stranger.parent = other.mainContext
    try await stranger.perform {
      newNote("Stranger", in: stranger)
      try stranger.save()
    }
    try await drainMainQueue()

    #expect(list.count == 0)
    #expect(try controller.mainContext.count(for: NSFetchRequest<Note>(entityName: "Note")) == 0)
  }

  @Test("The directory holds workers weakly: a worker let go is no longer counted")
  func directoryIsWeak() async throws {
    let controller = try await makeStack()
    var worker: NSManagedObjectContext? = controller.newWorker()
    let second = controller.newWorker(.childOfMain)
    #expect(controller.liveWorkerCount == 2)
    worker = nil
    #expect(worker == nil)
    #expect(controller.liveWorkerCount == 1)
    _ = second
  }

  @Test("Imported IDs are permanent, and name the same note in the main context and on disk")
  func importedIDsArePermanent() async throws {
    let folder = try TemporaryFolder()
    let controller = try await makeStack(in: folder)
    let outcome = try await NoteImporter(controller: controller, batchSize: 3).importNotes(drafts(7))
    let id = try #require(outcome.lastNoteID)
    #expect(!id.isTemporaryID)
    let note = try #require(try controller.mainContext.existingObject(with: id) as? Note)
    #expect(note.title == "Note 7")
    // A fetch in the main context, after the writer saved, returns the note under the same ID.
    let request = NSFetchRequest<Note>(entityName: "Note")
    request.predicate = NSPredicate(format: "title == %@", "Note 7")
    #expect(try controller.mainContext.fetch(request).map(\.objectID) == [id])
  }

  @Test("A temporary ID handed out of a worker names nothing once the app relaunches; a permanent one does")
  func temporaryIDDoesNotSurviveARelaunch() async throws {
    let folder = try TemporaryFolder()
    let controller = try await makeStack(in: folder)
    let worker = controller.newWorker()
    let (forgot, obtained) = try await worker.perform {
      let forgot = newNote("Forgot obtainPermanentIDs", in: worker)
      let obtained = newNote("Obtained a permanent ID", in: worker)
      try worker.obtainPermanentIDs(for: [obtained])
      try worker.save()
      return (forgot.objectID.uriRepresentation(), obtained.objectID.uriRepresentation())
    }
    try await controller.writeToDisk()
    try await drainMainQueue()
    // The main context took the worker's IDs as they were handed to it: the first note keeps a temporary
    // ID there, though its row is on disk. An app that stores that ID (to reopen the note next time, say)
    // stores nothing useful.
    let merged = try controller.mainContext.fetch(NSFetchRequest<Note>(entityName: "Note"))
    #expect(merged.count == 2)
    #expect(merged.first { $0.title == "Forgot obtainPermanentIDs" }?.objectID.isTemporaryID == true)

    let relaunched = try await makeStack(in: folder)
    let coordinator = try #require(relaunched.mainContext.parent?.persistentStoreCoordinator)
    #expect(coordinator.managedObjectID(forURIRepresentation: forgot).map { !$0.isTemporaryID } != true)
    let found = try #require(coordinator.managedObjectID(forURIRepresentation: obtained))
    let note = try #require(try relaunched.mainContext.existingObject(with: found) as? Note)
    #expect(note.title == "Obtained a permanent ID")
  }

  @Test("Many workers saving at once: every note is merged once, on the main queue, and written once")
  func manyWorkersAtOnce() async throws {
    let folder = try TemporaryFolder()
    let controller = try await makeStack(in: folder)
    let list = try NoteList(context: controller.mainContext)
    let log = CountLog(list)
    try await withThrowingTaskGroup(of: Void.self) { group in
      for worker in 0..<8 {
        group.addTask {
          _ = try await NoteImporter(controller: controller, batchSize: 10).importNotes(drafts(50, from: worker * 50 + 1))
        }
      }
      try await group.waitForAll()
    }
    try await drainMainQueue()
    #expect(list.count == 400)
    #expect(log.allOnMainQueue)
    let titles = try titlesOnDisk(in: folder)
    #expect(titles.count == 400)
    #expect(Set(titles).count == 400)
  }

  @Test("A worker that saves after the app let its controller go still reaches the disk")
  func workerOutlivesController() async throws {
    let folder = try TemporaryFolder()
    var controller: PersistenceController? = try await makeStack(in: folder)
    weak let weakController = controller
    let worker = try #require(controller?.newWorker())
    controller = nil
    #expect(weakController != nil, "the worker keeps its controller alive")
    try await worker.perform {
      let note = newNote("Saved late", in: worker)
      try worker.obtainPermanentIDs(for: [note])
      try worker.save()
    }
    try await eventually("the late save on disk") { try titlesOnDisk(in: folder) == ["Saved late"] }
  }
}
