import Foundation

/// One save (or batch request) written to a store, with who made it and what it changed (Core Data's
/// `NSPersistentHistoryTransaction`).
public struct NSPersistentHistoryTransaction: Sendable {
  /// When it was written.
  public let timestamp: Date
  /// The saving context's ``NSManagedObjectContext/transactionAuthor``.
  public let author: String?
  /// The saving context's ``NSManagedObjectContext/name``.
  public let contextName: String?
  /// The bundle identifier of the program that wrote it (`Bundle.main.bundleIdentifier`), or, as a program on
  /// Linux usually has none, the program's name (`ProcessInfo.processInfo.processName`). Empty for a
  /// transaction an earlier version of the engine recorded.
  public let bundleID: String
  /// The ID of the process that wrote it, in decimal (`ProcessInfo.processInfo.processIdentifier`): which of
  /// an app's processes saved (Core Data does not say what the string holds). Empty for a transaction an
  /// earlier version of the engine recorded.
  public let processID: String
  /// The store it was written to.
  public let storeID: String
  /// Its number in its store's history: increasing, never reused.
  public let transactionNumber: Int64
  /// Where a reader is once it has processed this transaction and the ones before it in the same
  /// result: every store's position, this transaction's store at this transaction. Keep the token of
  /// the last transaction you processed and fetch the history after it: each store is read after its
  /// own position, so no store's later transactions are missed.
  public let token: NSPersistentHistoryToken
  /// What it changed (`nil` when the request asked for transactions only).
  public let changes: [NSPersistentHistoryChange]?
}
