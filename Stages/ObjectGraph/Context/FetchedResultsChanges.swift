import Foundation

/// What happened to an object or a section of a ``FetchedResultsController`` (Core Data's
/// `NSFetchedResultsChangeType`).
public enum FetchedResultsChangeType: Sendable, Hashable {
  /// It came into the results.
  case insert
  /// It left the results.
  case delete
  /// It changed and now sits at another index path.
  case move
  /// It changed and stays where it was.
  case update
}

/// One section of a ``FetchedResultsController``'s results (Core Data's `NSFetchedResultsSectionInfo`).
public struct FetchedResultsSection {
  /// The section's name: the objects' value at the section key path, as text (`""` for `nil`).
  public let name: String
  /// The section's index title: the name's first letter, capitalized (`nil` for an empty name).
  public let indexTitle: String?
  /// The section's objects, in order.
  public let objects: [ManagedObject]
  /// How many objects the section holds.
  public var numberOfObjects: Int { objects.count }
}

/// Told what changed in a ``FetchedResultsController``'s results (Core Data's
/// `NSFetchedResultsControllerDelegate`). Every method has an empty default, so implement the ones you use.
/// They are called on the context's queue, in this order: `controllerWillChangeContent`, the section
/// changes, the object changes (deletes, inserts, moves, updates), `controllerDidChangeContent`.
public protocol FetchedResultsControllerDelegate: AnyObject {
  /// Changes are about to be reported.
  func controllerWillChangeContent(_ controller: AnyFetchedResultsController)
  /// An object was inserted (`newIndexPath`), deleted (`indexPath`), moved (both) or updated in place
  /// (`indexPath`). Index paths before the change refer to the old results, after it to the new.
  func controller(
    _ controller: AnyFetchedResultsController, didChange object: ManagedObject, at indexPath: IndexPath?,
    for type: FetchedResultsChangeType, newIndexPath: IndexPath?)
  /// A section was inserted or deleted.
  func controller(
    _ controller: AnyFetchedResultsController, didChange section: FetchedResultsSection, atSectionIndex sectionIndex: Int,
    for type: FetchedResultsChangeType)
  /// All changes of this round have been reported.
  func controllerDidChangeContent(_ controller: AnyFetchedResultsController)
}

extension FetchedResultsControllerDelegate {
  /// Does nothing.
  public func controllerWillChangeContent(_ controller: AnyFetchedResultsController) {}
  /// Does nothing.
  public func controller(
    _ controller: AnyFetchedResultsController, didChange object: ManagedObject, at indexPath: IndexPath?,
    for type: FetchedResultsChangeType, newIndexPath: IndexPath?
  ) {}
  /// Does nothing.
  public func controller(
    _ controller: AnyFetchedResultsController, didChange section: FetchedResultsSection, atSectionIndex sectionIndex: Int,
    for type: FetchedResultsChangeType
  ) {}
  /// Does nothing.
  public func controllerDidChangeContent(_ controller: AnyFetchedResultsController) {}
}
