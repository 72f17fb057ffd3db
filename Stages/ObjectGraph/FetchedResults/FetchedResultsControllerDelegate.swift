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
/// ``NSFetchedResultsController``).
///
/// A delegate of a controller without sections may take each round of changes as one
/// `CollectionDifference<NSManagedObjectID>` instead (``controller(_:didChangeContentWith:)``); when it
/// implements that method, the controller calls no other change method, as Core Data documents. The
/// variant handing a diffable data source snapshot is UIKit's and AppKit's, not here.
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
  /// A round of changes as the difference between the results' object IDs before and after it (Core
  /// Data's `controller(_:didChangeContentWith:)` taking a `CollectionDifference<NSManagedObjectID>`).
  ///
  /// Called only when the controller has no ``NSFetchedResultsController/sectionNameKeyPath``. When a
  /// delegate implements it, no other change method is called (Core Data's rule): apply the difference
  /// to your list. Moves are inferred (`inferringMoves()`), so an object that changed place is one
  /// removal and one insertion associated with each other. An object updated in place is not in a
  /// difference: a round in which objects only changed their values hands an empty one, so that you can
  /// redraw what you show of them.
  func controller(
    _ controller: NSFetchedResultsController<any NSFetchRequestResult>,
    didChangeContentWith diff: CollectionDifference<NSManagedObjectID>)
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
  /// Not implemented: the controller sees this default run and calls the other change methods instead.
  public func controller(
    _ controller: NSFetchedResultsController<any NSFetchRequestResult>,
    didChangeContentWith diff: CollectionDifference<NSManagedObjectID>
  ) {
    DifferenceDelegateDefault.ran()
  }
  /// Asks the controller: ``NSFetchedResultsController/sectionIndexTitle(forSectionName:)``.
  public func controller(
    _ controller: NSFetchedResultsController<any NSFetchRequestResult>,
    sectionIndexTitleForSectionName sectionName: String
  ) -> String? {
    controller.sectionIndexTitle(forSectionName: sectionName)
  }
}

/// How a controller tells whether its delegate implements ``NSFetchedResultsControllerDelegate/controller(_:didChangeContentWith:)``
/// (Objective-C asks `respondsToSelector:`; a Swift protocol cannot): the default implementation marks the
/// calling thread, and the controller, which calls it on that thread, looks for the mark right after.
enum DifferenceDelegateDefault {
  private static let key = "ObjectGraph.FetchedResultsController.differenceDefaultRan"

  /// Called by the default implementation.
  static func ran() { Thread.current.threadDictionary[key] = true }

  /// Calls `body` (the delegate's method) and says whether the default implementation ran in it.
  static func defaultRan(in body: () -> Void) -> Bool {
    let dictionary = Thread.current.threadDictionary
    dictionary.removeObject(forKey: key)
    body()
    defer { dictionary.removeObject(forKey: key) }
    return dictionary[key] as? Bool ?? false
  }
}
