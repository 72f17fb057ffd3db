// Reference solution of exercise 07: load the store in the background.
import Dispatch
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
  // Migration on and the mapping inferred (both off unless asked for, as in Core Data), and the progress
  // reported as it goes.
  let options: [AnyHashable: Any] = [
    NSMigratePersistentStoresAutomaticallyOption: true, NSInferMappingModelAutomaticallyOption: true,
    ObjectGraphMigrationProgressOption: progress,
  ]
  // This variant of addPersistentStore returns at once and adds the store on a background queue of the
  // coordinator's, which may take seconds when the store needs a migration. It calls back once, on that
  // background queue, with the store or the error; the app's UI lives on the main queue, so hop there.
  coordinator.addPersistentStore(type: .sqlite, at: storeURL, options: options) { result in
    DispatchQueue.main.async { completion(result) }
  }
}
