import Foundation
import Synchronization

/// Records one notification's posts, each as the entry `entry` makes of it, for as long as the log is
/// in use: nothing to remove by hand.
///
/// The observer goes when the log is freed, that is after the test's last look at ``entries``, so
/// every post the test reads about was recorded.
///
/// ```swift
/// let saves = NotificationLog(NSManagedObjectContext.didSaveObjectsNotification, object: context) { _ in "saved" }
/// try context.save()
/// #expect(saves.entries == ["saved"])
/// ```
public final class NotificationLog<Entry: Sendable>: Sendable {
  private let recorded = Mutex<[Entry]>([])
  // `nonisolated(unsafe)`: set once in init, then only handed to `removeObserver`, which is thread-safe.
  nonisolated(unsafe) private var observer: (any NSObjectProtocol)?

  /// Starts recording the posts of `name` by `object` (by anyone when `nil`). `entry` runs on the posting
  /// thread, right when the notification is posted; a post it answers `nil` for is left out.
  public init(
    _ name: Notification.Name, object: (any AnyObject & Sendable)? = nil,
    _ entry: @escaping @Sendable (Notification) -> Entry?
  ) {
    observer = NotificationCenter.default.addObserver(forName: name, object: object, queue: nil) {
      [weak self] notification in
      guard let self, let made = entry(notification) else { return }
      self.recorded.withLock { $0.append(made) }
    }
  }

  /// The entries so far, oldest first.
  public var entries: [Entry] { recorded.withLock { $0 } }

  /// Forgets the entries so far (recording goes on).
  public func removeAll() { recorded.withLock { $0.removeAll() } }

  deinit {
    if let observer { NotificationCenter.default.removeObserver(observer) }
  }
}
