import Foundation

/// One object's change in a transaction (Core Data's `NSPersistentHistoryChange`).
public struct PersistentHistoryChange: Sendable, Hashable {
  /// The change's number, increasing through the store's history.
  public let changeID: Int64
  /// The object that changed.
  public let changedObjectID: ManagedObjectID
  /// How it changed.
  public let changeType: PersistentHistoryChangeType
  /// For an update, the names of the properties it changed (Core Data gives their descriptions);
  /// `nil` otherwise.
  public let updatedProperties: Set<String>?
}
