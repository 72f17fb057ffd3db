import Foundation

// `@unchecked Sendable`: the request is handed to the context's queue, where its fetch runs and its completion
// block is called. The block is not `Sendable` (Core Data's is not): ``NSManagedObjectContext/execute(_:)`` is
// called on the context's queue, so the block is made there and runs there, never on another queue. The fetch
// request and ``estimatedResultCount`` are read on that queue only after `execute(_:)`, which the caller has
// finished changing them before calling (Core Data's rule for a request in flight).
/// A fetch that runs after the call that starts it returns, with its results handed to a block on the
/// context's queue (Core Data's `NSAsynchronousFetchRequest`).
///
/// ```swift
/// let request = NSFetchRequest<Note>(entityName: "Note")
/// let asynchronous = NSAsynchronousFetchRequest(fetchRequest: request) { result in
///   guard let notes = result.finalResult else { return }   // nil: cancelled, or the fetch failed
///   show(notes)                                             // on the context's queue
/// }
/// let started = try context.execute(asynchronous) as? NSAsynchronousFetchResult<Note>
/// started?.progress?.cancel()   // stops it, if it has not run yet
/// ```
///
/// ``NSManagedObjectContext/execute(_:)`` returns an ``NSAsynchronousFetchResult`` at once; the fetch runs on
/// the context's queue after the work already queued there, as a `perform` block would (see "Asynchronous
/// fetches" in Docs/ObjectGraph.md), and the block is called there with the same result object, its
/// ``NSAsynchronousFetchResult/finalResult`` set, or its ``NSPersistentStoreAsynchronousResult/operationError``.
public final class NSAsynchronousFetchRequest<ResultType>: NSPersistentStoreRequest, StoreSelecting, @unchecked Sendable {
  /// The kind of request: `.fetchRequestType`.
  public var requestType: NSPersistentStoreRequestType { .fetchRequestType }

  /// The fetch that runs.
  public let fetchRequest: NSFetchRequest<ResultType>
  /// The stores the fetch reads: its fetch request's, which `affectedStores` reads and sets.
  var storeSelection: [AnyObject]? {
    get { fetchRequest.storeSelection }
    set { fetchRequest.storeSelection = newValue }
  }
  /// The block called on the context's queue when the fetch has finished, failed or been cancelled.
  ///
  /// Typed with the request's result type, where Core Data's is an
  /// `NSPersistentStoreAsynchronousFetchResultCompletionBlock` of `NSAsynchronousFetchResult<any
  /// NSFetchRequestResult>` bridged to it: Swift on Linux cannot convert one generic class to the other.
  public let completionBlock: ((NSAsynchronousFetchResult<ResultType>) -> Void)?
  /// How many results the app expects, to help the store schedule the fetch (Core Data's hint). Kept, and
  /// without effect here: the fetch runs on the context's queue in turn.
  public var estimatedResultCount = 0

  /// Makes an asynchronous request of `request`, with `blk` to call with its result.
  public init(
    fetchRequest request: NSFetchRequest<ResultType>, completionBlock blk: ((NSAsynchronousFetchResult<ResultType>) -> Void)? = nil
  ) {
    fetchRequest = request
    completionBlock = blk
  }
}

extension NSAsynchronousFetchRequest: AsynchronousFetchStarting {
  func start(in context: NSManagedObjectContext) -> any NSPersistentStoreResult {
    // A child of the progress current on this thread, if any, as Core Data's is.
    let progress = Progress(totalUnitCount: 1)
    let result = NSAsynchronousFetchResult(fetchRequest: self, context: context, progress: progress)
    context.perform { result.run() }
    return result
  }
}

/// What ``NSManagedObjectContext/execute(_:)`` needs of an ``NSAsynchronousFetchRequest`` of any result type.
protocol AsynchronousFetchStarting {
  /// Queues the fetch on `context`'s queue and returns its result object at once.
  func start(in context: NSManagedObjectContext) -> any NSPersistentStoreResult
}
