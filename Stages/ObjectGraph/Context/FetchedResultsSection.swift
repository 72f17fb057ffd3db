import Foundation

/// One section of an ``NSFetchedResultsController``'s results (Core Data's `NSFetchedResultsSectionInfo`).
public struct FetchedResultsSection {
  /// The section's name: the objects' value at the section key path, as text (`""` for `nil`).
  public let name: String
  /// The section's index title: the name's first letter, capitalized (`nil` for an empty name).
  public let indexTitle: String?
  /// The section's objects, in order.
  public let objects: [NSManagedObject]
  /// How many objects the section holds.
  public var numberOfObjects: Int { objects.count }
}
