import Foundation

/// What a ``BatchInsertResult`` holds.
public enum BatchInsertRequestResultType: Sendable, Hashable {
  /// `true` when the rows were inserted.
  case statusOnly
  /// The new rows' IDs, in the order of the dictionaries.
  case objectIDs
  /// How many rows were inserted.
  case count
}
