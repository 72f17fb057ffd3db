import Foundation

/// What a history request returns (with its raw values).
public enum NSPersistentHistoryResultType: Int, Sendable, Hashable {
  /// `true` when the request ran.
  case statusOnly = 0x0
  /// The IDs of the objects the transactions changed (`[NSManagedObjectID]`, each once, in the order of
  /// their first change).
  case objectIDs = 0x1
  /// How many transactions it read or deleted.
  case count = 0x2
  /// The transactions, without their changes.
  case transactionsOnly = 0x3
  /// The changes, without their transactions.
  case changesOnly = 0x4
  /// The transactions with their changes (the default).
  case transactionsAndChanges = 0x5
}
