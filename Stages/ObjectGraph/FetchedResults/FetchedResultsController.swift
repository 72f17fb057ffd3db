import Foundation

/// A fetch kept current: the results of a request, in sections, updated as the context changes (its own
/// edits, saves, merges from other contexts, refreshes), telling a delegate what moved where. Core Data's
/// `NSFetchedResultsController`, without UIKit: the index paths are the ones a table or list needs.
///
/// ```swift
/// let request = NSFetchRequest<Note>(entityName: "Note")
/// request.sortDescriptors = [NSSortDescriptor(key: "notebook.name", ascending: true), NSSortDescriptor(key: "title", ascending: true)]
/// let controller = NSFetchedResultsController(
///   fetchRequest: request, managedObjectContext: mainContext, sectionNameKeyPath: "notebook.name", cacheName: nil)
/// controller.delegate = listScreen
/// try controller.performFetch()
/// let rows = controller.sections?[0].numberOfObjects ?? 0
/// let first = controller.object(at: IndexPath(row: 0, section: 0))
/// ```
///
/// Use a controller on its context's queue only (the main queue for a main-queue context), as in Core
/// Data: it reads the context's objects and is told of changes there.
///
/// The delegate is handed the controller as `NSFetchedResultsController<NSFetchRequestResult>` (Core
/// Data's signature). Swift's generics do not vary, so that is not the `NSFetchedResultsController<Note>`
/// you made but a second front over the same results: its ``sections``, ``fetchedObjects``,
/// ``object(at:)``, ``indexPath(forObject:)`` and ``delegate`` are the same, it is the same object on every
/// call, and `==` between the two is `true` (`===` is not). Its ``fetchRequest`` cannot be named, as
/// ``NSFetchRequest`` needs a result type that conforms to ``NSFetchRequestResult``.
///
/// The controller keeps its results current whether or not it has a delegate (Core Data's stops
/// tracking changes without one).
open class NSFetchedResultsController<ResultType>: NSObject {
  let core: FetchedResultsCore
  /// The request, for ``fetchRequest`` (set by the public initializer; `nil` in the delegate's front,
  /// which has no ``fetchRequest``).
  private let request: AnyObject?
  /// The front the delegate is handed (`nil` in that front itself), held here as it holds nothing back.
  private let delegateView: NSFetchedResultsController<any NSFetchRequestResult>?
  /// The typed results, kept until the core's sections change.
  private var typedObjects: (generation: Int, objects: [ResultType])?

  /// Makes a controller; nothing is fetched until ``performFetch()``.
  ///
  /// - Parameters:
  ///   - fetchRequest: the request whose results the controller keeps; it must sort (first by the section
  ///     key path, when there is one).
  ///   - context: the context it fetches in and watches for changes.
  ///   - sectionNameKeyPath: the key path (through to-one relationships) whose value names each object's
  ///     section; the request must sort by it first. `nil` for one section.
  ///   - name: accepted for ported code; there is no section cache.
  public init(
    fetchRequest: NSFetchRequest<ResultType>, managedObjectContext context: NSManagedObjectContext,
    sectionNameKeyPath: String?, cacheName name: String?
  ) where ResultType: NSFetchRequestResult {
    core = FetchedResultsCore(
      context: context, entityName: fetchRequest.entityName, sectionNameKeyPath: sectionNameKeyPath, cacheName: name,
      checkRequest: { try checkControllerRequest(fetchRequest) },
      fetch: { try context.fetch(fetchRequest).compactMap { $0 as? NSManagedObject } })
    request = fetchRequest
    let view = NSFetchedResultsController<any NSFetchRequestResult>(core: core)
    delegateView = view
    super.init()
    core.delegateView = view
    core.owner = self
  }

  /// The delegate's front over `core`.
  init(core: FetchedResultsCore) {
    self.core = core
    request = nil
    delegateView = nil
    super.init()
  }

  /// The context the results come from.
  public var managedObjectContext: NSManagedObjectContext { core.managedObjectContext }
  /// The key path whose value names each object's section (`nil`: one section holding everything).
  public var sectionNameKeyPath: String? { core.sectionNameKeyPath }
  /// Core Data's name for an on-disk cache of the sections. Accepted and kept; there is no cache here
  /// (the sections are worked out from the results each time, which is fast in memory).
  public var cacheName: String? { core.cacheName }

  /// Told of each round of changes, on the context's queue. Not retained, as in Core Data. The same for
  /// the controller you made and the one the delegate is handed.
  public var delegate: (any NSFetchedResultsControllerDelegate)? {
    get { core.delegate }
    set { core.delegate = newValue }
  }

  /// The sections, in order; `nil` before ``performFetch()``.
  ///
  /// ```swift
  /// let rows = controller.sections?[section].numberOfObjects ?? 0
  /// ```
  public var sections: [any NSFetchedResultsSectionInfo]? { core.sectionInfos }

  /// The results, in order across the sections; `nil` before ``performFetch()``.
  public var fetchedObjects: [ResultType]? {
    guard let objects = core.objects else { return nil }
    if let typedObjects, typedObjects.generation == core.generation { return typedObjects.objects }
    let typed = objects.compactMap { $0 as? ResultType }
    typedObjects = (core.generation, typed)
    return typed
  }

  /// The error of the last attempt to follow a change, if it failed (the results then stay as they were;
  /// the next change or ``performFetch()`` tries again). `nil` when all is well. An ObjectGraph addition:
  /// Core Data follows changes in memory, where nothing fails.
  public var changeTrackingError: (any Error)? { core.changeTrackingError }

  /// Runs the request and starts following the context's changes.
  /// - Throws: ``ObjectGraphInvalidValueError`` for a request without sort descriptors (Core Data
  ///   requires them too) or whose order scatters a section (sort by the section key path first), and
  ///   whatever the fetch throws.
  open func performFetch() throws {
    try core.performFetch()
  }

  /// The object at an index path of the results.
  ///
  /// An index path outside the results (or a call before ``performFetch()``) is a programmer error, as in
  /// Core Data, which raises an exception, and as an index out of range of Swift's `Array`: the program
  /// stops with a message naming the index path and the number of sections and objects. Check
  /// ``sections`` first when the index path may be stale.
  open func object(at indexPath: IndexPath) -> ResultType {
    let object = core.object(at: indexPath)
    guard let typed = object as? ResultType else {
      // The core fetched these objects through this controller's typed request (or, for the delegate's
      // front, the type is `any NSFetchRequestResult`, which every managed object is): never reached.
      programmerError("ObjectGraph: the object at \(indexPath) is a \(type(of: object)), not a \(ResultType.self).")
    }
    return typed
  }

  /// The index path of `object` in the results, or `nil` when it is not among them.
  open func indexPath(forObject object: ResultType) -> IndexPath? {
    guard let object = object as? NSManagedObject else { return nil }
    return core.indexPath(forObject: object)
  }

  /// The index titles of the sections (see ``NSFetchedResultsSectionInfo/indexTitle``), each once, in order.
  open var sectionIndexTitles: [String] { core.sectionIndexTitles }

  /// The index of the first section whose index title is `title`, or `sectionIndex` when none is: what a
  /// table's section index asks when a title is tapped.
  open func section(forSectionIndexTitle title: String, at sectionIndex: Int) -> Int {
    core.section(forSectionIndexTitle: title, at: sectionIndex)
  }

  /// The index title for a section name: the name's first letter, capitalized (`nil` for an empty name).
  /// Override it in a subclass, or answer the delegate's
  /// ``NSFetchedResultsControllerDelegate/controller(_:sectionIndexTitleForSectionName:)``, for other
  /// titles; sections read it when the results are fetched.
  open func sectionIndexTitle(forSectionName sectionName: String) -> String? {
    // The delegate's front asks the controller you made, which a subclass may override.
    if let owner = core.owner, owner !== self { return owner.sectionIndexTitle(forSectionName: sectionName) }
    return FetchedResultsCore.defaultIndexTitle(forSectionName: sectionName)
  }

  /// Removes a cache of sections (Core Data's, on disk; `nil` removes all). There is none here: it does
  /// nothing, and is there for ported code.
  open class func deleteCache(withName name: String?) {}

  /// Whether `object` is a controller over the same results: the controller you made and the one its
  /// delegate is handed are equal.
  open override func isEqual(_ object: Any?) -> Bool {
    guard let other = object as? any FetchedResultsFront else { return false }
    return other.core === core
  }

  /// A hash that agrees with ``isEqual(_:)``.
  open override var hash: Int { ObjectIdentifier(core).hashValue }
}

extension NSFetchedResultsController where ResultType: NSFetchRequestResult {
  /// The request whose results are kept. Change its predicate or sort and call ``performFetch()`` again
  /// to apply them (Core Data's rule).
  public var fetchRequest: NSFetchRequest<ResultType> {
    // Only the public initializer makes a controller whose result type conforms, and it sets `request`
    // to its `NSFetchRequest<ResultType>`: never reached.
    guard let request = request as? NSFetchRequest<ResultType> else {
      programmerError("ObjectGraph: this fetched results controller was made without a fetch request.")
    }
    return request
  }
}

/// A fetched results controller of any result type, seen through its shared core (for `==`).
protocol FetchedResultsFront: AnyObject {
  var core: FetchedResultsCore { get }
}

/// What the core asks of the controller made by the public initializer.
protocol FetchedResultsOwner: AnyObject {
  func sectionIndexTitle(forSectionName sectionName: String) -> String?
}

extension NSFetchedResultsController: FetchedResultsFront, FetchedResultsOwner {}

/// Refuses a request a fetched results controller cannot keep current.
private func checkControllerRequest<Result: NSFetchRequestResult>(_ fetchRequest: NSFetchRequest<Result>) throws {
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
}
