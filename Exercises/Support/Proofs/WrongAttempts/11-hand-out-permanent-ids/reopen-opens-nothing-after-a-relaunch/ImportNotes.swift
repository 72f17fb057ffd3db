// A wrong attempt at exercise 11, kept so that CI proves the checks name the mistake: the IDs are read after
// the worker's save, in the belief that the save makes them permanent; it does not (it only hands the notes to
// the writer), so they are the temporary ones, and a stored URI opens nothing after a relaunch.
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
/// - Throws: the worker's save error, or the coordinator's when it cannot hand out permanent IDs.
public func importNotes(_ titles: [String], on worker: NSManagedObjectContext) throws -> [NSManagedObjectID] {
  try worker.performAndWait {
    let notes = titles.map { title in
      let note = Note(context: worker)
      note.title = title
      note.createdAt = Date()
      return note
    }
    try worker.save()
    // Read after the save, so that they are the saved notes' IDs.
    return notes.map(\.objectID)
  }
}
