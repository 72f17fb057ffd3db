import Foundation
import NotesModel
import ObjectGraph

/// What the crash trials save: numbered batches, each one `save()` that inserts, updates, deletes and
/// changes a relationship, so that a batch written in part would show.
///
/// Batch `k`:
/// - inserts the notebook "batch k" with the notes "k-0" … "k-4" in it;
/// - sets `wordCount` to `k` on every note of batch `k - 1` (an update);
/// - deletes the note "(k-2)-0" (a delete);
/// - moves the note "(k-2)-1" into the notebook "batch k" (a relationship change, on both sides).
///
/// So after the batches 1…L, and only then, the store holds exactly ``expectedNotes(afterBatch:)``.
enum Workload {
  static let notesPerBatch = 5

  static func notebookName(_ batch: Int) -> String { "batch \(batch)" }
  static func noteTitle(batch: Int, index: Int) -> String { "\(batch)-\(index)" }

  /// Makes batch `batch`'s changes in `context`, on its queue; the caller saves.
  static func apply(batch: Int, in context: NSManagedObjectContext) throws {
    let notebook = Notebook(context: context)
    notebook.name = notebookName(batch)
    notebook.createdAt = Date(timeIntervalSinceReferenceDate: Double(batch))
    for index in 0..<notesPerBatch {
      let note = Note(context: context)
      note.title = noteTitle(batch: batch, index: index)
      note.createdAt = Date(timeIntervalSinceReferenceDate: Double(batch))
      note.notebook = notebook
    }
    if batch >= 2 {
      let previous = NSFetchRequest<Note>(entityName: "Note")
      previous.predicate = NSPredicate(
        format: "title IN %@", (0..<notesPerBatch).map { noteTitle(batch: batch - 1, index: $0) })
      for note in try context.fetch(previous) { note.wordCount = Int32(batch) }
    }
    if batch >= 3 {
      context.delete(try note(titled: noteTitle(batch: batch - 2, index: 0), in: context))
      try note(titled: noteTitle(batch: batch - 2, index: 1), in: context).notebook = notebook
    }
  }

  private static func note(titled title: String, in context: NSManagedObjectContext) throws -> Note {
    let request = NSFetchRequest<Note>(entityName: "Note")
    request.predicate = NSPredicate(format: "title == %@", title)
    guard let note = try context.fetch(request).first else {
      throw CocoaError(
        .coreData,
        userInfo: [NSLocalizedDescriptionKey: "The workload's note \(title) is missing: the store is not the one the trial made."])
    }
    return note
  }

  /// A note as the store must hold it.
  struct ExpectedNote: Equatable, CustomStringConvertible {
    var title: String
    var notebook: String
    var wordCount: Int64
    /// The row's version: 1 when inserted, plus one for each save that changed it.
    var version: Int64

    var description: String { "\(title) in '\(notebook)', wordCount \(wordCount), Z_OPT \(version)" }
  }

  /// The notes after the batches 1…`last` were saved, and no other, by title.
  static func expectedNotes(afterBatch last: Int) -> [String: ExpectedNote] {
    var notes: [String: ExpectedNote] = [:]
    guard last >= 1 else { return notes }
    for batch in 1...last {
      let updated = batch + 1 <= last
      let movedOrDeleted = batch + 2 <= last
      for index in 0..<notesPerBatch {
        if index == 0 && movedOrDeleted { continue }
        let moved = index == 1 && movedOrDeleted
        let title = noteTitle(batch: batch, index: index)
        notes[title] = ExpectedNote(
          title: title,
          notebook: notebookName(moved ? batch + 2 : batch),
          wordCount: updated ? Int64(batch + 1) : 0,
          version: 1 + (updated ? 1 : 0) + (moved ? 1 : 0))
      }
    }
    return notes
  }
}
