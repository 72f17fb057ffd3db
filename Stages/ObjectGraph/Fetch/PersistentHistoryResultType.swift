import Foundation

/// What a history request returns (Core Data's `NSPersistentHistoryResultType`).
public enum NSPersistentHistoryResultType: Sendable, Hashable {
  /// `true` when the request ran.
  case statusOnly
  /// How many transactions it read or deleted.
  case count
  /// The transactions, without their changes.
  case transactionsOnly
  /// The changes, without their transactions.
  case changesOnly
  /// The transactions with their changes (the default).
  case transactionsAndChanges
}
