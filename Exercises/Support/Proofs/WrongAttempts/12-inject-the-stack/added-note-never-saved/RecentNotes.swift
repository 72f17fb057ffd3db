// A wrong attempt at exercise 12, kept so that CI proves the checks name the mistake: the global stack is gone
// and every method uses the context it is handed, but add(_:) lost its save on the way (the line that saved
// NotesApp.shared's context was deleted rather than changed): the note shows in the list, and is never saved.
import Foundation
import NotesModel
import ObjectGraph

/// What the app's "Recent" screen shows: the titles of the newest notes, newest first, and a field to add one.
@MainActor
public final class RecentNotes {
  /// How many titles it shows at most.
  public let limit: Int
  /// The titles of the newest `limit` notes, newest first, as of the last ``reload()``.
  public private(set) var titles: [String] = []

  /// The one context it reads and writes: handed in, never reached for.
  private let context: NSManagedObjectContext

  /// A list of the newest notes of `context` (a main-queue context whose store is loaded), loaded at once.
  ///
  /// - Throws: the fetch's error, for example when the context has no store.
  public init(context: NSManagedObjectContext, limit: Int = 5) throws {
    self.context = context
    self.limit = limit
    try reload()
  }

  /// Reads the newest notes again.
  public func reload() throws {
    let request = NSFetchRequest<Note>(entityName: "Note")
    request.sortDescriptors = [NSSortDescriptor(key: "createdAt", ascending: false)]
    request.fetchLimit = limit
    titles = try context.fetch(request).map(\.title)
  }

  /// Adds a note titled `title`, saves it, and shows it.
  public func add(_ title: String) throws {
    let note = Note(context: context)
    note.title = title
    note.createdAt = Date()
    try reload()
  }
}
