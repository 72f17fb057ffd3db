import Foundation
import NotesModel
import ObjectGraph

/// What a list screen shows: how many notes there are and the newest few, kept current as the main
/// context changes (the user's edits, and the workers' saves as they are merged).
///
/// It is handed the context it reads, and knows nothing else of the stack: in the app that is the
/// controller's main context, in a test any main-queue context over an in-memory store.
///
/// ```swift
/// let list = try NoteList(context: controller.mainContext)
/// list.onChange = { list in label.text = "\(list.count) notes" }
/// ```
///
/// It counts once, when it is made, then follows the context's objects-did-change notifications: an
/// inserted note adds one, a deleted note takes one away. A child context's save is announced by the
/// context during that save, and a merge when it runs, so a worker's notes are counted as they land. It does not count again after each change, as
/// a count would go through the writer, whose queue may be busy writing a worker's batch to disk: the
/// main queue would wait for it.
@MainActor
public final class NoteList {
  /// How many notes the context has, saved or not.
  public private(set) var count: Int
  /// Called on the main queue after each change of ``count``.
  public var onChange: ((NoteList) -> Void)?

  private let context: NSManagedObjectContext
  private var observer: (any NSObjectProtocol)?

  /// Counts the notes of `context` and starts following its changes.
  ///
  /// - Parameter context: a main-queue context (the controller's `mainContext`), whose store is loaded.
  /// - Throws: the count's error, for example 900006 when the context has no store yet.
  public init(context: NSManagedObjectContext) throws {
    self.context = context
    count = try context.count(for: NSFetchRequest<Note>(entityName: "Note"))
    observer = NotificationCenter.default.addObserver(
      forName: NSManagedObjectContext.didChangeObjectsNotification, object: context, queue: nil
    ) { [weak self] notification in
      // Posted on the context's queue: the main queue, for a main-queue context.
      let inserted = Self.notes(in: notification, under: .insertedObjects)
      let deleted = Self.notes(in: notification, under: .deletedObjects)
      MainActor.assumeIsolated { self?.apply(inserted: inserted, deleted: deleted) }
    }
  }

  isolated deinit {
    if let observer { NotificationCenter.default.removeObserver(observer) }
  }

  /// The titles of the newest `limit` notes, newest first.
  public func newestTitles(limit: Int) throws -> [String] {
    let request = NSFetchRequest<Note>(entityName: "Note")
    request.sortDescriptors = [NSSortDescriptor(key: "createdAt", ascending: false)]
    request.fetchLimit = limit
    return try context.fetch(request).map(\.title)
  }

  private func apply(inserted: Int, deleted: Int) {
    guard inserted != deleted else { return }
    count += inserted - deleted
    onChange?(self)
  }

  /// How many notes a did-change notification lists under `key`.
  private nonisolated static func notes(in notification: Notification, under key: NSManagedObjectContext.NotificationKey) -> Int {
    let objects = notification.userInfo?[key.rawValue] as? Set<NSManagedObject> ?? []
    return objects.count { $0 is Note }
  }
}
