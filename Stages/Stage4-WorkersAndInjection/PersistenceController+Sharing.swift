import Foundation
import ObjectGraph

/// Where a reader of the store's history got to, kept in a file so that the next launch goes on from
/// there: the token of the last transaction it read, and when that transaction was saved (the date lets
/// the process that purges compare readers, as tokens cannot be compared).
struct HistoryBookmark: Codable, Sendable {
  /// The token, archived as Core Data's is (`NSSecureCoding`); `nil` when history was empty.
  var token: Data?
  /// When the last transaction read was saved (or the bookmark was made, before any was read).
  var date: Date

  init(token: NSPersistentHistoryToken?, date: Date) throws {
    self.token = try token.map { try NSKeyedArchiver.archivedData(withRootObject: $0, requiringSecureCoding: true) }
    self.date = date
  }

  var historyToken: NSPersistentHistoryToken? {
    token.flatMap { try? NSKeyedUnarchiver.unarchivedObject(ofClass: NSPersistentHistoryToken.self, from: $0) }
  }

  /// The bookmark in `file`, or `nil` when there is none or it cannot be read (the reader then starts
  /// from now: its own fetches see everything saved before).
  static func read(from file: URL) -> HistoryBookmark? {
    guard let data = try? Data(contentsOf: file) else { return nil }
    return try? PropertyListDecoder().decode(HistoryBookmark.self, from: data)
  }

  func write(to file: URL) throws {
    try FileManager.default.createDirectory(at: file.deletingLastPathComponent(), withIntermediateDirectories: true)
    try PropertyListEncoder().encode(self).write(to: file, options: .atomic)
  }
}

/// One transaction's changes as object IDs, which may cross from the writer's queue to the main queue (a
/// transaction, or its `objectIDNotification()`, may not).
struct ChangedIDs: Sendable {
  var inserted: Set<NSManagedObjectID> = []
  var updated: Set<NSManagedObjectID> = []
  var deleted: Set<NSManagedObjectID> = []

  init(_ transaction: NSPersistentHistoryTransaction) {
    for change in transaction.changes ?? [] {
      switch change.changeType {
      case .insert: inserted.insert(change.changedObjectID)
      case .update: updated.insert(change.changedObjectID)
      case .delete: deleted.insert(change.changedObjectID)
      @unknown default: break
      }
    }
  }

  /// What `mergeChanges(fromRemoteContextSave:into:)` takes.
  var userInfo: [AnyHashable: Any] {
    [NSInsertedObjectIDsKey: inserted, NSUpdatedObjectIDsKey: updated, NSDeletedObjectIDsKey: deleted]
  }
}

extension PersistenceController {
  /// The store options sharing needs: every save recorded in history with its author, and a
  /// notification whenever anyone (another process included) writes the store.
  static var sharingOptions: [AnyHashable: Any] {
    [NSPersistentHistoryTrackingKey: true, NSPersistentStoreRemoteChangeNotificationPostOptionKey: true]
  }

  /// The folder beside the store where each reader keeps its bookmark: `HistoryBookmarks/<author>.plist`.
  var bookmarkFolder: URL {
    storeURL.deletingLastPathComponent().appendingPathComponent("HistoryBookmarks", isDirectory: true)
  }

  /// The bookmark file of the reader signing as `author`.
  func bookmarkFile(of author: String) -> URL { bookmarkFolder.appendingPathComponent("\(author).plist") }

  /// Called on the background queue once the store is added: finds where this reader got to (or starts
  /// from now, on a first launch), then follows the store's remote change notifications.
  ///
  /// A bookmark that cannot be written does not stop the store from loading: the first merge then reads
  /// all of history, merging more than it needs (harmless), and writes the bookmark, or says why not.
  func startSharing(_ sharing: StoreSharing, coordinator: NSPersistentStoreCoordinator) {
    let file = bookmarkFile(of: sharing.author)
    if HistoryBookmark.read(from: file) == nil {
      // A first launch: what is in the store now, the app fetches anyway.
      try? HistoryBookmark(token: coordinator.currentPersistentHistoryToken(fromStores: nil), date: Date()).write(to: file)
    }
    let token = NotificationCenter.default.addObserver(
      forName: .NSPersistentStoreRemoteChange, object: coordinator, queue: nil
    ) { [weak self] _ in
      // Posted on a private queue, for every write: another process's, and ours too.
      self?.mergeHistoryInBackground()
    }
    remoteChangeObserver.withLock { $0 = ObserverToken(token: token) }
  }

  /// Reads the history written since this process's bookmark and merges other processes' transactions
  /// into the writer and the main context; then, if this process purges, deletes the history every reader
  /// has read (whether or not there was anything new). Runs on the writer's queue; returns once the main
  /// context has merged.
  ///
  /// The controller calls it on every remote change notification. Call it yourself when the app comes
  /// back to the foreground, for changes made while it was suspended.
  ///
  /// - Throws: ``PersistenceControllerError/historyNotMerged(_:)`` when history cannot be read (nothing
  ///   was merged, the bookmark stays where it was, and the next call tries again).
  @discardableResult
  public func mergeHistory() async throws(PersistenceControllerError) -> HistoryMerge {
    guard let sharing else { return HistoryMerge() }
    let privateContext = privateContext
    let merge: Result<HistoryMerge, PersistenceControllerError> = await privateContext.perform { [self] in
      Result { () throws(PersistenceControllerError) in
        do {
          return try readHistory(sharing)
        } catch {
          throw .historyNotMerged(error as NSError)
        }
      }
    }
    // The writer's queue has queued the main context's merges before returning: wait for them.
    await mainContext.perform {}
    return try merge.get()
  }

  /// ``mergeHistory()`` without waiting; its outcome goes to the delegate.
  func mergeHistoryInBackground() {
    Task {
      let result: Result<HistoryMerge, PersistenceControllerError>
      do throws(PersistenceControllerError) {
        result = .success(try await mergeHistory())
      } catch {
        result = .failure(error)
      }
      await MainActor.run { delegate?.persistenceController(self, didMergeHistory: result) }
    }
  }

  /// The merge itself, on the writer's queue.
  private func readHistory(_ sharing: StoreSharing) throws -> HistoryMerge {
    let file = bookmarkFile(of: sharing.author)
    let bookmark = HistoryBookmark.read(from: file)
    // 1. Everything after the bookmark, oldest first.
    let request = NSPersistentHistoryChangeRequest.fetchHistory(after: bookmark?.historyToken)
    let result = try privateContext.execute(request) as? NSPersistentHistoryResult
    let transactions = result?.result as? [NSPersistentHistoryTransaction] ?? []
    var merge = HistoryMerge()
    merge.transactionsRead = transactions.count

    // 2. Other processes' transactions only: our own saves are in our contexts already.
    let mainContext = mainContext
    for transaction in transactions {
      guard transaction.author != sharing.author else {
        merge.ownTransactionsSkipped += 1
        continue
      }
      if let author = transaction.author, !merge.authorsMerged.contains(author) { merge.authorsMerged.append(author) }
      let changes = ChangedIDs(transaction)
      merge.inserted += changes.inserted.count
      merge.updated += changes.updated.count
      merge.deleted += changes.deleted.count
      // The writer first, so that the main context's refreshed objects read the new values through it.
      NSManagedObjectContext.mergeChanges(fromRemoteContextSave: changes.userInfo, into: [privateContext])
      mainContext.perform { NSManagedObjectContext.mergeChanges(fromRemoteContextSave: changes.userInfo, into: [mainContext]) }
    }

    // 3. Move the bookmark past what was read, so the next merge starts after it.
    if let last = transactions.last {
      try HistoryBookmark(token: last.token, date: last.timestamp).write(to: file)
    }

    // 4. The one process that purges deletes what every reader has read (and what is too old to wait for),
    // even when there was nothing new to merge: another reader may have moved on.
    if sharing.purgesHistory {
      merge.transactionsPurged = try purgeHistory(olderThan: sharing.historyLimit)
    }
    return merge
  }

  /// Deletes the transactions saved before the oldest bookmark of all readers, or before `limit` ago when
  /// that is later. Returns how many went.
  private func purgeHistory(olderThan limit: TimeInterval) throws -> Int {
    let files = (try? FileManager.default.contentsOfDirectory(at: bookmarkFolder, includingPropertiesForKeys: nil)) ?? []
    let readUpTo = files.compactMap { HistoryBookmark.read(from: $0)?.date }.min() ?? Date()
    let cutoff = max(readUpTo, Date(timeIntervalSinceNow: -limit))
    let purge = NSPersistentHistoryChangeRequest.deleteHistory(before: cutoff)
    purge.resultType = .count
    let result = try privateContext.execute(purge) as? NSPersistentHistoryResult
    return result?.result as? Int ?? 0
  }
}
