import Foundation

/// Told what changed in an ``NSFetchedResultsController``'s results (Core Data's
/// `NSFetchedResultsControllerDelegate`). Every method has an empty default, so implement the ones you use.
/// They are called on the context's queue, in this order: `controllerWillChangeContent`, the section
/// changes, the object changes (deletes, inserts, moves, updates), `controllerDidChangeContent`.
public protocol NSFetchedResultsControllerDelegate: AnyObject {
  /// Changes are about to be reported.
  func controllerWillChangeContent(_ controller: AnyFetchedResultsController)
  /// An object was inserted (`newIndexPath`), deleted (`indexPath`), moved (both) or updated in place
  /// (`indexPath`). Index paths before the change refer to the old results, after it to the new.
  func controller(
    _ controller: AnyFetchedResultsController, didChange object: NSManagedObject, at indexPath: IndexPath?,
    for type: NSFetchedResultsChangeType, newIndexPath: IndexPath?)
  /// A section was inserted or deleted.
  func controller(
    _ controller: AnyFetchedResultsController, didChange section: FetchedResultsSection, atSectionIndex sectionIndex: Int,
    for type: NSFetchedResultsChangeType)
  /// All changes of this round have been reported.
  func controllerDidChangeContent(_ controller: AnyFetchedResultsController)
}

extension NSFetchedResultsControllerDelegate {
  /// Does nothing.
  public func controllerWillChangeContent(_ controller: AnyFetchedResultsController) {}
  /// Does nothing.
  public func controller(
    _ controller: AnyFetchedResultsController, didChange object: NSManagedObject, at indexPath: IndexPath?,
    for type: NSFetchedResultsChangeType, newIndexPath: IndexPath?
  ) {}
  /// Does nothing.
  public func controller(
    _ controller: AnyFetchedResultsController, didChange section: FetchedResultsSection, atSectionIndex sectionIndex: Int,
    for type: NSFetchedResultsChangeType
  ) {}
  /// Does nothing.
  public func controllerDidChangeContent(_ controller: AnyFetchedResultsController) {}
}
