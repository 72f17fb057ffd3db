// Reference solution of exercise 04: a main-queue child under a private parent.
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
  // The writer: on a queue of its own, so writing to the file never holds up the main queue. It is the
  // only context that talks to the coordinator.
  let writer = NSManagedObjectContext(concurrencyType: .privateQueueConcurrencyType)
  writer.name = "Writer"
  writer.persistentStoreCoordinator = coordinator

  // The app's context: on the main queue, with a parent instead of a coordinator. Its saves stop at the
  // writer. (A context has a parent or a coordinator, never both: setting one clears the other.)
  let main = NSManagedObjectContext(concurrencyType: .mainQueueConcurrencyType)
  main.name = "Main"
  main.parent = writer
  return main
}
