import Foundation

/// One object whose save collided with a change made elsewhere, as a store reports it: by object ID, so the
/// record crosses queues with its error. The context that saved turns it into an ``NSMergeConflict`` (which
/// holds the object) before the error reaches the app.
struct StoreMergeConflict: Sendable, CustomStringConvertible {
  /// The object in conflict.
  let objectID: NSManagedObjectID
  /// The properties this context changed that the store also changed (or all changed keys when the row
  /// was deleted).
  let conflictingKeys: [String]
  /// The row version (`Z_OPT`) this context last read.
  let oldVersion: Int64
  /// The row version now in the store; `0` when the row was deleted.
  let newVersion: Int64

  var description: String {
    newVersion == 0
      ? "\(objectID) was deleted in the store since it was read (changed here: \(conflictingKeys.joined(separator: ", ")))"
      : "\(objectID) changed in the store (version \(oldVersion) -> \(newVersion)); keys changed here: \(conflictingKeys.joined(separator: ", "))"
  }
}
