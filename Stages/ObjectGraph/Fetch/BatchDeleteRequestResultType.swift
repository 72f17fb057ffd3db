import Foundation

/// What an ``NSBatchDeleteResult`` holds.
public enum NSBatchDeleteRequestResultType: Sendable, Hashable {
  /// `true` when the delete ran.
  case resultTypeStatusOnly
  /// The IDs of the rows deleted, those the delete rules took along included.
  case resultTypeObjectIDs
  /// How many rows were deleted, those the delete rules took along included.
  case resultTypeCount
}
