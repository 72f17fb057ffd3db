import Foundation

// `@unchecked Sendable`: `context` and `progress` are constants (a context is `Sendable`; Foundation's
// `Progress` is thread-safe), and the error sits behind a lock (`Locked`), so `cancel()` and the properties may
// be used from any queue.
/// The result of an asynchronous request, handed back at once by ``NSManagedObjectContext/execute(_:)``
/// (Core Data's `NSPersistentStoreAsynchronousResult`): its progress, a way to cancel it, and, once it has
/// finished, its error if it failed.
public class NSPersistentStoreAsynchronousResult: NSPersistentStoreResult, @unchecked Sendable {
  /// The context that runs the request.
  public let managedObjectContext: NSManagedObjectContext
  /// The request's progress: one unit, completed when the request has finished; cancelling it cancels the
  /// request. It is a child of the progress that was current when the request was executed, if any.
  public let progress: Progress?
  private let error = Locked<(any Error)?>(nil)

  init(context: NSManagedObjectContext, progress: Progress) {
    managedObjectContext = context
    self.progress = progress
  }

  /// Why the request did not finish: the fetch's error, or `NSUserCancelledError` (3072, `CocoaError.userCancelled`) when it was
  /// cancelled. `nil` while it runs and when it succeeded.
  public var operationError: (any Error)? { error.withLock { $0 } }

  func setOperationError(_ newValue: any Error) {
    error.withLock { $0 = newValue }
  }

  /// Cancels the request (the same as cancelling ``progress``): if it has not run yet, it does not run; if it
  /// is running, its results are dropped. Its completion block is still called, with no results and
  /// ``operationError`` set to `NSUserCancelledError`.
  public func cancel() {
    progress?.cancel()
  }

  var isCancelled: Bool { progress?.isCancelled ?? false }
}
