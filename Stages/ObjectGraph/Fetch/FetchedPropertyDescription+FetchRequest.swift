import Foundation

/// The fetch request of a fetched property, as Core Data's `NSFetchedPropertyDescription.fetchRequest`.
///
/// ```swift
/// var recent = NSFetchedPropertyDescription()
/// recent.name = "recentNotes"
/// let request = NSFetchRequest<any NSFetchRequestResult>(entityName: "Note")
/// request.predicate = NSPredicate(format: "author == $FETCH_SOURCE AND createdAt > $FETCH_SOURCE.lastVisit")
/// request.sortDescriptors = [NSSortDescriptor(key: "createdAt", ascending: false)]
/// recent.fetchRequest = request
/// author.fetchedProperties = [recent]
/// ```
extension NSFetchedPropertyDescription {
  /// The request the property runs, each time a new `NSFetchRequest` (Core Data's `fetchRequest`); `nil`
  /// when it has none.
  ///
  /// The description keeps a copy of the request as it is set: its entity, predicate (with its `$FETCH_SOURCE`
  /// and `$FETCHED_PROPERTY` variables), sort descriptors, limits, batch size, offset, result type and flags, as
  /// a fetch request template keeps them (``NSManagedObjectModel/setFetchRequestTemplate(_:forName:)``).
  /// Changing the request returned changes nothing until it is set again (Core Data hands out its own object);
  /// the description is a value, so assign it back to the entity's ``NSEntityDescription/fetchedProperties``.
  /// A predicate the engine cannot run is kept as its error, which reading the property reports.
  public var fetchRequest: NSFetchRequest<any NSFetchRequestResult>? {
    get { request.map(NSManagedObjectModel.request(of:)) }
    set { request = newValue.map { NSManagedObjectModel.template(of: $0)(name) } }
  }

  /// Sets ``fetchRequest`` from a request of a managed object class or another result type
  /// (`NSFetchRequest<Note>`), which Core Data's Objective-C generics let pass as
  /// `NSFetchRequest<NSFetchRequestResult>`; Swift on Linux cannot convert one generic class to the other.
  public mutating func setFetchRequest<Result>(_ fetchRequest: NSFetchRequest<Result>?) {
    request = fetchRequest.map { NSManagedObjectModel.template(of: $0)(name) }
  }
}
