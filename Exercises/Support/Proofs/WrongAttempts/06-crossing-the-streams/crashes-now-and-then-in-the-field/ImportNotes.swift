// A wrong attempt at exercise 06, kept so that .ci/check-exercises.sh proves its check names the mistakes:
// the starter with only its throw deleted (the README's first step).
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
  // This is the app's code as it shipped. It passes every test in the office, and in the field it
  // crashes now and then, in a different place each time. Find out why (the README says how) and fix it.
  let notes = importer.performAndWait {
    titles.map { title in
      let note = Note(context: importer)
      note.title = title
      note.createdAt = Date()
      return note
    }
  }
  for note in notes {
    note.notebook = notebook
  }
  try importer.performAndWait {
    try importer.save()
  }
}
