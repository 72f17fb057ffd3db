import Foundation

/// What happened to an object or a section of an ``NSFetchedResultsController`` (Core Data's
/// `NSFetchedResultsChangeType`, with its raw values).
public enum NSFetchedResultsChangeType: UInt, Sendable, Hashable {
  /// It came into the results.
  case insert = 1
  /// It left the results.
  case delete = 2
  /// It changed and now sits at another index path.
  case move = 3
  /// It changed and stays where it was.
  case update = 4
}
