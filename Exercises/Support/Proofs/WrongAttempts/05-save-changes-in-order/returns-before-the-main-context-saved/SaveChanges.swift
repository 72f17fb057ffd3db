// A wrong attempt at exercise 05, kept so that CI proves the checks name the mistake: everything asynchronous.
// The main context's save is queued with main.perform, and the writer's chained after it, so saveChanges
// returns before the main context has saved, and the main context's error goes to the completion instead of
// being thrown.
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
  main.perform {
    do {
      if main.hasChanges {
        try main.save()
      }
    } catch {
      DispatchQueue.main.async { completion(.failure(error)) }
      return
    }
    writer.perform {
      let result = Result<Void, any Error> {
        if writer.hasChanges {
          try writer.save()
        }
      }
      DispatchQueue.main.async { completion(result) }
    }
  }
}
