// A wrong attempt at exercise 02, kept so that CI proves the checks name the mistake: the abort() is gone, but
// the error from addPersistentStore is only printed, and the coordinator is returned without its store, so
// the caller believes the launch went well and the app fails later, at its first save.
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
  let options = [NSMigratePersistentStoresAutomaticallyOption: true, NSInferMappingModelAutomaticallyOption: true]
  do {
    try coordinator.addPersistentStore(type: .sqlite, at: storeFolder.appendingPathComponent(storeName), options: options)
  } catch {
    print("Could not add the store: \(error)")
  }
  return coordinator
}
