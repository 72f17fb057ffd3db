import Foundation

extension NSNotification.Name {
  /// Posted after a write to a store added with ``NSPersistentStoreRemoteChangeNotificationPostOptionKey``:
  /// by this coordinator, another coordinator on the same file, or another process (Core Data's
  /// `NSPersistentStoreRemoteChange`).
  ///
  /// The notification's `object` is the coordinator the store belongs to; its `userInfo` holds the store's
  /// URL (``NSPersistentStoreURLKey``), its identifier (``NSStoreUUIDKey``) and, when the store tracks
  /// history (``NSPersistentHistoryTrackingKey``), the token of its last transaction
  /// (``NSPersistentHistoryTokenKey``). It is posted on a private queue, as Core Data's is: move to your
  /// context's queue (`perform`) before doing any work. Fetch the history after the last token you read
  /// rather than counting notifications: writes close together may be told in one notification.
  ///
  /// ```swift
  /// NotificationCenter.default.addObserver(
  ///   forName: .NSPersistentStoreRemoteChange, object: container.persistentStoreCoordinator, queue: nil
  /// ) { _ in
  ///   context.perform { mergeNewTransactions(into: context) }
  /// }
  /// ```
  ///
  /// How a write is noticed on Linux (Core Data on Apple platforms uses Darwin notifications between
  /// processes): the store watches its file (ObjectGraph.md, "Remote change notifications"); a write is
  /// told within a few milliseconds, at the latest about a second after it.
  public static let NSPersistentStoreRemoteChange = NSNotification.Name("NSPersistentStoreRemoteChangeNotification")
}

/// The key of a remote change notification's user info for the URL of the store that changed (Core Data's
/// `NSPersistentStoreURLKey`).
public let NSPersistentStoreURLKey = "storeURL"
/// The key of a remote change notification's user info for the store's last history token, an
/// ``NSPersistentHistoryToken`` (Core Data's `NSPersistentHistoryTokenKey`), present when the store tracks history.
public let NSPersistentHistoryTokenKey = "historyToken"

extension NSPersistentStoreCoordinator {
  /// Starts the watcher of a SQLite store added with ``NSPersistentStoreRemoteChangeNotificationPostOptionKey``.
  /// If it cannot start, the store is removed again and the error says why.
  func watchForRemoteChanges(_ store: NSPersistentStore, options: StoreOptions) throws {
    guard options.postsRemoteChangeNotifications, store.storeType == .sqlite, let url = store.url else { return }
    let identifier = store.identifier
    let tracksHistory = options.persistentHistoryTracking
    do {
      let watcher = try StoreChangeWatcher(url: url, readsHistory: tracksHistory) { [weak self] lastTransaction in
        guard let self else { return }
        var userInfo: [AnyHashable: Any] = [NSPersistentStoreURLKey: url, NSStoreUUIDKey: identifier]
        if tracksHistory {
          userInfo[NSPersistentHistoryTokenKey] = NSPersistentHistoryToken(
            storeIdentifier: identifier, transactionNumber: lastTransaction ?? 0)
        }
        NotificationCenter.default.post(name: .NSPersistentStoreRemoteChange, object: self, userInfo: userInfo)
      }
      remoteChangeWatchers.withLock { $0[ObjectIdentifier(store)] = watcher }
    } catch {
      _ = detach(store)
      throw ObjectGraphError(
        .persistentStoreOpen,
        "The store at \(url.path) was added with NSPersistentStoreRemoteChangeNotificationPostOptionKey, but its file "
          + "could not be opened to watch for other writers (\(error)). The store was not added; add it without the "
          + "option, or make its folder readable.",
        url: url)
    }
  }

  /// Stops the watcher of a store being removed, if it has one.
  func stopWatchingForRemoteChanges(_ store: NSPersistentStore) {
    remoteChangeWatchers.withLock { $0.removeValue(forKey: ObjectIdentifier(store)) }?.stop()
  }
}
