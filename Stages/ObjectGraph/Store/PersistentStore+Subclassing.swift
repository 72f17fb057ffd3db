import Foundation
internal import GRDB

/// What the store's layer does for a store of a class of the app's own (see "Custom store classes" in
/// Docs/ObjectGraph.md): its in-memory database, the registry of store classes, and the checks of the
/// metadata a subclass reports.
extension NSPersistentStore {
  /// The thread-dictionary key under which the coordinator passes the type string being added to the
  /// initializer of a registered class (Core Data's initializer has no parameter for it).
  static let typeBeingAddedKey = "org.objectgraph.storeTypeBeingAdded"

  /// The registered store classes, by type string (``NSPersistentStoreCoordinator/registerStoreClass(_:forStoreType:)``).
  static let registeredClasses = Locked<[String: NSPersistentStore.Type]>([:])

  /// The in-memory database of a custom store, with the schema and (empty) metadata tables written; the
  /// problem, when writing them failed, is reported when the store is added.
  static func customDatabase(
    schema: SQLiteSchema, model: NSManagedObjectModel, identifier: String, options: StoreOptions, url: URL
  ) -> (queue: DatabaseQueue, problem: ObjectGraphError?) {
    let queue: DatabaseQueue
    do {
      queue = try makeDatabase(path: nil, options: options, readOnly: false, url: nil)
    } catch {
      // An in-memory database fails to open only when memory is exhausted; options that break the pragmas
      // are retried without them, so the store can at least report the error when it is added.
      guard let plain = try? makeDatabase(path: nil, options: StoreOptions(), readOnly: false, url: nil) else {
        programmerError("SQLite could not open an in-memory database for the store at \(url.path): the process is out of memory.")
      }
      return (plain, error as? ObjectGraphError)
    }
    do {
      try queue.write { db in
        try writeSchema(schema, metadata: [:], identifier: identifier, model: StoreModelCache.contents(of: model), in: db)
      }
    } catch {
      return (queue, ObjectGraphError(.persistentStoreOpen, "Could not make the tables of the store at \(url.path): \(error).", url: url))
    }
    return (queue, nil)
  }

  /// Checks the metadata a custom store reports after ``loadMetadata()`` (Core Data's rules): it names the
  /// type the store was added as (`NSStoreTypeKey`) and a UUID (`NSStoreUUIDKey`), and model version hashes,
  /// when it has them, that match the coordinator's model (else 134100, as for a SQLite store). A store
  /// without hashes (a new one) takes the model's, so that its next save writes them.
  func checkCustomMetadata(type: String) throws {
    let found = sendableMetadata
    guard let storedType = found[NSStoreTypeKey] as? String, storedType == type else {
      throw ObjectGraphError(
        .persistentStoreInvalidType,
        "The store at \(url.storePath) reports NSStoreTypeKey \(found[NSStoreTypeKey].map { "'\($0)'" } ?? "(none)"), not '\(type)', the type it was added as. Set metadata[NSStoreTypeKey] to the store's type in the initializer or loadMetadata(), or add the file with the type it has.",
        url: url)
    }
    guard let uuid = found[NSStoreUUIDKey] as? String, !uuid.isEmpty else {
      throw ObjectGraphError(
        .persistentStoreInvalidType,
        "The store at \(url.storePath) reports no NSStoreUUIDKey in its metadata. Give a new store a UUID string (UUID().uuidString) in the initializer or loadMetadata(), and keep it in the file.",
        url: url)
    }
    let entities = model.entities(forConfigurationName: configurationName) ?? []
    guard found[NSStoreModelVersionHashesKey] != nil else {
      var filled = StoreMetadata.make(type: storeType, identifier: uuid, model: model, entities: entities)
      filled[CoreDataMetadataKey.autoVacuumLevel] = nil  // SQLite's, not a custom store's
      storedMetadata.withLock { $0.merge(filled) { kept, _ in kept } }
      return
    }
    guard model.hashMatch(configuration: configurationName, metadata: found) != nil else {
      throw ObjectGraphError(
        .persistentStoreIncompatibleVersionHash,
        "The store at \(url.storePath) was made with a different version of the model (\(Self.versionDifferences(found, entities))). Open it with the model version that made it. The file was left untouched.",
        url: url, userInfo: ["metadata": found as [String: Any]])
    }
  }

  /// Cocoa's file error 260 for a store file that does not exist, as Core Data reports it (not a store error).
  static func noSuchFile(_ url: URL) -> ObjectGraphError {
    ObjectGraphError(
      .fileReadNoSuchFile,
      "The file “\(url.lastPathComponent)” couldn’t be opened because there is no such file (\(url.path)). Check the store URL, or create the store first.",
      url: url)
  }

  /// Writes `request`'s inserts into the store's database in one transaction, without the subclass hooks a
  /// save calls: how a custom store's loaded contents become rows.
  func loadRows(_ request: StoreSaveRequest) throws {
    do {
      _ = try database.write { db in try SaveTransaction(store: self, request: request, db: db).run() }
    } catch let error as DatabaseError {
      throw ObjectGraphError.database(
        .persistentStoreOpen, "Loading the store at \(url.storePath) failed (its objects do not fit the model)", error, url: url)
    }
  }

  /// The permanent ID of a new row of `entity`, its primary key reserved (what a custom store gives an
  /// object it loads).
  func reserveID(for entity: NSEntityDescription) throws -> NSManagedObjectID {
    guard holds(entity) else {
      throw ObjectGraphError(
        .persistentStoreOperation,
        "The store at \(url.storePath) does not hold entity \(entity.entityName) (its configuration is '\(configurationName ?? "Default")').",
        url: url)
    }
    guard let id = try reservePermanentIDs(for: [entity]).first else {
      throw ObjectGraphError(.persistentStoreOperation, "No primary key was reserved for \(entity.entityName).", url: url)
    }
    return id
  }
}

extension StoreMetadata {
  /// `metadata` with values that can cross queues: each value a property list can hold, through a property
  /// list's round trip; the others are dropped.
  static func sendable(_ metadata: [String: Any]) -> [String: any Sendable] {
    var result: [String: any Sendable] = [:]
    for (key, value) in metadata {
      guard
        let data = try? PropertyListSerialization.data(fromPropertyList: [key: value] as NSDictionary, format: .binary, options: 0),
        let decoded = decode(data), let kept = decoded[key]
      else { continue }
      result[key] = kept
    }
    return result
  }
}
