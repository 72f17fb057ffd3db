import Foundation
import ObjectGraph

/// A coordinator on any model with one store, and a context on it: what most tests build by hand before
/// they start.
///
/// The store is wherever the test says (`nil` for an in-memory store) and is added with whatever options
/// the test gives (pragmas, read-only, migration switches), so a test that checks how a store opens can
/// still use it. A test that needs the store refused calls `addPersistentStore` itself.
public struct StoreStack {
  /// The coordinator, on the model given.
  public let coordinator: NSPersistentStoreCoordinator
  /// The one store, as `addPersistentStore` returned it (to remove it, or to read its metadata).
  public let store: NSPersistentStore
  /// A context of the type given, on ``coordinator``.
  public let context: NSManagedObjectContext

  /// Adds a store of `type` at `url` (`nil` for `.inMemory`) with Core Data's `options` (by default automatic
  /// migration with an inferred mapping, as a store description has) to a new coordinator on `model`, and
  /// makes a context of `contextType` on it.
  public init(
    model: NSManagedObjectModel, type: NSPersistentStore.StoreType = .sqlite, at url: URL?,
    options: [AnyHashable: Any]? = [NSMigratePersistentStoresAutomaticallyOption: true, NSInferMappingModelAutomaticallyOption: true],
    contextType: NSManagedObjectContext.ConcurrencyType = .privateQueue
  ) throws {
    coordinator = NSPersistentStoreCoordinator(managedObjectModel: model)
    store = try coordinator.addPersistentStore(ofType: type.rawValue, configurationName: nil, at: url, options: options)
    context = NSManagedObjectContext(contextType)
    context.persistentStoreCoordinator = coordinator
  }

  /// Removes the store from the coordinator, which closes its file.
  public func close() throws { try coordinator.remove(store) }
}
