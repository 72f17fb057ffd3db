import Foundation

/// One transaction of a store's persistent history, as the store reads it back.
struct StoreHistoryTransaction {
  /// The transaction's number in its store: increasing, never reused.
  let number: Int64
  let storeIdentifier: String
  let timestamp: Date
  let author: String?
  let contextName: String?
  let changes: [StoreHistoryChange]
}

/// One object's change in a transaction.
struct StoreHistoryChange {
  enum Kind: Int64 {
    case insert = 1
    case update = 2
    case delete = 3
  }

  let number: Int64
  let kind: Kind
  let objectID: ManagedObjectID
  /// For an update, the names of the properties it changed.
  let updatedProperties: Set<String>?
}

/// A change about to be recorded: which row, how, and for an update which properties.
struct StoreHistoryEntry {
  let kind: StoreHistoryChange.Kind
  let entityNumber: Int64
  let primaryKey: Int64
  let properties: [String]?
}

/// Which history to read or delete: after (or up to) a transaction number, or a date.
enum StoreHistoryBound {
  case all
  case transaction(Int64)
  case date(Date)
}
