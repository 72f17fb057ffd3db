import Dispatch
import Foundation
internal import Synchronization

/// The coordinator's behaviour: adding and removing stores, URIs, metadata look-ups. (The class and its
/// stored state are declared in the store's layer, `Store/CoordinatorDeclaration.swift`.)
extension NSPersistentStoreCoordinator {
  /// Adds a store with Core Data's options dictionary and returns it (Core Data's
  /// `addPersistentStore(type:configuration:at:options:)`).
  ///
  /// ```swift
  /// try coordinator.addPersistentStore(
  ///   type: .sqlite, at: storeURL,
  ///   options: [NSMigratePersistentStoresAutomaticallyOption: true, NSInferMappingModelAutomaticallyOption: true])
  /// ```
  ///
  /// A key that is absent is off, as in Core Data: without ``NSMigratePersistentStoresAutomaticallyOption``
  /// and ``NSInferMappingModelAutomaticallyOption`` a store made with another model version is refused, not
  /// migrated. A key the engine does not know is ignored. The engine's own options (``ObjectGraphSQLTraceOption``,
  /// ``ObjectGraphMigrationProgressOption``, ...) are keys of the same dictionary.
  ///
  /// - Parameters:
  ///   - type: `.sqlite` for a file, `.inMemory` for a store that lives in memory, `.binary` for a file read
  ///     and written whole (Core Data's binary store).
  ///   - configuration: the model configuration the store holds; `nil` for every entity.
  ///   - storeURL: the store file, created if it does not exist; an in-memory store takes any URL, as in Core
  ///     Data (`URL(fileURLWithPath: "/dev/null")`).
  ///   - options: Core Data's options (``NSReadOnlyPersistentStoreOption``, ``NSSQLitePragmasOption``, ...).
  /// - Throws: ``ObjectGraphError`` with ``NSPersistentStoreOpenError`` (missing or
  ///   unwritable folder, unreadable file, an option's value of the wrong type, named),
  ///   ``NSPersistentStoreInvalidTypeError`` (not a SQLite database, or not a store),
  ///   ``NSPersistentStoreIncompatibleVersionHashError`` (made with another model). A file that is refused
  ///   is left exactly as it was.
  @discardableResult
  public func addPersistentStore(
    type: NSPersistentStore.StoreType, configuration: String? = nil, at storeURL: URL, options: [AnyHashable: Any]? = nil
  ) throws -> NSPersistentStore {
    try addPersistentStore(type: type, configuration: configuration, at: storeURL, options: StoreOptions(dictionary: options))
  }

  /// Adds a store with options the engine has parsed; `url` is `nil` for an in-memory store a container adds.
  @discardableResult
  func addPersistentStore(
    type: NSPersistentStore.StoreType, configuration: String? = nil, at url: URL? = nil, options: StoreOptions
  ) throws -> NSPersistentStore {
    // A model built in code whose entities do not fit together is refused here, as its `entities` setter
    // (like Core Data's) cannot throw.
    if let problem = managedObjectModel.resolutionError { throw problem }
    try checkDerivedAttributes(configuration: configuration)
    if type != .inMemory, let url,
      stores.withLock({ $0.contains { $0.storeType != .inMemory && $0.url?.standardizedFileURL == url.standardizedFileURL } })
    {
      throw ObjectGraphError(
        .persistentStoreOpen, "The store at \(url.path) is already added to this coordinator. Add each file once.", url: url)
    }
    if let storeClass = Self.registeredClass(for: type) {
      return try addCustomStore(storeClass, type: type, configuration: configuration, at: url, options: options)
    }
    let store = try NSPersistentStore.open(
      type: type, url: url, configuration: configuration, options: options, model: managedObjectModel)
    do {
      try store.runMaintenanceOnAdd()
    } catch {
      store.close()
      throw error
    }
    stores.withLock { $0.append(store) }
    store.attach(to: self)
    try watchForRemoteChanges(store, options: options)
    postStoreAdded(store)
    return store
  }

  /// Adds a store of the type named by a string (`NSSQLiteStoreType`, `NSInMemoryStoreType`,
  /// `NSBinaryStoreType`) with Core Data's options dictionary (Core Data's older
  /// `addPersistentStore(ofType:configurationName:at:options:)`).
  ///
  /// ```swift
  /// try coordinator.addPersistentStore(
  ///   ofType: NSSQLiteStoreType, configurationName: nil, at: storeURL,
  ///   options: [NSSQLitePragmasOption: ["journal_mode": "DELETE"]])
  /// ```
  /// - Throws: ``ObjectGraphError`` with ``NSPersistentStoreInvalidTypeError`` for a type
  ///   the engine has no store for, and as `addPersistentStore(type:configuration:at:options:)`.
  @discardableResult
  public func addPersistentStore(
    ofType storeType: String, configurationName configuration: String?, at storeURL: URL?,
    options: [AnyHashable: Any]? = nil
  ) throws -> NSPersistentStore {
    try addPersistentStore(
      type: NSPersistentStore.StoreType(rawValue: storeType), configuration: configuration, at: storeURL,
      options: StoreOptions(dictionary: options))
  }

  /// Adds a store on a background queue and calls `completionHandler` there with the store or the error
  /// (an ObjectGraph addition: Core Data adds a store asynchronously through a description's
  /// `shouldAddStoreAsynchronously`).
  ///
  /// The call returns at once; use it to keep a slow store load (a migration, a large file) off the main
  /// queue. The options are read before the call returns: an option of the wrong type reaches
  /// `completionHandler` as the error, on the background queue too.
  public func addPersistentStore(
    type: NSPersistentStore.StoreType, configuration: String? = nil, at storeURL: URL, options: [AnyHashable: Any]? = nil,
    completionHandler: @escaping @Sendable (Result<NSPersistentStore, any Error>) -> Void
  ) {
    let parsed = Result { try StoreOptions(dictionary: options) }
    addPersistentStore(type: type, configuration: configuration, at: storeURL, parsed: parsed, completionHandler: completionHandler)
  }

  /// Adds a store on a background queue with options the engine has parsed (or the error parsing them).
  func addPersistentStore(
    type: NSPersistentStore.StoreType, configuration: String?, at url: URL?, parsed: Result<StoreOptions, any Error>,
    completionHandler: @escaping @Sendable (Result<NSPersistentStore, any Error>) -> Void
  ) {
    loadQueue.async {
      completionHandler(
        Result {
          try self.addPersistentStore(type: type, configuration: configuration, at: url, options: parsed.get())
        })
    }
  }

  /// Removes a store. Objects from it that contexts still hold can no longer be fulfilled or saved.
  ///
  /// Every context reading through this coordinator (a child context too) then invalidates the objects it
  /// holds from the store, on its own queue, soon after this returns: they turn into faults, their unsaved
  /// changes are dropped, and the context posts ``NSManagedObjectContext/didChangeObjectsNotification`` with
  /// them under ``NSInvalidatedObjectsKey``. Reading one
  /// afterwards finds no row: it becomes a deleted, empty object (see
  /// ``NSManagedObjectContext/shouldDeleteInaccessibleFaults``). Adding the same store file again makes them
  /// readable again, as their IDs name the store by its identifier.
  /// - Throws: ``NSPersistentStoreOperationError`` when the store is not one of this
  ///   coordinator's.
  public func remove(_ store: NSPersistentStore) throws {
    if persistentStores.contains(where: { $0 === store }) {
      postStoreWillBeRemoved(store)
      store.willRemove(from: self)
    }
    guard detach(store) else {
      throw ObjectGraphError(.persistentStoreOperation, "\(store) is not one of this coordinator's stores.")
    }
    postStoreRemoved(store)
    storeRemovalListeners.tellRemoved(store)
  }

  /// Puts `new` in `old`'s place in the coordinator's list (a migrated or moved store), then stops watching
  /// `old` and closes it, without a notification; `false`, and nothing changed, when `old` is not one of this
  /// coordinator's stores.
  func replaceStore(_ old: NSPersistentStore, with new: NSPersistentStore) -> Bool {
    let replaced = stores.withLock { list -> Bool in
      guard let index = list.firstIndex(where: { $0 === old }) else { return false }
      list[index] = new
      old.detachFromCoordinator()
      new.attach(to: self)
      return true
    }
    if replaced { retire(old) }
    return replaced
  }

  /// Takes `store` out of the coordinator's list, stops watching it and closes it, without a notification;
  /// `false` when it is not one of this coordinator's stores.
  func detach(_ store: NSPersistentStore) -> Bool {
    let removed = stores.withLock { list -> Bool in
      guard let index = list.firstIndex(where: { $0 === store }) else { return false }
      list.remove(at: index)
      return true
    }
    guard removed else { return false }
    if store.savesNeedObjects { objectSavingStores.subtract(1, ordering: .relaxed) }
    if store is any StoreRegistrationObserver { StoreRegistrationObservers.storesChanged() }
    store.detachFromCoordinator()
    retire(store)
    return true
  }

  /// Stops watching a store that has left the coordinator's list, ends the query generations reading it, and
  /// closes it.
  private func retire(_ store: NSPersistentStore) {
    stopWatchingForRemoteChanges(store)
    endSnapshots(of: store)
    gate.withLock { store.close() }
  }

  /// Turns a URI from ``NSManagedObjectID/uriRepresentation()`` back into an ID, or `nil` when the URI does
  /// not name an object of one of this coordinator's stores.
  public func managedObjectID(forURIRepresentation uri: URL) -> NSManagedObjectID? {
    guard uri.scheme == "x-coredata", let host = uri.host else { return nil }
    let parts = uri.path.split(separator: "/").map(String.init)
    guard parts.count == 2, parts[1].hasPrefix("p"), let pk = Int64(parts[1].dropFirst()),
      let entity = managedObjectModel.entitiesByName[parts[0]],
      persistentStores.contains(where: { $0.identifier.caseInsensitiveCompare(host) == .orderedSame })
    else { return nil }
    guard let store = persistentStores.first(where: { $0.identifier.caseInsensitiveCompare(host) == .orderedSame }) else {
      return nil
    }
    return store.makeID(entity: entity, primaryKey: pk)
  }

  /// Reads a store file's metadata without adding it (and without changing the file), e.g. to check
  /// whether it needs a migration.
  ///
  /// `options` are Core Data's options dictionary; the engine reads the metadata without them.
  public static func metadataForPersistentStore(
    type: NSPersistentStore.StoreType, at url: URL, options: [AnyHashable: Any]? = nil
  ) throws -> [String: Any] {
    guard type != .inMemory else {
      throw ObjectGraphError(.persistentStoreInvalidType, "An in-memory store has no metadata on disk.", url: url)
    }
    // A registered class reads its own files (its override of the class method).
    if let storeClass = registeredClass(for: type) { return try storeClass.metadataForPersistentStore(with: url) }
    // As Core Data: Cocoa's file error 260, not a store error.
    guard FileManager.default.fileExists(atPath: url.path) else { throw NSPersistentStore.noSuchFile(url) }
    if type == .binary { return try BinaryStoreArchive.readMetadata(url: url) }
    return try NSPersistentStore.readMetadata(url: url)
  }

  /// Reads the metadata of the store file at `url` of the type named by a string (Core Data's
  /// `metadataForPersistentStore(ofType:at:options:)`), without adding it.
  public static func metadataForPersistentStore(
    ofType storeType: String, at url: URL, options: [AnyHashable: Any]? = nil
  ) throws -> [String: Any] {
    try metadataForPersistentStore(type: NSPersistentStore.StoreType(rawValue: storeType), at: url, options: options)
  }

  /// The coordinator's name (when set) and its number of stores.
  public var description: String {
    "<NSPersistentStoreCoordinator\(name.map { " \"\($0)\"" } ?? "") \(persistentStores.count) store(s)>"
  }
}

/// Coordinators are equal when they are the same instance, as Core Data's (`NSObject`'s `isEqual:`), so
/// ported code can compare them with `==` and keep them in sets and dictionary keys.
extension NSPersistentStoreCoordinator: Hashable {
  /// Whether `lhs` and `rhs` are the same coordinator.
  public static func == (lhs: NSPersistentStoreCoordinator, rhs: NSPersistentStoreCoordinator) -> Bool { lhs === rhs }

  /// Hashes the coordinator's identity.
  public func hash(into hasher: inout Hasher) { hasher.combine(ObjectIdentifier(self)) }
}
