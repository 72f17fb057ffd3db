import Foundation

/// One section of a fetched results controller's results, as ``NSFetchedResultsController/sections`` and
/// the delegate hand it out. A class, so that handing it out as `any NSFetchedResultsSectionInfo` boxes
/// nothing and its `objects` are made once per round of changes, not on each read.
final class FetchedResultsSection: NSFetchedResultsSectionInfo {
  let name: String
  let indexTitle: String?
  /// The section's objects, in order, as the controller works with them.
  let members: [NSManagedObject]
  let objects: [Any]?
  var numberOfObjects: Int { members.count }

  init(name: String, indexTitle: String?, members: [NSManagedObject]) {
    self.name = name
    self.indexTitle = indexTitle
    self.members = members
    objects = members
  }
}
