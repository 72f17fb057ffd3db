// A wrong attempt at exercise 02, kept so that CI proves the checks name the mistake: when the store cannot
// be added, it deletes the file and adds a new, empty store in its place "to start fresh", so the launch
// works and the user's notes (the file it could not open) are gone without a word.
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
  let storeURL = storeFolder.appendingPathComponent(storeName)
  let options = [NSMigratePersistentStoresAutomaticallyOption: true, NSInferMappingModelAutomaticallyOption: true]
  do {
    try coordinator.addPersistentStore(type: .sqlite, at: storeURL, options: options)
  } catch {
    // The file is damaged or out of date: better a fresh store than an app that cannot launch.
    try FileManager.default.removeItem(at: storeURL)
    try coordinator.addPersistentStore(type: .sqlite, at: storeURL, options: options)
  }
  return coordinator
}
