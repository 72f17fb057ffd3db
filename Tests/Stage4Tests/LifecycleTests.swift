import Dispatch
import Foundation
import NotesModel
import ObjectGraph
import Stage4
import TestSupport
import Testing

/// Records what the controller tells its delegate.
@MainActor
final class DelegateLog: PersistenceControllerDelegate {
  private(set) var failures: [PersistenceControllerError] = []
  private(set) var allOnMainQueue = true

  func persistenceController(_ controller: PersistenceController, didFailToSave error: PersistenceControllerError) {
    failures.append(error)
    if !MainQueueProbe.isOnMainQueue { allOnMainQueue = false }
  }
}

@Suite("Stage 4: the master context, lifecycle saves and the delegate", .temporaryFolders)
@MainActor
struct LifecycleTests {
  @Test("Entering the background writes the main context's changes to disk")
  func backgroundSaves() async throws {
    let folder = try TemporaryFolder()
    let controller = try await makeStack(in: folder)
    newNote("Typed before the app went away", in: controller.mainContext)
    controller.appDidEnterBackground()
    #expect(controller.mainContext.hasChanges == false, "the main context saved before the call returned")
    try await eventually("the note on disk") { try titlesOnDisk(in: folder) == ["Typed before the app went away"] }
  }

  @Test("Resigning active saves too")
  func resignActiveSaves() async throws {
    let folder = try TemporaryFolder()
    let controller = try await makeStack(in: folder)
    newNote("Interrupted by a call", in: controller.mainContext)
    controller.appWillResignActive()
    try await eventually("the note on disk") { try titlesOnDisk(in: folder) == ["Interrupted by a call"] }
  }

  @Test("Terminating returns only once the changes are on disk")
  func terminateWaits() async throws {
    let folder = try TemporaryFolder()
    let controller = try await makeStack(in: folder)
    newNote("Last words", in: controller.mainContext)
    controller.appWillTerminate()
    #expect(try titlesOnDisk(in: folder) == ["Last words"])
  }

  @Test("A failed save of the master context goes to the delegate, on the main queue, and nothing is lost")
  func failureGoesToDelegate() async throws {
    let folder = try TemporaryFolder()
    let controller = try await makeStack(in: folder)
    let delegate = DelegateLog()
    controller.delegate = delegate
    try await makeConflict(controller, folder)

    controller.appDidEnterBackground()
    try await eventually("the delegate to hear of the failure") { !delegate.failures.isEmpty }
    #expect(delegate.allOnMainQueue)
    let failure = try #require(delegate.failures.first)
    guard case .saveFailed(let cause) = failure else {
      Issue.record("expected saveFailed, got \(failure)")
      return
    }
    #expect(cause.code == NSManagedObjectMergeError)
    // Nothing lost: the change is still waiting in the writer, and the next save meets the same conflict.
    await #expect(throws: PersistenceControllerError.self) { try await controller.writeToDisk() }
  }

  @Test("Without a delegate, a failed save is a no-op that keeps the changes for the next save")
  func failureWithoutDelegate() async throws {
    let folder = try TemporaryFolder()
    let controller = try await makeStack(in: folder)
    try await makeConflict(controller, folder)
    controller.appDidEnterBackground()
    try await drainMainQueue()
    await #expect(throws: PersistenceControllerError.self) { try await controller.writeToDisk() }
  }

  @Test("A worker's batch that cannot be saved fails the import; earlier batches are kept and written")
  func failedBatch() async throws {
    let folder = try TemporaryFolder()
    let controller = try await makeStack(in: folder)
    var notes = drafts(6)
    notes[4].title = ""  // still valid: an empty title is a title
    let good = try await NoteImporter(controller: controller, batchSize: 3).importNotes(notes)
    #expect(good.notes == 6)

    // A note without its required title: the worker's save refuses it.
    let worker = controller.newWorker()
    await #expect(throws: NSError.self) {
      try await worker.perform {
        let note = Note(context: worker)
        note.setValue(nil, forKey: "title")
        try worker.save()
      }
    }
    try await controller.writeToDisk()
    #expect(try titlesOnDisk(in: folder).count == 6)
  }

  /// Makes the writer's next save conflict: the writer holds a note, another app (a coordinator of its
  /// own, on the same file) changes that note's row, and the main context changes the note too.
  private func makeConflict(_ controller: PersistenceController, _ folder: TemporaryFolder) async throws {
    let outcome = try await NoteImporter(controller: controller, batchSize: 1).importNotes(drafts(1))
    let id = try #require(outcome.lastNoteID)
    let note = try #require(try controller.mainContext.existingObject(with: id) as? Note)
    _ = note.title  // read: the writer now holds the row as it was

    let other = try contextOfItsOwn(.privateQueue, storeAt: folder.appending("\(NotesModel.name).sqlite"))
    try other.performAndWait {
      let theirs = try #require(try other.fetch(NSFetchRequest<Note>(entityName: "Note")).first)
      theirs.title = "Changed by another app"
      try other.save()
    }
    note.title = "Changed here"
  }
}

@Suite("Stage 4: a uniqueness conflict during an import", .temporaryFolders)
@MainActor
struct ImportConflictTests {
  @Test("A repeated title under a uniqueness constraint fails the import with 133021; earlier batches stay on disk")
  func constraintConflictDuringImport() async throws {
    let folder = try TemporaryFolder()
    let bundle = try makeModelBundle(
      in: folder.appending("Model"), name: NotesModel.name,
      versions: [("DataModel", try tutorialModelWithUniqueTitles())])
    let loaded = Signal<Result<Void, PersistenceControllerError>>()
    let controller = PersistenceController(bundle: bundle, storeFolder: folder.appending("Store")) { loaded.fulfil($0) }
    try await loaded.wait("the store to load").get()
    let delegate = DelegateLog()
    controller.delegate = delegate

    var notes = drafts(6)
    notes[4].title = "Note 1"  // the second batch repeats a title the first one saved
    let error = await #expect(throws: PersistenceControllerError.self) {
      try await NoteImporter(controller: controller, batchSize: 3).importNotes(notes)
    }
    guard case .saveFailed(let cause)? = error else {
      Issue.record("expected saveFailed, got \(String(describing: error))")
      return
    }
    #expect(cause.code == NSManagedObjectConstraintMergeError)
    #expect(cause.localizedDescription.contains("Note 1"), "\(cause.localizedDescription)")
    try await eventually("the delegate to hear of it") { !delegate.failures.isEmpty }
    // The first batch is on disk; the second waits in the writer, not lost, until the conflict is resolved.
    #expect(try titlesOnDisk(at: folder.appending("Store/\(NotesModel.name).sqlite")) == ["Note 1", "Note 2", "Note 3"])
  }

  /// The tutorial's current model with a uniqueness constraint on `Note.title`.
  private func tutorialModelWithUniqueTitles() throws -> String {
    let url = try #require(NotesModel.bundle.url(forResource: NotesModel.name, withExtension: "xcdatamodeld"))
    let contents = try String(contentsOf: url.appendingPathComponent("DataModel 2.xcdatamodel/contents"), encoding: .utf8)
    let entity = #"<entity name="Note" representedClassName="Note" syncable="YES" codeGenerationType="class">"#
    #expect(contents.contains(entity))
    return contents.replacingOccurrences(
      of: entity,
      with: entity
        + #"<uniquenessConstraints><uniquenessConstraint><constraint value="title"/></uniquenessConstraint></uniquenessConstraints>"#)
  }
}
