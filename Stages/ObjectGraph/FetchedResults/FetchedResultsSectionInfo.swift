import Foundation

/// One section of an ``NSFetchedResultsController``'s results (Core Data's `NSFetchedResultsSectionInfo`):
/// what ``NSFetchedResultsController/sections`` holds and what a delegate is told of when a section comes
/// or goes.
///
/// ```swift
/// let rows = controller.sections?[section].numberOfObjects ?? 0
/// let notes = controller.sections?[0].objects as? [Note] ?? []
/// ```
public protocol NSFetchedResultsSectionInfo {
  /// The section's name: the objects' value at the controller's section key path, as text (`""` for
  /// `nil`, and for the one section of a controller without a section key path).
  var name: String { get }
  /// The section's title in a section index: what the delegate's
  /// ``NSFetchedResultsControllerDelegate/controller(_:sectionIndexTitleForSectionName:)`` or the
  /// controller's ``NSFetchedResultsController/sectionIndexTitle(forSectionName:)`` gives for its name
  /// (by default the name's first letter, capitalized; `nil` for an empty name).
  var indexTitle: String? { get }
  /// How many objects the section holds.
  var numberOfObjects: Int { get }
  /// The section's objects, in order (`objects as? [Note]` reads them typed). A deleted section's info,
  /// handed to the delegate, holds none, as Core Data's.
  var objects: [Any]? { get }
}
