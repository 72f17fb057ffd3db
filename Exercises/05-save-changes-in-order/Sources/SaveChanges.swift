// Exercise 05: saveChanges(), main first, then the writer.
// The task is in Exercises/05-save-changes-in-order/README.md; hints in HINTS.md next to it.
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
  // Replace this line with your code.
  throw ExerciseNotDone("05-save-changes-in-order")
}
