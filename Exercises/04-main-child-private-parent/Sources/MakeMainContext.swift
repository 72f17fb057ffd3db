// Exercise 04: a main-queue child under a private parent.
// The task is in Exercises/04-main-child-private-parent/README.md; hints in HINTS.md next to it.
import ExerciseKit
import Foundation
import ObjectGraph

/// Builds stage 2's two contexts on `coordinator` and returns the one the app uses: the main context.
///
/// The other context, a private-queue writer, is the only one that holds the coordinator. The main
/// context is its child: saving the main context hands the changes to the writer, and only the writer's
/// save puts them in the store. The app reaches the writer, when it must, as `mainContext.parent`.
///
/// - Returns: a new main-queue context whose parent is a new private-queue context holding `coordinator`.
public func makeMainContext(for coordinator: NSPersistentStoreCoordinator) throws -> NSManagedObjectContext {
  // Replace this line with your code.
  throw ExerciseNotDone("04-main-child-private-parent")
}
