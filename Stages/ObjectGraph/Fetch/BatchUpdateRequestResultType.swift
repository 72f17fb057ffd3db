import Foundation

/// What an ``NSBatchUpdateResult`` holds.
public enum NSBatchUpdateRequestResultType: Sendable, Hashable {
  /// `true` when the update ran.
  case statusOnlyResultType
  /// The IDs of the rows changed.
  case updatedObjectIDsResultType
  /// How many rows changed.
  case updatedObjectsCountResultType
}
