import Foundation

/// Told what changed in an ``NSFetchedResultsController``'s results (Core Data's
/// `NSFetchedResultsControllerDelegate`, with its signatures). Every method has a default, so implement the
/// ones you use. The change methods are called on the context's queue, in this order:
/// `controllerWillChangeContent`, the section changes, the object changes (deletes, inserts, moves,
/// updates), `controllerDidChangeContent`.
///
/// ```swift
/// final class NotesScreen: NSObject, NSFetchedResultsControllerDelegate {
///   func controller(
///     _ controller: NSFetchedResultsController<NSFetchRequestResult>, didChange anObject: Any,
///     at indexPath: IndexPath?, for type: NSFetchedResultsChangeType, newIndexPath: IndexPath?
///   ) {
///     switch type {
///     case .insert: insertRow(at: newIndexPath!)
///     case .delete: deleteRow(at: indexPath!)
///     case .move: moveRow(from: indexPath!, to: newIndexPath!)
///     case .update: reloadRow(at: indexPath!, showing: anObject as! Note)
///     @unknown default: break
///     }
///   }
/// }
/// ```
///
/// `controller` is the controller as `NSFetchedResultsController<any NSFetchRequestResult>` (write it
/// with or without `any`): the same results as the controller you made, and equal to it with `==` (see
/// ``NSFetchedResultsController``). The UIKit and AppKit methods that hand a diffable data source
/// snapshot or a `CollectionDifference` (`controller(_:didChangeContentWith:)`) are not here yet.
public protocol NSFetchedResultsControllerDelegate: NSObjectProtocol {
  /// Changes are about to be reported.
  func controllerWillChangeContent(_ controller: NSFetchedResultsController<any NSFetchRequestResult>)
  /// An object was inserted (`newIndexPath`), deleted (`indexPath`), moved (both) or updated in place
  /// (`indexPath`). Index paths before the change refer to the old results, after it to the new.
  /// `anObject` is the managed object (`anObject as? Note`).
  func controller(
    _ controller: NSFetchedResultsController<any NSFetchRequestResult>, didChange anObject: Any,
    at indexPath: IndexPath?, for type: NSFetchedResultsChangeType, newIndexPath: IndexPath?)
  /// A section was inserted or deleted (a deleted section's info holds no objects).
  func controller(
    _ controller: NSFetchedResultsController<any NSFetchRequestResult>,
    didChange sectionInfo: any NSFetchedResultsSectionInfo, atSectionIndex sectionIndex: Int,
    for type: NSFetchedResultsChangeType)
  /// All changes of this round have been reported.
  func controllerDidChangeContent(_ controller: NSFetchedResultsController<any NSFetchRequestResult>)
  /// The index title of the section named `sectionName`, asked when the results are fetched (and fetched
  /// again after a change). The default asks the controller's
  /// ``NSFetchedResultsController/sectionIndexTitle(forSectionName:)``: the name's first letter, capitalized.
  func controller(
    _ controller: NSFetchedResultsController<any NSFetchRequestResult>,
    sectionIndexTitleForSectionName sectionName: String
  ) -> String?
}

extension NSFetchedResultsControllerDelegate {
  /// Does nothing.
  public func controllerWillChangeContent(_ controller: NSFetchedResultsController<any NSFetchRequestResult>) {}
  /// Does nothing.
  public func controller(
    _ controller: NSFetchedResultsController<any NSFetchRequestResult>, didChange anObject: Any,
    at indexPath: IndexPath?, for type: NSFetchedResultsChangeType, newIndexPath: IndexPath?
  ) {}
  /// Does nothing.
  public func controller(
    _ controller: NSFetchedResultsController<any NSFetchRequestResult>,
    didChange sectionInfo: any NSFetchedResultsSectionInfo, atSectionIndex sectionIndex: Int,
    for type: NSFetchedResultsChangeType
  ) {}
  /// Does nothing.
  public func controllerDidChangeContent(_ controller: NSFetchedResultsController<any NSFetchRequestResult>) {}
  /// Asks the controller: ``NSFetchedResultsController/sectionIndexTitle(forSectionName:)``.
  public func controller(
    _ controller: NSFetchedResultsController<any NSFetchRequestResult>,
    sectionIndexTitleForSectionName sectionName: String
  ) -> String? {
    controller.sectionIndexTitle(forSectionName: sectionName)
  }
}
