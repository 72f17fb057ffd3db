// Exercise 11: hand out permanent IDs.
// The task is in Exercises/11-hand-out-permanent-ids/README.md; hints in HINTS.md next to it.
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
  // This is the app's code as it shipped. The notes are saved, yet the IDs it hands out find nothing
  // once the writer has written them, and nothing at all after a relaunch. Find out why and fix it.
  let ids = try worker.performAndWait {
    var ids: [NSManagedObjectID] = []
    for title in titles {
      let note = Note(context: worker)
      note.title = title
      note.createdAt = Date()
      ids.append(note.objectID)
    }
    try worker.save()
    return ids
  }

  // Fixed it? Then replace these two lines with `return ids`.
  _ = ids
  throw ExerciseNotDone("11-hand-out-permanent-ids")
}
