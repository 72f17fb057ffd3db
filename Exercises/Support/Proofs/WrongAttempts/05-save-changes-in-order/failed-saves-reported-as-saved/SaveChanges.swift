// A wrong attempt at exercise 05, kept so that CI proves the checks name the mistake: the shape many tutorials
// show, with the saves in the right order on the right queues, but each error caught and printed, so
// saveChanges returns normally and the completion reports .success when a save has failed.
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
  main.performAndWait {
    guard main.hasChanges else { return }
    do {
      try main.save()
    } catch {
      print("Could not save the main context: \(error)")
    }
  }
  writer.perform {
    if writer.hasChanges {
      do {
        try writer.save()
      } catch {
        print("Could not save the writer: \(error)")
      }
    }
    DispatchQueue.main.async { completion(.success(())) }
  }
}
