import Foundation

/// What happened to an object or a section of an ``NSFetchedResultsController`` (Core Data's
/// `NSFetchedResultsChangeType`).
public enum NSFetchedResultsChangeType: Sendable, Hashable {
  /// It came into the results.
  case insert
  /// It left the results.
  case delete
  /// It changed and now sits at another index path.
  case move
  /// It changed and stays where it was.
  case update
}
