// A wrong attempt at exercise 06, kept so that CI proves the checks name the mistake: every object stays on its
// queue, but the notebook is looked up with object(with:), which never fails, so a notebook the user deleted
// meanwhile gets the notes anyway and importNotes returns as if all went well.
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
  let notebookID = notebook.objectID
  try importer.performAndWait {
    guard let target = importer.object(with: notebookID) as? Notebook else { return }
    for title in titles {
      let note = Note(context: importer)
      note.title = title
      note.createdAt = Date()
      note.notebook = target
    }
    try importer.save()
  }
}
