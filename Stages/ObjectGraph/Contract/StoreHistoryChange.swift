import Foundation

/// One object's change in a transaction.
struct StoreHistoryChange {
  enum Kind: Int64 {
    case insert = 1
    case update = 2
    case delete = 3
  }

  let number: Int64
  let kind: Kind
  let objectID: NSManagedObjectID
  /// For an update, the names of the properties it changed.
  let updatedProperties: Set<String>?
  /// For a delete, the values its entity preserves after deletion (``HistoryTombstone``).
  var tombstone: [String: any Sendable]? = nil
}
