import Foundation

/// What happened to an object in a transaction (with its raw
/// values).
public enum NSPersistentHistoryChangeType: Int, Sendable, Hashable {
  /// The object was inserted.
  case insert = 0
  /// The object was changed.
  case update = 1
  /// The object was deleted.
  case delete = 2
}
