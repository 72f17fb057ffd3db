import Foundation

/// What an ``NSBatchDeleteResult`` holds (with its raw values).
public enum NSBatchDeleteRequestResultType: UInt, Sendable, Hashable {
  /// `true` when the delete ran.
  case resultTypeStatusOnly = 0x0
  /// The IDs of the rows deleted, those the delete rules took along included.
  case resultTypeObjectIDs = 0x1
  /// How many rows were deleted, those the delete rules took along included.
  case resultTypeCount = 0x2
}
