import Foundation
internal import GRDB

/// A store added to a coordinator: a SQLite file or an in-memory database.
///
/// You get one from ``NSPersistentStoreCoordinator/addPersistentStore(type:configuration:at:options:)``;
/// it tells where the data lives and carries the store's metadata (its UUID, the model version hashes it
/// was made with).
public final class NSPersistentStore: Sendable, CustomStringConvertible {
  /// The store's type string, as Core Data's `type` is: `NSSQLiteStoreType`, `NSInMemoryStoreType` or
  /// `NSBinaryStoreType` (`store.type == NSSQLiteStoreType`).
  public var type: String { storeType.rawValue }
  /// The kind of store, as the engine tells them apart.
  let storeType: NSPersistentStore.StoreType
  /// The file, for a SQLite or binary store; `nil` for an in-memory one (Core Data's `url`). To move a
  /// store, call ``NSPersistentStoreCoordinator/setURL(_:for:)``.
  public var url: URL? { location.withLock { $0 } }
  /// The store's unique identifier (a UUID string), written in its metadata and in its objects' URIs.
  public let identifier: String
  /// The model configuration the store holds (`nil`: every entity).
  public let configurationName: String?
  /// The options dictionary the store was added with, as it was given (Core Data's `options`); `nil` when
  /// it was added with none.
  public var options: [AnyHashable: Any]? { storeOptions.dictionary.value }
  /// The options the store was added with, as the engine parsed them from ``options``.
  let storeOptions: StoreOptions
  let database: DatabaseQueue
  let schema: SQLiteSchema
  /// A small number standing for ``identifier`` in this process, used in object IDs' hashes.
  let number: Int
  /// How rows of each entity are decoded and written, indexed by entity number.
  let plans: StorePlans
  /// Per entity number (index 0 unused): the source the identities of its fetched rows share.
  let rowSources: [RowSource?]
  let model: NSManagedObjectModel
  /// The metadata as the store holds it or will write it at its next save (see ``pendingMetadata``).
  let storedMetadata: Locked<[String: any Sendable]>
  /// App keys set with `NSPersistentStoreCoordinator.setMetadata(_:for:)` and not yet written.
  let pendingMetadata = Locked<PendingMetadata?>(nil)
  /// For a store opened read-only: the journal files that were beside it before, so that closing it removes
  /// the ones its connection made.
  let sideFiles: SideFiles?
  /// The file's `PRAGMA schema_version` when the store was opened (or last found unchanged in its model):
  /// see ``refuseWritesIfModelChanged(_:)``.
  let schemaVersion = Locked<Int?>(nil)
  /// Why the store was opened read-only though the caller asked for read-write (Core Data's history tables
  /// without history tracking), for the error a write gets; `nil` otherwise.
  let readOnlyReason: String?
  /// The coordinator the store is added to, weakly (``NSPersistentStore/persistentStoreCoordinator``, declared
  /// by the coordinator's layer): set when the store is added, cleared when it is removed.
  let attachment = Locked(StoreAttachment())
  /// Whether ``isReadOnly`` was set to `true` on the store after it was added.
  let markedReadOnly = Locked(false)
  /// Where the store is (``url``): moved by `NSPersistentStoreCoordinator.setURL(_:for:)`.
  let location: Locked<URL?>

  init(
    type: NSPersistentStore.StoreType, url: URL?, identifier: String, configurationName: String?, options: StoreOptions,
    database: DatabaseQueue, schema: SQLiteSchema, model: NSManagedObjectModel, metadata: [String: any Sendable],
    sideFiles: SideFiles? = nil, readOnlyReason: String? = nil
  ) {
    self.readOnlyReason = readOnlyReason
    self.sideFiles = sideFiles
    storeType = type
    location = Locked(url)
    self.identifier = identifier
    self.configurationName = configurationName
    storeOptions = options
    self.database = database
    self.schema = schema
    self.model = model
    storedMetadata = Locked(metadata)
    number = Self.numbers.withLock { table -> Int in
      if let known = table[identifier] { return known }
      let next = table.count + 1
      table[identifier] = next
      return next
    }
    plans = StorePlans(schema: schema)
    var sources = [RowSource?](repeating: nil, count: plans.decode.count)
    for (entityNumber, plan) in plans.decode.enumerated() {
      guard let plan else { continue }
      sources[entityNumber] = RowSource(
        entity: plan.entity, storeNumber: number, storeIdentifier: identifier, table: plan.rootNumber)
    }
    rowSources = sources
  }

  /// Store identifiers (UUIDs from the files' metadata) to small numbers, for the whole process: two
  /// coordinators on one file give its objects equal IDs, as the file's URIs are equal.
  private static let numbers = Locked<[String: Int]>([:])

  /// The permanent ID of row `primaryKey` of `entity` in this store.
  func makeID(entity: NSEntityDescription, primaryKey: Int64) -> NSManagedObjectID {
    makeID(entity: entity, table: schema.byIdentity[ObjectIdentifier(entity)]?.rootNumber ?? 0, primaryKey: primaryKey)
  }

  /// The same, when the table (the root entity's number) is already known.
  func makeID(entity: NSEntityDescription, table: Int64, primaryKey: Int64) -> NSManagedObjectID {
    NSManagedObjectID(
      entity: entity, key: .permanent(store: number, table: table, primaryKey: primaryKey), storeIdentifier: identifier)
  }

  /// The store's metadata: `NSStoreType`, `NSStoreUUID`, `NSStoreModelVersionHashes` (`[String: Data]`),
  /// `NSStoreModelVersionIdentifiers`, as Core Data keeps them, and the app's own keys (see
  /// ``NSPersistentStoreCoordinator/setMetadata(_:for:)``), including those not yet written.
  public var metadata: [String: Any] { sendableMetadata }

  /// ``metadata`` as the engine passes it between queues.
  var sendableMetadata: [String: any Sendable] { storedMetadata.withLock { $0 } }

  /// Whether the store holds the entity (per its configuration).
  func holds(_ entity: NSEntityDescription) -> Bool { schema.byIdentity[ObjectIdentifier(entity)] != nil }

  public var description: String {
    "<NSPersistentStore \(type) \(url?.path ?? "in memory") \(identifier)>"
  }
}
