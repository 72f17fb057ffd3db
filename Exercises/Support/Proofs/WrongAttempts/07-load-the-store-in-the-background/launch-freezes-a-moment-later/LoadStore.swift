// A wrong attempt at exercise 07, kept so that CI proves the checks name the mistake: loadStore returns at once
// and the completion runs on the main queue, but the store is added (and migrated) in a block queued on the
// main queue, so the launch freezes anyway, a moment later.
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
  DispatchQueue.main.async {
    let options: [AnyHashable: Any] = [
      NSMigratePersistentStoresAutomaticallyOption: true, NSInferMappingModelAutomaticallyOption: true,
      ObjectGraphMigrationProgressOption: progress,
    ]
    let result = Result<NSPersistentStore, any Error> {
      try coordinator.addPersistentStore(type: .sqlite, at: storeURL, options: options)
    }
    completion(result)
  }
}
