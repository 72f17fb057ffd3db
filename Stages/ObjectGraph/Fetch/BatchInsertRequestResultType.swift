import Foundation

/// What an ``NSBatchInsertResult`` holds.
public enum NSBatchInsertRequestResultType: Sendable, Hashable {
  /// `true` when the rows were inserted.
  case statusOnly
  /// The new rows' IDs, in the order of the dictionaries.
  case objectIDs
  /// How many rows were inserted.
  case count
}
