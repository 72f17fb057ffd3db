import Foundation

/// One transaction of a store's persistent history, as the store reads it back.
struct StoreHistoryTransaction {
  /// The transaction's number in its store: increasing, never reused.
  let number: Int64
  let storeIdentifier: String
  let timestamp: Date
  let author: String?
  let contextName: String?
  /// The writing program's bundle identifier, or its name (`""` for a transaction recorded before it was kept).
  let bundleID: String
  /// The writing process's ID, in decimal (`""` for a transaction recorded before it was kept).
  let processID: String
  let changes: [StoreHistoryChange]
}
