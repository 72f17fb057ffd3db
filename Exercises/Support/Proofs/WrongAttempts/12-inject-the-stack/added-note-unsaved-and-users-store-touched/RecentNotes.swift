// A wrong attempt at exercise 12, kept so that CI proves the checks name the mistake: init(context:limit:) keeps
// the context, and add(_:) makes its note there, but still saves NotesApp.shared's context: the global stack is
// made (in the user's folder), and the note, in the context the list was handed, is never saved.
import ExerciseKit
import Foundation
import NotesModel
import ObjectGraph

/// The app's one stack, as it shipped: made the first time anything reaches for `NotesApp.shared`, over the
/// user's store file in the application-support folder.
@MainActor
public final class NotesApp {
  /// The one instance, reached for from everywhere.
  public static let shared = NotesApp()

  /// The main-queue context over the user's store.
  public let mainContext: NSManagedObjectContext

  private init() {
    let context = NSManagedObjectContext(concurrencyType: .mainQueueConcurrencyType)
    context.name = "NotesApp.shared"
    if let modelURL = NotesModel.bundle.url(forResource: NotesModel.name, withExtension: "xcdatamodeld"),
      let model = NSManagedObjectModel(contentsOf: modelURL),
      let support = FileManager.default.urls(for: .applicationSupportDirectory, in: .userDomainMask).first
    {
      let folder = support.appendingPathComponent("RecentNotesApp", isDirectory: true)
      try? FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
      let coordinator = NSPersistentStoreCoordinator(managedObjectModel: model)
      _ = try? coordinator.addPersistentStore(type: .sqlite, at: folder.appendingPathComponent("Notes.sqlite"))
      context.persistentStoreCoordinator = coordinator
    }
    mainContext = context
  }
}

/// What the app's "Recent" screen shows: the titles of the newest notes, newest first, and a field to add one.
@MainActor
public final class RecentNotes {
  /// How many titles it shows at most.
  public let limit: Int
  /// The titles of the newest `limit` notes, newest first, as of the last ``reload()``.
  public private(set) var titles: [String] = []

  private let context: NSManagedObjectContext

  /// As it shipped: the screen reaches for the app's one stack.
  public init(limit: Int = 5) {
    self.limit = limit
    context = NotesApp.shared.mainContext
  }

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
    try NotesApp.shared.mainContext.save()
    try reload()
  }
}
