import Foundation

/// A change about to be recorded: which row, how, and for an update which properties.
struct StoreHistoryEntry {
  let kind: StoreHistoryChange.Kind
  let entityNumber: Int64
  let primaryKey: Int64
  let properties: [String]?
  /// For a delete, the values its entity preserves after deletion, encoded (``HistoryTombstone``).
  var tombstone: Data? = nil
}
