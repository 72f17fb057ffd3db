// A wrong attempt at exercise 06, kept so that CI proves the checks name the mistake: every object stays on its
// queue, but the work is queued with importer.perform, as background work often is, so importNotes returns
// before any note exists, and a failed lookup or save is never heard of.
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
  importer.perform {
    do {
      guard let target = try importer.existingObject(with: notebookID) as? Notebook else { return }
      for title in titles {
        let note = Note(context: importer)
        note.title = title
        note.createdAt = Date()
        note.notebook = target
      }
      try importer.save()
    } catch {
      print("Import failed: \(error)")
    }
  }
}
