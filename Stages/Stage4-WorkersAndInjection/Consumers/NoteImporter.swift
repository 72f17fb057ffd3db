import Foundation
import NotesModel
import ObjectGraph

/// A note to import: plain values, safe to hand from queue to queue (a managed object is not).
public struct NoteDraft: Sendable, Equatable {
  /// The note's title.
  public var title: String
  /// Its text.
  public var body: String?
  /// When it was written.
  public var createdAt: Date

  /// A draft with these values.
  public init(title: String, body: String? = nil, createdAt: Date) {
    self.title = title
    self.body = body
    self.createdAt = createdAt
  }
}

/// Imports notes in batches on worker contexts, off the main queue.
///
/// It is handed the controller, and asks it for workers; it never touches the main context. Each batch
/// gets a worker of its own, which inserts the batch's notes, gives them permanent IDs, saves (the
/// controller merges the save into the main context and writes it to disk) and is let go, so no batch's
/// objects outlive it.
///
/// ```swift
/// let importer = NoteImporter(controller: controller, batchSize: 1_000)
/// let imported = try await importer.importNotes(drafts)
/// let newest = try controller.mainContext.existingObject(with: imported.lastNoteID!)  // on the main queue
/// ```
public struct NoteImporter: Sendable {
  /// What an import did.
  public struct Outcome: Sendable {
    /// How many notes it saved.
    public let notes: Int
    /// How many batches (and workers) it took.
    public let batches: Int
    /// The permanent ID of the last note it saved, to look up in any context of the stack.
    public let lastNoteID: NSManagedObjectID?
  }

  private let controller: PersistenceController
  private let shape: WorkerShape
  private let batchSize: Int

  /// An importer that saves through `controller`'s workers.
  ///
  /// - Parameters:
  ///   - controller: the stack; its store must be loaded (after the initialiser's callback).
  ///   - shape: where its workers hang; ``WorkerShape/besideMain`` by default.
  ///   - batchSize: notes per worker and save, at least 1; 1,000 by default.
  public init(controller: PersistenceController, shape: WorkerShape = .besideMain, batchSize: Int = 1_000) {
    self.controller = controller
    self.shape = shape
    self.batchSize = max(1, batchSize)
  }

  /// Saves `drafts` as notes, batch by batch, and returns once every batch is on disk.
  ///
  /// `drafts` may be lazy (`(1...100_000).lazy.map(makeDraft)`): it is read one batch at a time.
  ///
  /// Call it from any task but the main actor's own work: it waits for each worker in turn. Batches are
  /// saved in order. When a batch fails (a validation error, a full disk), the import stops and throws:
  /// the batches before it are saved and on their way to disk, the failed batch is not saved at all.
  ///
  /// - Throws: the failed batch's error, or ``PersistenceControllerError/saveFailed(_:)``
  ///   when writing to disk failed at the end.
  public func importNotes(_ drafts: some Sequence<NoteDraft>) async throws -> Outcome {
    var lastNoteID: NSManagedObjectID?
    var notes = 0
    var batches = 0
    var batch: [NoteDraft] = []
    batch.reserveCapacity(batchSize)
    // Drafts are taken one batch at a time, so a lazy sequence is never all in memory at once.
    var remaining = drafts.makeIterator()
    while true {
      batch.removeAll(keepingCapacity: true)
      while batch.count < batchSize, let draft = remaining.next() { batch.append(draft) }
      if batch.isEmpty { break }
      lastNoteID = try await save(batch)
      notes += batch.count
      batches += 1
    }
    try await controller.writeToDisk()
    return Outcome(notes: notes, batches: batches, lastNoteID: lastNoteID)
  }

  /// One batch on one worker; returns the permanent ID of its last note.
  private func save(_ batch: [NoteDraft]) async throws -> NSManagedObjectID? {
    let worker = controller.newWorker(shape, name: "import worker")
    return try await worker.perform {
      var last: Note?
      for draft in batch {
        let note = Note(context: worker)
        note.title = draft.title
        note.body = draft.body
        note.createdAt = draft.createdAt
        note.modifiedAt = draft.createdAt
        last = note
      }
      // The IDs leave this worker (the main context and the caller get them): make them permanent now,
      // or they would name objects only this worker's family knows, by IDs the rows will not keep.
      try worker.obtainPermanentIDs(for: Array(worker.insertedObjects))
      try worker.save()
      return last?.objectID
    }
  }
}
