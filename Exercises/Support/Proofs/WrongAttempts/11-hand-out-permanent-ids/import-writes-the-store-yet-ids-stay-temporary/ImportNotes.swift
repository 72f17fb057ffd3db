// A wrong attempt at exercise 11, kept so that CI proves the checks name the mistake: since only a save to
// the store makes IDs permanent, it saves the worker's parent, the writer, too, and reads the IDs after
// that. The rows get their permanent IDs in the writer; the worker's notes keep their temporary ones, and
// those are what it hands out.
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
    let notes = titles.map { title in
      let note = Note(context: worker)
      note.title = title
      note.createdAt = Date()
      return note
    }
    try worker.save()
    // The worker's save stops at the writer: save the writer as well, so the store hands out the rows' IDs.
    if let writer = worker.parent {
      try writer.performAndWait { try writer.save() }
    }
    return notes.map(\.objectID)
  }
}
