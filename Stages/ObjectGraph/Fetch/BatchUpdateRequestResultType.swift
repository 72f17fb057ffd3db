import Foundation

/// What a ``BatchUpdateResult`` holds.
public enum BatchUpdateRequestResultType: Sendable, Hashable {
  /// `true` when the update ran.
  case statusOnlyResultType
  /// The IDs of the rows changed.
  case updatedObjectIDsResultType
  /// How many rows changed.
  case updatedObjectsCountResultType
}
