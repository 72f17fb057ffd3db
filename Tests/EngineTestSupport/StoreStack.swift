import Foundation
import ObjectGraph
import TestSupport

/// A coordinator on any model with one store, and a context on it: the stack most tests and checks build
/// before they start, in one line.
///
/// The store is in a new ``TestSupport/TemporaryFolder`` (the test carries `.temporaryFolders`), in a folder
/// the test gives, at a URL the test gives, or in memory. It is added with Core Data's options dictionary: by
/// default automatic migration with an inferred mapping, as an `NSPersistentStoreDescription`'s are, and
/// `journalMode` adds SQLite's `journal_mode` pragma to it. The tutorial's model is
/// ``TutorialStack/model()``; the engine's tests have a notes model of their own.
///
/// ```swift
/// let stack = try StoreStack(model: try TutorialStack.model())                  // a file in a new folder
/// let memory = try StoreStack(model: model, type: .inMemory)                     // no file
/// let old = try StoreStack(model: version1, at: url, journalMode: "DELETE")      // where the test says
/// ```
///
/// A test whose subject is how a store is added (its options, its refusal, a fixture opened in place) calls
/// `addPersistentStore` itself, so that the call under test is in the test.
public struct StoreStack: Sendable {
  /// The store's type.
  public let type: NSPersistentStore.StoreType
  /// The model the coordinator was made with.
  public let model: NSManagedObjectModel
  /// The coordinator, on ``model``.
  public let coordinator: NSPersistentStoreCoordinator
  /// The one store, as `addPersistentStore` returned it (to remove it, or to read its metadata).
  public let store: NSPersistentStore
  /// A context of the type given, on ``coordinator``.
  public let context: NSManagedObjectContext
  /// Where the store's file is. For an in-memory store made in a given folder, the file a SQLite store would
  /// have (nothing is written there); for any other in-memory store, `/dev/null`.
  public let storeURL: URL

  /// Core Data's options for a store that migrates itself with an inferred mapping, as a store description's
  /// defaults are (`NSMigratePersistentStoresAutomaticallyOption` and `NSInferMappingModelAutomaticallyOption`).
  public static var migratingOptions: [AnyHashable: Any] {
    [NSMigratePersistentStoresAutomaticallyOption: true, NSInferMappingModelAutomaticallyOption: true]
  }

  /// Adds a store of `type` named `fileName` in `folder` (a new ``TestSupport/TemporaryFolder`` unless one is
  /// given) to a new coordinator on `model`, and makes a context of `contextType` on it. An in-memory store
  /// writes nothing in the folder, and without one given it makes none (a suite without `.temporaryFolders`
  /// may use it).
  public init(
    model: NSManagedObjectModel, type: NSPersistentStore.StoreType = .sqlite, folder: TemporaryFolder? = nil,
    fileName: String = "Store.sqlite", journalMode: String? = nil, options: [AnyHashable: Any]? = migratingOptions,
    contextType: NSManagedObjectContext.ConcurrencyType = .privateQueue
  ) throws {
    let url =
      type == .inMemory && folder == nil ? URL(fileURLWithPath: "/dev/null") : try (folder ?? TemporaryFolder()).appending(fileName)
    try self.init(
      model: model, type: type, storeURL: url, addedAt: type == .inMemory ? URL(fileURLWithPath: "/dev/null") : url,
      journalMode: journalMode, options: options, contextType: contextType)
  }

  /// Adds a store of `type` at `url` (`nil` for an in-memory store) to a new coordinator on `model`, and makes a
  /// context of `contextType` on it. The folder of `url` must exist.
  public init(
    model: NSManagedObjectModel, type: NSPersistentStore.StoreType = .sqlite, at url: URL?, journalMode: String? = nil,
    options: [AnyHashable: Any]? = migratingOptions, contextType: NSManagedObjectContext.ConcurrencyType = .privateQueue
  ) throws {
    try self.init(
      model: model, type: url == nil ? .inMemory : type, storeURL: url ?? URL(fileURLWithPath: "/dev/null"), addedAt: url,
      journalMode: journalMode, options: options, contextType: contextType)
  }

  private init(
    model: NSManagedObjectModel, type: NSPersistentStore.StoreType, storeURL: URL, addedAt url: URL?, journalMode: String?,
    options: [AnyHashable: Any]?, contextType: NSManagedObjectContext.ConcurrencyType
  ) throws {
    var options = options
    if let journalMode {
      var all = options ?? [:]
      var pragmas = all[NSSQLitePragmasOption] as? [String: Any] ?? [:]
      pragmas["journal_mode"] = journalMode
      all[NSSQLitePragmasOption] = pragmas
      options = all
    }
    self.type = type
    self.model = model
    self.storeURL = storeURL
    coordinator = NSPersistentStoreCoordinator(managedObjectModel: model)
    store = try coordinator.addPersistentStore(ofType: type.rawValue, configurationName: nil, at: url, options: options)
    context = TutorialStack.context(contextType, on: coordinator)
  }

  /// Removes the store from the coordinator, which closes its file.
  public func close() throws { try coordinator.remove(store) }

  /// A second, independent coordinator and a private context on the same file (as a relaunch would make),
  /// added with the same options.
  public func reopened() throws -> (NSPersistentStoreCoordinator, NSManagedObjectContext) {
    let again = try StoreStack(model: model, type: type, at: storeURL, options: store.options)
    return (again.coordinator, again.context)
  }

  /// A new private context on this stack's coordinator. It has no objects of its own, so what it fetches or
  /// counts comes from the store, not from another context's memory.
  public func freshContext() -> NSManagedObjectContext {
    TutorialStack.context(.privateQueue, on: coordinator)
  }

  /// A second context that knows only what reached the store: for a store with a file, on a second
  /// coordinator over the same file (``reopened()``); for an in-memory store, which has no file to open again,
  /// a ``freshContext()`` on the same coordinator.
  public func reader() throws -> (NSPersistentStoreCoordinator, NSManagedObjectContext) {
    type == .inMemory ? (coordinator, freshContext()) : try reopened()
  }

  /// How many objects of `entityName` (subentities included) the store holds, counted by a fresh context.
  public func storedCount(_ entityName: String) throws -> Int {
    let context = freshContext()
    return try context.performAndWait { try context.count(for: NSFetchRequest<NSManagedObject>(entityName: entityName)) }
  }

  /// `read` applied to every object of `entityName` the store holds, as a fresh context fetches them, sorted by
  /// `sortKey` (a fetch's own order without one).
  public func stored<Value: Sendable>(
    _ entityName: String, sortedBy sortKey: String? = nil, _ read: (NSManagedObject) throws -> Value
  ) throws -> [Value] {
    let context = freshContext()
    return try context.performAndWait {
      let request = NSFetchRequest<NSManagedObject>(entityName: entityName)
      request.sortDescriptors = sortKey.map { [NSSortDescriptor(key: $0, ascending: true)] } ?? []
      return try context.fetch(request).map(read)
    }
  }

  /// The entity named `name` in ``model``, or an empty entity named "missing" (which a test's insert then
  /// refuses, saying so).
  public func entity(_ name: String) -> NSEntityDescription {
    model.entitiesByName[name] ?? NSEntityDescription(name: "missing", properties: [])
  }
}
