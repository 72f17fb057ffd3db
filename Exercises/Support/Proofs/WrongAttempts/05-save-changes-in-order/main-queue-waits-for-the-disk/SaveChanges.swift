// A wrong attempt at exercise 05, kept so that CI proves the checks name the mistake: the main context first,
// as it should, but the writer's save runs inside performAndWait too, so a caller on the main queue waits for
// the disk write (on the main queue) before saveChanges returns: the stall stage 2 exists to remove.
import ExerciseKit
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
  try main.performAndWait {
    if main.hasChanges {
      try main.save()
    }
  }
  let result = writer.performAndWait {
    Result<Void, any Error> {
      if writer.hasChanges {
        try writer.save()
      }
    }
  }
  DispatchQueue.main.async { completion(result) }
}
