import Foundation

extension NSPersistentStoreCoordinator {
  /// The store of this coordinator at `url`, or `nil` (Core Data's `persistentStore(for:)`).
  public func persistentStore(for url: URL) -> NSPersistentStore? {
    persistentStores.first { $0.url?.standardizedFileURL == url.standardizedFileURL }
  }

  /// Deletes the store at `url` and SQLite's side files (Core Data's
  /// `destroyPersistentStore(at:type:options:)`): the safe way to start again from nothing, since deleting
  /// only the `.sqlite` file would leave a `-wal` file whose changes belong to it.
  ///
  /// When this coordinator has the store, it is removed first; objects from it can no longer be
  /// fulfilled or saved. A missing file is nothing to do. The options are read as
  /// ``addPersistentStore(type:configuration:at:options:)`` reads them; deleting needs only
  /// ``NSPersistentStoreForceDestroyOption``, which deletes a file that cannot be read as a store (damaged)
  /// instead of refusing it.
  /// - Throws: ``NSPersistentStoreInvalidTypeError`` for an in-memory type or, without
  ///   ``NSPersistentStoreForceDestroyOption``, a file that is not a store (left as it is),
  ///   ``NSPersistentStoreOperationError`` when a file cannot
  ///   be deleted, ``NSPersistentStoreOpenError`` for an option's value of the wrong type.
  public func destroyPersistentStore(
    at url: URL, type storeType: NSPersistentStore.StoreType, options: [AnyHashable: Any]? = nil
  ) throws {
    let parsed = try StoreOptions(dictionary: options)
    guard storeType != .inMemory else {
      throw ObjectGraphError(
        .persistentStoreInvalidType, "An in-memory store has no files to destroy; it goes when it is removed.")
    }
    if let store = persistentStore(for: url) { try remove(store) }
    try serialized {
      try storeType == .binary
        ? NSPersistentStore.destroyBinaryStore(at: url, force: parsed.forceDestroy)
        : NSPersistentStore.destroyFiles(at: url, force: parsed.forceDestroy)
    }
  }

  /// Deletes the store at `url` of the type named by a string (`NSSQLiteStoreType`, `NSBinaryStoreType`),
  /// Core Data's older `destroyPersistentStore(at:ofType:options:)`.
  public func destroyPersistentStore(at url: URL, ofType storeType: String, options: [AnyHashable: Any]? = nil) throws {
    try destroyPersistentStore(at: url, type: NSPersistentStore.StoreType(rawValue: storeType), options: options)
  }

  /// Replaces the store at `destinationURL` with a copy of the one at `sourceURL`, the type named by a string
  /// (Core Data's older `replacePersistentStore(at:destinationOptions:withPersistentStoreFrom:sourceOptions:ofType:)`).
  public func replacePersistentStore(
    at destinationURL: URL, destinationOptions: [AnyHashable: Any]? = nil, withPersistentStoreFrom sourceURL: URL,
    sourceOptions: [AnyHashable: Any]? = nil, ofType storeType: String
  ) throws {
    try replacePersistentStore(
      at: destinationURL, destinationOptions: destinationOptions, withPersistentStoreFrom: sourceURL,
      sourceOptions: sourceOptions, type: NSPersistentStore.StoreType(rawValue: storeType))
  }

  /// Replaces the store at `destinationURL` with a copy of the one at `sourceURL` (Core Data's
  /// `replacePersistentStore(at:destinationOptions:withPersistentStoreFrom:sourceOptions:type:)`): to
  /// restore a backup, or to put a store made elsewhere in place.
  ///
  /// The copy is made with SQLite's backup API, page by page, so a store in WAL mode comes whole. The
  /// destination is made when it does not exist. The options are read as
  /// ``addPersistentStore(type:configuration:at:options:)`` reads them; copying needs none of them.
  /// - Throws: ``NSPersistentStoreOperationError`` when this coordinator has the
  ///   destination store (remove it first) or the copy fails, ``NSPersistentStoreInvalidTypeError``
  ///   when either file is not a store (both are left as they were), ``NSPersistentStoreOpenError`` for an
  ///   option's value of the wrong type.
  public func replacePersistentStore(
    at destinationURL: URL, destinationOptions: [AnyHashable: Any]? = nil, withPersistentStoreFrom sourceURL: URL,
    sourceOptions: [AnyHashable: Any]? = nil, type sourceType: NSPersistentStore.StoreType
  ) throws {
    _ = try StoreOptions(dictionary: destinationOptions)
    _ = try StoreOptions(dictionary: sourceOptions)
    guard sourceType == .sqlite else {
      throw ObjectGraphError(.persistentStoreInvalidType, "Only SQLite stores have files to replace.")
    }
    if persistentStore(for: destinationURL) != nil {
      throw ObjectGraphError(
        .persistentStoreOperation,
        "The store at \(destinationURL.path) is in use by this coordinator. Remove it (remove(_:)) before replacing it, then add it again.",
        url: destinationURL)
    }
    try serialized { try NSPersistentStore.copyStore(from: sourceURL, to: destinationURL) }
  }

  /// Runs `block` on the coordinator's queue, one request at a time with every context's requests
  /// (Core Data's `perform(_:)`).
  public func perform(_ block: @escaping @Sendable () -> Void) {
    performQueue.async { self.gate.withLock { block() } }
  }

  /// Runs `block` with the coordinator to itself, returning its result (Core Data's `performAndWait(_:)`).
  /// Re-entrant: a block may call it again.
  public func performAndWait<T>(_ block: () throws -> T) rethrows -> T {
    gate.lock()
    defer { gate.unlock() }
    return try block()
  }
}
