// A wrong attempt at exercise 02, kept so that CI proves the checks name the mistake: the folder "may already
// exist", so createDirectory is called with try? to get past that case, which also drops the error of a
// folder that cannot be created; addPersistentStore then fails one step later, with less to say about why.
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
  // The folder is there from the second launch on; that is not an error.
  try? FileManager.default.createDirectory(at: storeFolder, withIntermediateDirectories: true)
  let coordinator = NSPersistentStoreCoordinator(managedObjectModel: model)
  let options = [NSMigratePersistentStoresAutomaticallyOption: true, NSInferMappingModelAutomaticallyOption: true]
  try coordinator.addPersistentStore(type: .sqlite, at: storeFolder.appendingPathComponent(storeName), options: options)
  return coordinator
}
