import Foundation
internal import GRDB

/// The store's half of `migratePersistentStore(_:to:options:type:)`: a new store of another type or at
/// another place, holding a copy of this one.
extension NSPersistentStore {
  /// Makes a new store of `type` at `url` holding everything this store holds: its rows, its metadata and
  /// its identifier, so that the object IDs contexts hold name the same objects in the new store.
  ///
  /// The copy is taken with SQLite's backup API from this store's connection (the caller holds the
  /// coordinator's gate, so no save runs meanwhile) into a database in memory, where its metadata is given
  /// the new type and, unless `options` keep history tracking on, the history tables are dropped. That
  /// database then becomes the new store: written page by page to a new SQLite file, archived whole to a
  /// binary file, or kept as the new in-memory store. This store and its file are not changed.
  ///
  /// - Throws: ``NSPersistentStoreOperationError`` when something is already at `url` (nothing is ever
  ///   overwritten) or the copy cannot be written, ``NSPersistentStoreOpenError`` for a URL that is not a
  ///   file or a missing folder, ``NSPersistentStoreInvalidTypeError`` for a type the engine has no store
  ///   for. A destination file made before the failure is removed.
  func relocated(to url: URL, type: NSPersistentStore.StoreType, options: StoreOptions) throws -> NSPersistentStore {
    let inMemory = type == .inMemory || (type == .sqlite && url.isFileURL && url.standardizedFileURL.path == "/dev/null")
    if !inMemory { try Self.refuseRelocationTarget(url, type: type) }
    let copy = try Self.makeDatabase(path: nil, options: options, readOnly: false, url: inMemory ? url : nil)
    do {
      try database.backup(to: copy)
      try copy.write { db in
        try StoreMetadata.update(in: db, with: [NSStoreTypeKey: type.rawValue], url: url)
        // Values Core Data kept in files beside this store come into their rows: the copy has no such folder.
        try inlineExternalRecords(in: db)
        if !options.persistentHistoryTracking {
          for table in ["ACHANGE", "ATRANSACTION", "ATRANSACTIONSTRING"] { try db.execute(sql: "DROP TABLE IF EXISTS \(table)") }
        }
      }
    } catch let error as DatabaseError {
      throw ObjectGraphError.database(
        .persistentStoreOperation, "Copying the store at \(self.url.storePath) failed; it is unchanged", error, url: self.url)
    }
    if inMemory { return try inMemoryCopy(copy, url: url, type: type, options: options) }
    do {
      if type == .binary {
        let archive = try copy.read { try BinaryStoreArchive.encode(from: $0) }
        try BinaryStoreArchive.writeAtomically(archive, to: url)
      } else {
        try Self.backUp(copy, toFile: url)
      }
      try copy.close()
      return try Self.open(type: type, url: url, configuration: configurationName, options: options, model: model)
    } catch {
      Self.removeFiles(of: url)
      if let failure = error as? BinaryStoreArchive.WriteFailure {
        throw ObjectGraphError(
          .persistentStoreOperation,
          "Cannot write the binary store at \(url.path): \(failure.reason). Check that the folder is writable and that the disk has room. The store at \(self.url.storePath) is unchanged.",
          url: url, underlyingError: failure.posixError)
      }
      if let error = error as? DatabaseError {
        throw ObjectGraphError.database(
          .persistentStoreOperation, "Writing the new store at \(url.path) failed; the store at \(self.url.storePath) is unchanged", error,
          url: url)
      }
      throw error
    }
  }

  /// Refuses a destination that is not a file URL, whose folder is missing, or where a file with contents
  /// already is (a store or anything else: it is never overwritten).
  private static func refuseRelocationTarget(_ url: URL, type: NSPersistentStore.StoreType) throws {
    guard type == .sqlite || type == .binary else { throw unknownType(type, url: url) }
    guard url.isFileURL else {
      throw ObjectGraphError(
        .persistentStoreOpen, "A store needs a file URL; got \(url.absoluteString). Pass a file URL, e.g. URL(fileURLWithPath:).",
        url: url)
    }
    try refuseMissingFolder(for: url)
    try refuseIfNotARegularFile(url)
    let taken = ["", "-journal", "-wal"].contains { (size(url.path + $0) ?? 0) > 0 }
    if taken {
      throw ObjectGraphError(
        .persistentStoreOperation,
        "There is already a file at \(url.path): migratePersistentStore makes a new store and never overwrites one. Choose another URL, or remove the old store first (destroyPersistentStore(at:type:options:)).",
        url: url)
    }
  }

  /// The in-memory store made of `copy`, with this store's identifier, schema and model.
  private func inMemoryCopy(_ copy: DatabaseQueue, url: URL, type: NSPersistentStore.StoreType, options: StoreOptions) throws
    -> NSPersistentStore
  {
    let metadata = try copy.read { try StoreMetadata.read(in: $0) }
    let store = NSPersistentStore(
      type: type, url: url, identifier: identifier, configurationName: configurationName, options: options, database: copy,
      schema: schema, model: model, metadata: metadata)
    do {
      if options.persistentHistoryTracking { try store.createHistoryTables() }
      try store.recordSchemaVersion()
    } catch let error as DatabaseError {
      store.close()
      throw ObjectGraphError.database(.persistentStoreOpen, "Making the in-memory copy of \(self.url.storePath) failed", error, url: url)
    }
    return store
  }
}
