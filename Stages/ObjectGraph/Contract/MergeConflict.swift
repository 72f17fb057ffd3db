import Foundation

/// One object whose save collided with a change made elsewhere, as reported by a merge-conflict error.
public struct MergeConflict: Sendable, CustomStringConvertible {
  /// The object in conflict.
  public let objectID: NSManagedObjectID
  /// The properties this context changed that the store also changed (or all changed keys when the row
  /// was deleted).
  public let conflictingKeys: [String]
  /// The row version (`Z_OPT`) this context last read.
  public let oldVersion: Int64
  /// The row version now in the store; `0` when the row was deleted.
  public let newVersion: Int64

  public var description: String {
    newVersion == 0
      ? "\(objectID) was deleted in the store since it was read (changed here: \(conflictingKeys.joined(separator: ", ")))"
      : "\(objectID) changed in the store (version \(oldVersion) -> \(newVersion)); keys changed here: \(conflictingKeys.joined(separator: ", "))"
  }
}
