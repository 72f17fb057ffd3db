import Foundation

/// How a controller shares its store file with other processes: an app and its extensions (a share
/// extension, a widget), each with a stack of its own on the one file.
///
/// With it, the controller adds the store with persistent history and remote change notifications on,
/// signs its saves with ``author``, and, whenever another process writes, merges that process's
/// transactions into the main context (see ``PersistenceController/mergeHistory()``).
///
/// ```swift
/// // The app: it reads what its extension saved, and it alone purges history.
/// let app = PersistenceController(storeFolder: shared, sharing: StoreSharing(author: "app", purgesHistory: true)) { … }
/// // The share extension, in its own process, on the same folder.
/// let share = PersistenceController(storeFolder: shared, sharing: StoreSharing(author: "share-extension")) { … }
/// ```
public struct StoreSharing: Sendable {
  /// The name this process's saves carry in the store's history (its contexts' `transactionAuthor`):
  /// how every reader tells its own transactions from the others'. Unique per process sharing the store.
  public var author: String

  /// Whether this process deletes the history every reader has read. Exactly one of the processes
  /// sharing a store should: the app, which runs most often.
  public var purgesHistory: Bool

  /// History older than this is deleted by the process that purges, even if a reader never read it (an
  /// extension that has not run for that long fetches what it shows anyway). A week by default.
  public var historyLimit: TimeInterval

  /// Sharing as `author`; `purgesHistory` for the one process that cleans up.
  public init(author: String, purgesHistory: Bool = false, historyLimit: TimeInterval = 7 * 24 * 60 * 60) {
    self.author = author
    self.purgesHistory = purgesHistory
    self.historyLimit = historyLimit
  }
}

/// What one ``PersistenceController/mergeHistory()`` did: the transactions it read after the bookmark,
/// those it skipped as this process's own, and what it merged and purged.
public struct HistoryMerge: Sendable, Equatable {
  /// Transactions in history after this process's bookmark.
  public var transactionsRead = 0
  /// Of those, the ones this process saved itself (its ``StoreSharing/author``): skipped, as the main
  /// context has their changes already.
  public var ownTransactionsSkipped = 0
  /// The authors of the transactions merged, each once, in the order first met ("share-extension").
  public var authorsMerged: [String] = []
  /// Objects the merged transactions inserted, updated and deleted.
  public var inserted = 0
  public var updated = 0
  public var deleted = 0
  /// Transactions deleted from history by this merge's purge (0 when this process does not purge).
  public var transactionsPurged = 0

  /// A merge of nothing.
  public init() {}
}
