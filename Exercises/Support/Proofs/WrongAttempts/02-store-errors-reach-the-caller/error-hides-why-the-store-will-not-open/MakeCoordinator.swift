// A wrong attempt at exercise 02, kept so that CI proves the checks name the mistake: the failure does reach
// the caller, but as an error of the attempt's own that says only that the store could not be opened, in
// place of ObjectGraph's, which says why (the file is not a database) and has a code an app can act on.
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
    throw StoreError.cannotOpen(storeURL)
  }
  return coordinator
}

/// What went wrong, for the caller.
enum StoreError: Error, CustomStringConvertible {
  case cannotOpen(URL)

  var description: String {
    switch self {
    case .cannotOpen(let url): return "The store at \(url.path) cannot be opened."
    }
  }
}
