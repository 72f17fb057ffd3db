// Reference solution of exercise 11: hand out permanent IDs.
import Foundation
import NotesModel
import ObjectGraph

/// Adds a note for each of `titles` on `worker`, saves `worker`, and returns the new notes' IDs, in the
/// order of `titles`.
///
/// `worker` is a private-queue context beside the main context: a child of the writer, not of the main
/// context. The IDs it returns leave the worker: the main context looks the notes up with them, and the
/// app stores their `uriRepresentation()` to reopen the notes at the next launch.
///
/// - Throws: the worker's save error, or the coordinator's when it cannot hand out permanent IDs.
public func importNotes(_ titles: [String], on worker: NSManagedObjectContext) throws -> [NSManagedObjectID] {
  try worker.performAndWait {
    let notes = titles.map { title in
      let note = Note(context: worker)
      note.title = title
      note.createdAt = Date()
      return note
    }
    // Until now each note has a temporary ID, which only this worker (and, once it saves, the writer) knows.
    // When the writer saves, the row gets a new, permanent ID, and the temporary one names nothing. Ask the
    // store for the permanent IDs now, before the save, so the worker, the writer and the row share one ID.
    try worker.obtainPermanentIDs(for: notes)
    try worker.save()
    // Read after obtainPermanentIDs: an ID read before it would still be the temporary one.
    return notes.map(\.objectID)
  }
}
