import Foundation

/// One object's change in a transaction.
public struct NSPersistentHistoryChange: Sendable, Hashable {
  /// The change's number, increasing through the store's history.
  public let changeID: Int64
  /// The object that changed.
  public let changedObjectID: NSManagedObjectID
  /// How it changed.
  public let changeType: NSPersistentHistoryChangeType
  /// For an update, the names of the properties it changed (Core Data gives their descriptions);
  /// `nil` otherwise.
  public let updatedProperties: Set<String>?
}
