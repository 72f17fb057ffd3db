// A wrong attempt at exercise 07, kept so that CI proves the checks name the mistake: the store is added in
// the background, but the completion is handed to addPersistentStore as it is, so it runs on the
// coordinator's background queue instead of the main queue, where the app's UI lives.
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
  coordinator.addPersistentStore(type: .sqlite, at: storeURL, options: options, completionHandler: completion)
}
