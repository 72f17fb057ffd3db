import Foundation

/// What an ``NSBatchInsertResult`` holds (with its raw values).
public enum NSBatchInsertRequestResultType: UInt, Sendable, Hashable {
  /// `true` when the rows were inserted.
  case statusOnly = 0x0
  /// The new rows' IDs, in the order of the dictionaries.
  case objectIDs = 0x1
  /// How many rows were inserted.
  case count = 0x2
}
