import Foundation

/// What happened to an object in a transaction (Core Data's `NSPersistentHistoryChangeType`).
public enum NSPersistentHistoryChangeType: Sendable, Hashable {
  case insert
  case update
  case delete
}
