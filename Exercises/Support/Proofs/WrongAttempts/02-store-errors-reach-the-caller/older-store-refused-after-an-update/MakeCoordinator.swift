// A wrong attempt at exercise 02, kept so that CI proves the checks name the mistake: every error reaches the
// caller, but the store is added without options, as many tutorials write it, so a store that the app's
// previous version wrote (an earlier version of the model) is refused after an update.
import ExerciseKit
import Foundation
import ObjectGraph

/// Builds a coordinator for `model` and adds a SQLite store called `storeName` inside `storeFolder`,
/// creating the folder (and any missing parent folders) first.
///
/// - Returns: the coordinator, with its one store added.
/// - Throws: every failure, as the error that describes it: the folder cannot be created, the file at
///   the store's URL is not a store, the store was made with another model. A file that is refused is
///   left exactly as it was.
public func makeCoordinator(for model: NSManagedObjectModel, storeFolder: URL, storeName: String) throws
  -> NSPersistentStoreCoordinator
{
  try FileManager.default.createDirectory(at: storeFolder, withIntermediateDirectories: true)
  let coordinator = NSPersistentStoreCoordinator(managedObjectModel: model)
  try coordinator.addPersistentStore(type: .sqlite, at: storeFolder.appendingPathComponent(storeName))
  return coordinator
}
