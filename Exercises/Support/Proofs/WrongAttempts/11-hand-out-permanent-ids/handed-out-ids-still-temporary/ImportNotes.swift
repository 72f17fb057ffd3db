// A wrong attempt at exercise 11, kept so that CI proves the checks name the mistake: it calls
// obtainPermanentIDs(for:) before the save, as it should, but hands out the IDs it read in the loop that
// made the notes, before that call: the temporary ones.
import ExerciseKit
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
/// - Throws: the worker's save error.
public func importNotes(_ titles: [String], on worker: NSManagedObjectContext) throws -> [NSManagedObjectID] {
  try worker.performAndWait {
    var notes: [Note] = []
    var ids: [NSManagedObjectID] = []
    for title in titles {
      let note = Note(context: worker)
      note.title = title
      note.createdAt = Date()
      notes.append(note)
      ids.append(note.objectID)
    }
    try worker.obtainPermanentIDs(for: notes)
    try worker.save()
    return ids
  }
}
