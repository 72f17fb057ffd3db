// A wrong attempt at exercise 06, kept so that CI proves the checks name the mistake: the notes are made,
// filed and saved in one performAndWait, and the deleted notebook is checked for, but with the main
// context's notebook itself, touched on the importer's queue and linked to the importer's notes.
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
  try importer.performAndWait {
    if notebook.isDeleted {
      throw CocoaError(.coreData, userInfo: [NSLocalizedDescriptionKey: "The notebook was deleted."])
    }
    for title in titles {
      let note = Note(context: importer)
      note.title = title
      note.createdAt = Date()
      note.notebook = notebook
    }
    try importer.save()
  }
}
