// A wrong attempt at exercise 11, kept so that CI proves the checks name the mistake: permanent IDs, obtained
// before the save, as stage 4's importer obtains them, for the worker's insertedObjects; but that is a Set, so
// the IDs come back in any order, and the app opens "Call the bank" when the user tapped "Groceries".
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
    for title in titles {
      let note = Note(context: worker)
      note.title = title
      note.createdAt = Date()
    }
    // As stage 4's importer does: permanent IDs for what the worker inserted, before the save.
    let inserted = Array(worker.insertedObjects)
    try worker.obtainPermanentIDs(for: inserted)
    try worker.save()
    return inserted.map(\.objectID)
  }
}
