import Foundation

/// What an ``NSBatchUpdateResult`` holds (with its raw values).
public enum NSBatchUpdateRequestResultType: UInt, Sendable, Hashable {
  /// `true` when the update ran.
  case statusOnlyResultType = 0x0
  /// The IDs of the rows changed.
  case updatedObjectIDsResultType = 0x1
  /// How many rows changed.
  case updatedObjectsCountResultType = 0x2
}
