import Foundation
import NotesModel
import ObjectGraph

/// Edits one note at a time, found by its ID, in the context it is handed.
///
/// An ID is what crosses from the list (or an importer, or a notification) to the editor: it is the one
/// thing about an object that is safe on every queue. The editor looks the note up again in its own
/// context, with `existingObject(with:)`, since by the time the user edits it the note may be gone.
///
/// ```swift
/// let editor = NoteEditor(context: controller.mainContext)
/// try editor.rename(selectedID, to: "Groceries")
/// ```
@MainActor
public final class NoteEditor {
  private let context: NSManagedObjectContext

  /// An editor working in `context` (the main context, for an editor on screen).
  public init(context: NSManagedObjectContext) {
    self.context = context
  }

  /// Gives the note `noteID` names a new title, and saves its context (for the main context: into the
  /// writer; the controller's ``PersistenceController/saveChanges(completion:)`` takes it to disk).
  ///
  /// - Throws: `existingObject(with:)`'s error when the note is gone (deleted, or never
  ///   saved where this context can see it) or the ID is of another stack; a validation error (1570, say)
  ///   when the save refuses the change, which is then undone (the context's other changes are kept).
  public func rename(_ noteID: NSManagedObjectID, to title: String) throws {
    let object = try context.existingObject(with: noteID)
    guard let note = object as? Note else {
      throw CocoaError(
        .managedObjectReferentialIntegrity,
        userInfo: [
          NSLocalizedDescriptionKey:
            "\(noteID) is an object of entity \(object.entity.name ?? "?"), not a Note: the editor edits notes only."
        ])
    }
    note.title = title
    note.modifiedAt = Date()
    do {
      try context.save()
    } catch {
      context.refresh(note, mergeChanges: false)  // undoes this note's changes only
      throw error
    }
  }
}
