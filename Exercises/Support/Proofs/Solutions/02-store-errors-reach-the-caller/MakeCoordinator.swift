// Reference solution of exercise 02: store errors reach the caller.
import Foundation
import ObjectGraph

/// Builds a coordinator for `model` and adds a SQLite store called `storeName` inside `storeFolder`,
/// creating the folder (and any missing parent folders) first.
///
/// Nothing here is caught: each `try` hands its error to the caller, who can tell the user, offer to
/// start over, or keep the old file for later. Xcode's template calls `abort()` at this point instead.
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
  try coordinator.addPersistentStore(type: .sqlite, at: storeFolder.appendingPathComponent(storeName), options: options)
  return coordinator
}
