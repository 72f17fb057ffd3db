import Foundation

/// Where a coordinator's stores are, moving them, and the links back from a store to its coordinator.
extension NSPersistentStoreCoordinator {
  /// The location of `store` (Core Data's `url(for:)`): its file, or for an in-memory store the URL it was
  /// added with (`/dev/null` when it was added without one, as a container adds it).
  public func url(for store: NSPersistentStore) -> URL {
    store.url ?? URL(fileURLWithPath: "/dev/null")
  }

  /// Moves `store` to `url` (Core Data's `setURL(_:for:)`).
  ///
  /// - For a binary store (an atomic store, written whole) and an in-memory store, only the location
  ///   changes: a binary store's next save writes the whole file at `url`; the old file is left as it is.
  /// - For a SQLite store (a non-atomic store), the connection to the old file is closed and one to the store
  ///   already at `url` is opened, with the store's configuration and options, as in Core Data: a store must
  ///   exist there, none is created. The engine cannot swap an open store's connection, so the store at `url`
  ///   is a new ``NSPersistentStore`` that takes `store`'s place in ``persistentStores`` (read it from there
  ///   afterwards); `store` is closed. A copy of the file keeps its store identifier, so the objects' IDs stay
  ///   valid; another store's file makes them unfulfillable, as after ``remove(_:)``.
  ///
  /// - Returns: `true` when the store was moved; `false` when `store` is not one of this coordinator's,
  ///   another of its stores is already at `url`, or (SQLite) no store that fits the model can be opened at
  ///   `url` (a missing file, not a store, made with another model), in which case `store` stays where it was.
  @discardableResult
  public func setURL(_ url: URL, for store: NSPersistentStore) -> Bool {
    guard persistentStores.contains(where: { $0 === store }) else { return false }
    if store.storeType != .inMemory,
      persistentStores.contains(where: { $0 !== store && $0.url?.standardizedFileURL == url.standardizedFileURL })
    {
      return false
    }
    guard store.storeType == .sqlite else {
      gate.withLock { store.location.withLock { $0 = url } }
      return true
    }
    guard url.isFileURL, FileManager.default.fileExists(atPath: url.path) else { return false }
    let moved: NSPersistentStore
    do {
      moved = try NSPersistentStore.open(
        type: .sqlite, url: url, configuration: store.configurationName, options: store.storeOptions, model: managedObjectModel)
    } catch {
      return false
    }
    guard gate.withLock({ replaceStore(store, with: moved) }) else {
      moved.close()
      return false
    }
    try? watchForRemoteChanges(moved, options: moved.storeOptions)
    postStoreReplaced(store, by: moved)
    return true
  }

  /// Turns the string form of an object's URI (``NSManagedObjectID/uriRepresentation()``'s
  /// `absoluteString`) back into an ID (Core Data's `managedObjectID(for:)`); `nil` when the string is not
  /// such a URI or names no object of this coordinator's stores, as ``managedObjectID(forURIRepresentation:)``.
  public func managedObjectID(for string: String) -> NSManagedObjectID? {
    URL(string: string).flatMap(managedObjectID(forURIRepresentation:))
  }
}

extension NSPersistentStore {
  /// The coordinator the store is added to (Core Data's `persistentStoreCoordinator`, a weak reference);
  /// `nil` once the store is removed (or replaced by a migrated or moved store), or when the coordinator is
  /// gone.
  public var persistentStoreCoordinator: NSPersistentStoreCoordinator? {
    attachedCoordinator as? NSPersistentStoreCoordinator
  }

  /// Sets the metadata of the SQLite store file at `url` now, without adding it (Core Data's class method
  /// `setMetadata(_:forPersistentStoreAt:)`); as
  /// ``NSPersistentStoreCoordinator/setMetadata(_:forPersistentStoreOfType:at:options:)`` with
  /// `NSSQLiteStoreType`: your keys are replaced, the store's own keys kept.
  ///
  /// - Throws: as that method.
  public static func setMetadata(_ metadata: [String: Any]?, forPersistentStoreAt url: URL) throws {
    try NSPersistentStoreCoordinator.setMetadata(metadata, forPersistentStoreOfType: NSSQLiteStoreType, at: url)
  }
}
