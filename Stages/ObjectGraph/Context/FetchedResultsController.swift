import Foundation

/// A ``AnyFetchedResultsController`` whose objects are `Result`s: what you make.
public final class NSFetchedResultsController<Result: NSManagedObject>: AnyFetchedResultsController {
  /// The request whose results are kept. Change its predicate or sort and call ``AnyFetchedResultsController/performFetch()`` again
  /// to apply them (Core Data's rule).
  public let fetchRequest: NSFetchRequest<Result>

  /// Makes a controller; nothing is fetched until ``AnyFetchedResultsController/performFetch()``.
  ///
  /// - Parameters:
  ///   - fetchRequest: the request whose results the controller keeps; it must sort (first by the section
  ///     key path, when there is one).
  ///   - managedObjectContext: the context it fetches in and watches for changes.
  ///   - sectionNameKeyPath: the key path (through to-one relationships) whose value names each object's
  ///     section; the request must sort by it first. `nil` for one section.
  ///   - cacheName: accepted for ported code; there is no section cache.
  public init(
    fetchRequest: NSFetchRequest<Result>, managedObjectContext: NSManagedObjectContext, sectionNameKeyPath: String?,
    cacheName: String?
  ) {
    self.fetchRequest = fetchRequest
    super.init(
      context: managedObjectContext, entityName: fetchRequest.entityName, sectionNameKeyPath: sectionNameKeyPath,
      cacheName: cacheName,
      checkRequest: {
        guard !(fetchRequest.sortDescriptors ?? []).isEmpty else {
          throw ObjectGraphError(
            .invalidValue,
            "A fetched results controller needs a request with sort descriptors (Core Data requires them too): the order of the rows is the order of the list. Set fetchRequest.sortDescriptors, starting with the section key path when there is one."
          )
        }
        guard fetchRequest.resultType == .managedObjectResultType else {
          throw ObjectGraphError(
            .invalidValue,
            "A fetched results controller keeps managed objects; its request's resultType must be .managedObjectResultType.")
        }
      },
      fetch: { try managedObjectContext.fetch(fetchRequest) })
  }

  /// The results, in order across the sections; `nil` before ``AnyFetchedResultsController/performFetch()``.
  public var fetchedObjects: [Result]? {
    sections.map { $0.flatMap { $0.objects.compactMap { $0 as? Result } } }
  }

  /// The object at an index path.
  /// - Throws: ``ObjectGraphInvalidValueError`` for an index path outside the results.
  public func object(at indexPath: IndexPath) throws -> Result {
    let object = try anyObject(at: indexPath)
    guard let typed = object as? Result else {
      throw ObjectGraphError(.invalidValue, "The object at \(indexPath) is a \(type(of: object)), not a \(Result.self).")
    }
    return typed
  }
}
