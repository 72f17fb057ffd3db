// Reference solution of exercise 05: saveChanges(), main first, then the writer.
import Foundation
import ObjectGraph

/// Gets every change the user made to disk: saves `main` into its parent `writer`, then has `writer` write
/// them to the store without holding up the caller.
///
/// It may be called from any queue or thread, the main queue included.
///
/// - Parameters:
///   - main: the app's main-queue context, a child of `writer`.
///   - writer: the private-queue context that holds the coordinator.
///   - completion: called once, on the main queue, when the writer's save has ended (or there was nothing
///     to write): `.success`, or the error the writer's save threw.
/// - Throws: the main context's save error. Then nothing moves on and `completion` is not called.
public func saveChanges(
  main: NSManagedObjectContext, writer: NSManagedObjectContext,
  completion: @escaping @Sendable (Result<Void, any Error>) -> Void
) throws {
  // 1. The main context, on the main queue, and waiting for it: when this returns, the writer holds every
  //    change. (Called on the main queue, performAndWait runs the block right here.) A failure is thrown
  //    before anything else happens.
  try main.performAndWait {
    if main.hasChanges {
      try main.save()
    }
  }

  // 2. The writer, on its own queue, without waiting: the disk write is the slow part. Its outcome goes to
  //    the main queue, where the UI that would show an error lives. Even with nothing to write, the
  //    completion is called: the caller may be waiting for it.
  writer.perform {
    let result = Result<Void, any Error> {
      if writer.hasChanges {
        try writer.save()
      }
    }
    DispatchQueue.main.async { completion(result) }
  }
}
