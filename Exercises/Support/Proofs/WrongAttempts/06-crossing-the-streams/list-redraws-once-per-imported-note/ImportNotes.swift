// A wrong attempt at exercise 06, kept so that CI proves the checks name the mistake: every object stays on its
// queue and the notebook is looked up by its ID, but the importer saves inside the loop, once per note, so the
// main context gets the import as one change per note (and the list redraws for each).
import ExerciseKit
import Foundation
import NotesModel
import ObjectGraph

/// Adds a note for each of `titles` to `notebook`, working in the private context `importer`, and saves
/// `importer`, which hands the new notes up to its parent, the main context.
///
/// It is called when a download of note titles finishes: from a background thread, or from the main
/// queue. `notebook` is the one the user has open, an object of the main context.
///
/// - Throws: when `notebook` no longer exists, or the importer's save fails.
public func importNotes(_ titles: [String], into notebook: Notebook, using importer: NSManagedObjectContext) throws {
  // Rule 1: an object's ID may be read on any queue. It is all that crosses over to the importer.
  let notebookID = notebook.objectID

  try importer.performAndWait {
    // Rule 5: the importer's own copy of the notebook, looked up by ID on the importer's queue.
    // existingObject(with:) throws when the notebook is gone (deleted meanwhile); object(with:) would hand
    // back a placeholder for it and the notes would be filed into a notebook that no longer exists.
    guard let target = try importer.existingObject(with: notebookID) as? Notebook else {
      throw CocoaError(.coreData, userInfo: [NSLocalizedDescriptionKey: "Object \(notebookID) is not a notebook."])
    }
    // Rule 3: the importer's objects are made and touched inside its performAndWait only, and never leave it.
    for title in titles {
      let note = Note(context: importer)
      note.title = title
      note.createdAt = Date()
      note.notebook = target
      try importer.save()
    }
  }
}
