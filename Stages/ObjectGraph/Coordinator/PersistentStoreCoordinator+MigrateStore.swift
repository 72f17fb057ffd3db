import Foundation

extension NSPersistentStoreCoordinator {
  /// Moves `store` to a new location, changing its type if asked (Core Data's
  /// `migratePersistentStore(_:to:options:type:)`): "Save As" for a store, or moving it into a shared folder.
  ///
  /// A new store of `storeType` is made at `storeURL` holding a copy of everything `store` holds, and takes
  /// its place in the coordinator: `store` is removed (and closed), its file left as it was. The new store
  /// keeps the old one's identifier (its `NSStoreUUIDKey`), so the objects and IDs every context holds stay
  /// valid and now name rows of the new store; saves go to it from then on. Persistent history is copied when
  /// `options` keep `NSPersistentHistoryTrackingKey` on, and left behind otherwise. One
  /// `.NSPersistentStoreCoordinatorStoresDidChange` tells both changes: the new store under
  /// `NSAddedPersistentStoresKey`, the old one under `NSRemovedPersistentStoresKey` (after
  /// `.NSPersistentStoreCoordinatorWillRemoveStore` for it).
  ///
  /// The copy is made with no save running (the coordinator serves one request at a time), so a save made
  /// on any queue is either in the copy or goes to the new store: none is lost.
  ///
  /// - Parameters:
  ///   - store: one of this coordinator's stores.
  ///   - storeURL: where the new store goes; nothing may be there yet (ignored for an in-memory store).
  ///   - options: the new store's options, read as ``addPersistentStore(type:configuration:at:options:)``
  ///     reads them; the old store's are not carried over.
  ///   - storeType: `.sqlite`, `.binary` or `.inMemory`.
  /// - Returns: the new store.
  /// - Throws: ``NSPersistentStoreOperationError`` when `store` is not one of this coordinator's, a file
  ///   is already at `storeURL`, or the copy cannot be written; ``NSPersistentStoreOpenError`` for a URL that
  ///   is not a file, a missing folder or an option of the wrong type; ``NSPersistentStoreInvalidTypeError``
  ///   for another type. When it throws, `store` is still in the coordinator, unchanged, and no new file is
  ///   left behind.
  @discardableResult
  public func migratePersistentStore(
    _ store: NSPersistentStore, to storeURL: URL, options: [AnyHashable: Any]? = nil, type storeType: NSPersistentStore.StoreType
  ) throws -> NSPersistentStore {
    let parsed = try StoreOptions(dictionary: options)
    let migrated = try serialized { () throws -> NSPersistentStore in
      guard persistentStores.contains(where: { $0 === store }) else {
        throw ObjectGraphError(
          .persistentStoreOperation, "\(store) is not one of this coordinator's stores, so it cannot be migrated from here.")
      }
      if storeType != .inMemory, let other = persistentStore(for: storeURL) {
        throw ObjectGraphError(
          .persistentStoreOperation,
          "\(other) is already at \(storeURL.path) in this coordinator. Migrate to a new URL.", url: storeURL)
      }
      let migrated = try store.relocated(to: storeURL, type: storeType, options: parsed)
      do {
        try watchForRemoteChanges(migrated, options: parsed)
      } catch {
        migrated.close()
        if let url = migrated.url, storeType != .inMemory { NSPersistentStore.removeFiles(of: url) }
        throw error
      }
      postStoreWillBeRemoved(store)
      _ = replaceStore(store, with: migrated)
      return migrated
    }
    postStoreReplaced(store, by: migrated)
    return migrated
  }

  /// Moves `store` to a new location of the type named by a string (Core Data's older
  /// `migratePersistentStore(_:to:options:withType:)`); see ``migratePersistentStore(_:to:options:type:)``.
  @discardableResult
  public func migratePersistentStore(
    _ store: NSPersistentStore, to URL: URL, options: [AnyHashable: Any]? = nil, withType storeType: String
  ) throws -> NSPersistentStore {
    try migratePersistentStore(store, to: URL, options: options, type: NSPersistentStore.StoreType(rawValue: storeType))
  }
}
