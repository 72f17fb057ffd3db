import Foundation
internal import GRDB

/// Binary stores (``StoreType/binary``, Core Data's `NSBinaryStoreType`): atomic stores. The whole object
/// graph is read from the file when the store is added, into an in-memory SQLite database that every fetch,
/// save and merge then uses as for the other store types; each save writes the whole file again
/// (``BinaryStoreArchive``), inside the save's transaction, so a save whose file cannot be written fails
/// and changes nothing, in memory or on disk.
extension NSPersistentStore {
  /// Opens (or creates) the binary store at `url` for `model`'s `entities`.
  ///
  /// A missing or empty file (Core Data's atomic stores take a zero-length file as a new store) becomes a new
  /// store, written at once so that its metadata can be read; an existing one is read whole. A file that is not
  /// a binary store, or one made with another model version, is refused and left exactly as it was.
  static func openBinary(
    url: URL?, configuration: String?, options: StoreOptions, model: NSManagedObjectModel, entities: [NSEntityDescription]
  ) throws -> NSPersistentStore {
    guard let url, url.isFileURL else {
      throw ObjectGraphError(
        .persistentStoreOpen,
        "A binary store needs a file URL; got \(url?.absoluteString ?? "nil"). Pass a file URL, e.g. URL(fileURLWithPath:).",
        url: url)
    }
    if options.persistentHistoryTracking {
      throw ObjectGraphError(
        .persistentStoreOperation,
        "The binary store at \(url.path) cannot record persistent history: Core Data records it in SQLite stores only. Use a .sqlite store, or add this one without NSPersistentHistoryTrackingKey. Nothing was written.",
        url: url)
    }
    try refuseIfNotARegularFile(url)
    let contents = (size(url.path) ?? 0) > 0 ? try BinaryStoreArchive.read(url: url) : nil
    if let contents {
      guard model.hashMatch(configuration: configuration, metadata: contents.metadata) == .coreData else {
        throw binaryIncompatibility(url: url, metadata: contents.metadata, entities: entities, options: options)
      }
    } else {
      try refuseBinaryCreation(url: url, options: options)
    }
    let identifier = contents?.metadata[NSStoreUUIDKey] as? String ?? UUID().uuidString
    var metadata = StoreMetadata.make(type: .binary, identifier: identifier, model: model, entities: entities)
    metadata[CoreDataMetadataKey.autoVacuumLevel] = nil  // SQLite's, not a binary store's
    if let stored = contents?.metadata { metadata = stored }
    var schema = SQLiteSchema(entities: entities, layout: .coreData)
    // A file the engine wrote before it tagged external records holds them bare, and is written back so.
    schema.externalRecords = ExternalBinaryRecord.Form(metadata: metadata)
    let database = try makeDatabase(path: nil, options: options, readOnly: false, url: url)
    do {
      try database.write { db in
        try writeSchema(schema, metadata: metadata, identifier: identifier, model: StoreModelCache.contents(of: model), in: db)
        if let contents {
          try BinaryStoreArchive.load(contents, into: db, url: url)
        } else {
          try BinaryStoreArchive.writeAtomically(BinaryStoreArchive.encode(from: db), to: url)
        }
      }
    } catch let failure as BinaryStoreArchive.WriteFailure {
      throw ObjectGraphError(
        .persistentStoreOpen,
        "Cannot create the binary store at \(url.path): \(failure.reason). Check that the folder is writable and that the disk has room.",
        url: url, underlyingError: failure.posixError)
    } catch let error as DatabaseError {
      throw ObjectGraphError.database(
        .persistentStoreInvalidType, "Loading the binary store at \(url.path) failed (its rows do not fit the model's tables)",
        error, advice: "The file was left untouched.", url: url)
    }
    return NSPersistentStore(
      type: .binary, url: url, identifier: identifier, configurationName: configuration, options: options,
      database: database, schema: schema, model: model, metadata: metadata)
  }

  /// Refuses to make a new binary store in a folder that does not exist, or for a read-only open. (A folder
  /// that cannot be written is found by the first write, at once.)
  private static func refuseBinaryCreation(url: URL, options: StoreOptions) throws {
    try refuseMissingFolder(for: url, kind: "binary store")
    guard !options.readOnly else {
      throw ObjectGraphError(
        .persistentStoreOpen,
        "Cannot open \(url.path) read-only: there is no binary store there yet. Create the store first, or drop the readOnly option.",
        url: url)
    }
  }

  /// The refusal of a binary store made with another model version: 134100, naming the entities that differ.
  /// A binary store is not migrated, with or without the migration options.
  private static func binaryIncompatibility(
    url: URL, metadata: [String: any Sendable], entities: [NSEntityDescription], options: StoreOptions
  ) -> ObjectGraphError {
    let migration =
      options.migratePersistentStoresAutomatically
      ? " ObjectGraph migrates SQLite stores only: open it with the model version that made it and move its objects into a .sqlite store, which migrates."
      : " Open it with the model version that made it."
    return ObjectGraphError(
      .persistentStoreIncompatibleVersionHash,
      "The binary store at \(url.path) was made with a different version of the model (\(versionDifferences(metadata, entities))).\(migration) The file was left untouched.",
      url: url, userInfo: ["metadata": metadata as [String: Any]])
  }

  /// Writes the whole store to its file, inside the caller's write transaction, when the store is a binary
  /// one (nothing otherwise): a failure throws, which rolls the transaction back, so memory and file agree.
  func writeArchiveIfAtomic(_ db: Database) throws {
    guard storeType == .binary, let url else { return }
    let data: Data
    do {
      data = try BinaryStoreArchive.encode(from: db)
    } catch let error as DatabaseError {
      throw ObjectGraphError.database(.persistentStoreSave, "Reading the binary store at \(url.path) to write it failed", error, url: url)
    } catch {
      throw ObjectGraphError(
        .persistentStoreSave,
        "Archiving the binary store at \(url.path) failed: \(error). Nothing was saved; the file was left as it was.",
        url: url, underlyingError: error)
    }
    do {
      try BinaryStoreArchive.writeAtomically(data, to: url)
    } catch let failure as BinaryStoreArchive.WriteFailure {
      throw ObjectGraphError(
        .persistentStoreSave,
        "Writing the binary store at \(url.path) failed: \(failure.reason). Nothing was saved and the file was left as it was before; the context keeps its changes. Check that the folder exists and is writable and that the disk has room, then save again.",
        url: url, underlyingError: failure.posixError)
    }
  }

  /// Refuses a batch request on a binary store or a custom (atomic) one: batch requests work in SQL on the file, which Core Data
  /// offers for SQLite stores only.
  func refuseBatchIfAtomic() throws {
    guard storeType == .binary || isCustom else { return }
    throw ObjectGraphError(
      .persistentStoreOperation,
      "The \(isCustom ? "'\(type)'" : "binary") store at \(url.storePath) does not take batch requests: as in Core Data, they run in SQL against a SQLite store. Fetch the objects, change or delete them in a context and save; nothing was changed.",
      url: url)
  }

  /// Deletes the binary store file at `url` (nothing to do when there is none); a file that is not a binary
  /// store is refused and kept, unless `force` (``NSPersistentStoreForceDestroyOption``).
  static func destroyBinaryStore(at url: URL, force: Bool = false) throws {
    guard FileManager.default.fileExists(atPath: url.path) else { return }
    if !force, (size(url.path) ?? 0) > 0 { _ = try BinaryStoreArchive.read(url: url) }
    do {
      try FileManager.default.removeItem(at: url)
    } catch {
      throw ObjectGraphError(
        .persistentStoreOperation,
        "Could not delete \(url.path) while destroying the binary store: \(error.localizedDescription). Check the folder's permissions.",
        url: url, underlyingError: error)
    }
  }
}
