// A wrong attempt at exercise 07, kept so that CI proves the checks name the mistake: the store is added on the
// coordinator's background queue and the completion hops to the main queue, but loadStore waits for the store
// with a semaphore before it returns ("so the stack is ready"), so a launch on the main queue is frozen anyway.
import Dispatch
import ExerciseKit
import Foundation
import ObjectGraph

/// Adds the SQLite store at `storeURL` to `coordinator`, migrating it when an older version of the model
/// made it, without holding up the caller: it returns at once, and the store is added on another queue.
///
/// It may be called from any queue; an app calls it on the main queue, at launch.
///
/// - Parameters:
///   - coordinator: the coordinator to add the store to.
///   - storeURL: the store file (its folder exists).
///   - progress: how far a migration has come; hand it to the store options as it is.
///   - completion: called exactly once, on the main queue, after this function has returned: with the
///     added store, or with the error that kept it from being added.
public func loadStore(
  into coordinator: NSPersistentStoreCoordinator, at storeURL: URL,
  progress: @escaping @Sendable (MigrationProgress) -> Void,
  completion: @escaping @Sendable (Result<NSPersistentStore, any Error>) -> Void
) {
  let options: [AnyHashable: Any] = [
    NSMigratePersistentStoresAutomaticallyOption: true, NSInferMappingModelAutomaticallyOption: true,
    ObjectGraphMigrationProgressOption: progress,
  ]
  let added = DispatchSemaphore(value: 0)
  coordinator.addPersistentStore(type: .sqlite, at: storeURL, options: options) { result in
    DispatchQueue.main.async { completion(result) }
    added.signal()
  }
  added.wait()
}
