import Foundation

/// One save (or batch request) written to a store, with who made it and what it changed (Core Data's
/// `NSPersistentHistoryTransaction`).
public struct PersistentHistoryTransaction: Sendable {
  /// When it was written.
  public let timestamp: Date
  /// The saving context's ``ManagedObjectContext/transactionAuthor``.
  public let author: String?
  /// The saving context's ``ManagedObjectContext/name``.
  public let contextName: String?
  /// The store it was written to.
  public let storeID: String
  /// Its place in the store's history.
  public let token: PersistentHistoryToken
  /// Its number in the store's history.
  public var transactionNumber: Int64 { token.transactionNumber }
  /// What it changed (`nil` when the request asked for transactions only).
  public let changes: [PersistentHistoryChange]?
}
