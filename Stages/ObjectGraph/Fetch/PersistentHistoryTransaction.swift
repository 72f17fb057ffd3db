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
