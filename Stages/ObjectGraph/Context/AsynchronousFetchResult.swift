import Foundation

// `@unchecked Sendable` (as its superclass): `fetchRequest` is a constant; `finalResult` is written once, on
// the context's queue, before the completion block is called there, and is read on that queue (its objects
// belong to it).
/// What an ``NSAsynchronousFetchRequest`` gives back (Core Data's `NSAsynchronousFetchResult`): at once from
/// ``NSManagedObjectContext/execute(_:)``, for its progress and cancellation, and to the request's completion
/// block with ``finalResult`` set.
public final class NSAsynchronousFetchResult<ResultType>: NSPersistentStoreAsynchronousResult, @unchecked Sendable {
  /// The request this is the result of.
  public let fetchRequest: NSAsynchronousFetchRequest<ResultType>
  /// The fetched results, once the fetch has finished; `nil` before, and when it failed or was cancelled
  /// (see ``NSPersistentStoreAsynchronousResult/operationError``). Read it on the context's queue.
  public private(set) var finalResult: [ResultType]?

  init(fetchRequest: NSAsynchronousFetchRequest<ResultType>, context: NSManagedObjectContext, progress: Progress) {
    self.fetchRequest = fetchRequest
    super.init(context: context, progress: progress)
  }

  /// Runs the fetch, on the context's queue, and calls the completion block.
  func run() {
    defer { fetchRequest.completionBlock?(self) }
    guard !isCancelled else { return cancelled() }
    do {
      let results = try managedObjectContext.asynchronousFetch(fetchRequest.fetchRequest)
      guard !isCancelled else { return cancelled() }
      finalResult = results
      progress?.completedUnitCount = progress?.totalUnitCount ?? 1
    } catch {
      setOperationError(error)
    }
  }

  private func cancelled() {
    setOperationError(
      ObjectGraphError(
        .userCancelled,
        "The asynchronous fetch of \(fetchRequest.fetchRequest.entityName) was cancelled (its result's cancel(), or its progress's), so it has no results."
      ))
  }
}

/// The completion block of an asynchronous fetch whose results are untyped (Core Data's
/// `NSPersistentStoreAsynchronousFetchResultCompletionBlock`): what
/// `NSAsynchronousFetchRequest<any NSFetchRequestResult>(fetchRequest:completionBlock:)` takes.
public typealias NSPersistentStoreAsynchronousFetchResultCompletionBlock = (NSAsynchronousFetchResult<any NSFetchRequestResult>) ->
  Void
