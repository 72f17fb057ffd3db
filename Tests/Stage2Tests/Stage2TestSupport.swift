import Foundation
import NotesModel
import ObjectGraph
import Stage2
import TestSupport

extension CoreDataManager {
  /// A manager for the tutorial's model with its store in `folder`.
  convenience init(storeFolder folder: URL) {
    self.init(modelName: NotesModel.name, storeFolder: folder)
  }

  /// Calls ``CoreDataManager/saveChanges(completion:)`` from the main queue, as an app would, and waits
  /// for the disk write to end. An error of either half is thrown, and so is a completion that never
  /// comes (``WatchdogTimeout``).
  func saveChangesAndWait() async throws {
    let context = try mainContext
    try await saveChangesAndWait { saveChanges in context.perform { saveChanges() } }
  }

  /// Calls ``CoreDataManager/saveChanges(completion:)`` in the block that `caller` runs (on the queue it
  /// chooses), and waits for the completion, 30 seconds at most. An error of either half is thrown, and so
  /// is a completion that never comes.
  func saveChangesAndWait(from caller: (@escaping @Sendable () -> Void) -> Void) async throws {
    let written: Result<Void, any Error> = try await Watchdog.callback("saveChanges' completion") { completion in
      caller {
        do {
          try self.saveChanges(completion: completion)
        } catch {
          completion(.failure(error))
        }
      }
    }
    try written.get()
  }
}

/// What the store file holds, read by a stack of its own (a second manager on the same folder, as a
/// second launch of the app would be): each note's title and body, sorted by title.
func notesInFile(_ folder: URL) async throws -> [NoteRow] {
  let context = try CoreDataManager(storeFolder: folder).mainContext
  return try await context.perform {
    let request = NSFetchRequest<Note>(entityName: "Note")
    request.sortDescriptors = [NSSortDescriptor(key: "title", ascending: true)]
    return try context.fetch(request).map { NoteRow(title: $0.title, body: $0.body) }
  }
}

/// A note as the tests compare it.
struct NoteRow: Equatable, Sendable {
  let title: String
  let body: String?
}

/// Records the did-save notifications of one manager's two contexts, in the order they were posted, and
/// whether each was posted on the main queue, for as long as the recorder is in use.
struct SaveRecorder: Sendable {
  /// One did-save notification: `"main"` or `"private"`, and where it was posted.
  struct Event: Equatable, Sendable, CustomStringConvertible {
    let context: String
    let onMainQueue: Bool

    var description: String { "\(context) on \(onMainQueue ? "the main queue" : "another queue")" }
  }

  private let log: NotificationLog<Event>

  /// Starts recording the saves of `main` and of its parent.
  init(main: NSManagedObjectContext) {
    let parent = main.parent
    log = NotificationLog(NSManagedObjectContext.didSaveObjectsNotification) { note in
      guard let saver = note.object as? NSManagedObjectContext, saver === main || saver === parent else { return nil }
      return Event(context: saver === main ? "main" : "private", onMainQueue: MainQueueProbe.isOnMainQueue)
    }
  }

  /// The saves seen so far.
  var saves: [Event] { log.entries }
}
