import Foundation

/// A change about to be recorded: which row, how, and for an update which properties.
struct StoreHistoryEntry {
  let kind: StoreHistoryChange.Kind
  let entityNumber: Int64
  let primaryKey: Int64
  let properties: [String]?
}
