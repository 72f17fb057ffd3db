import Foundation
import GRDB

/// The kinds of store ObjectGraph offers.
public enum StoreType: String, Sendable {
  /// A SQLite file laid out as Core Data lays out its SQLite stores.
  case sqlite = "SQLite"
  /// A store that lives in memory and is gone when it is removed: for tests and previews. (It is an
  /// in-memory SQLite database, so it behaves exactly like the file store, minus the file.)
  case inMemory = "InMemory"
}

/// Options for adding a store: Core Data's options dictionary, typed.
public struct StoreOptions: Sendable {
  /// Migrate a store made with an older model version when it is opened
  /// (`NSMigratePersistentStoresAutomaticallyOption`).
  public var migratePersistentStoresAutomatically: Bool
  /// Infer the mapping between model versions (`NSInferMappingModelAutomaticallyOption`).
  public var inferMappingModelAutomatically: Bool
  /// SQLite pragmas run on every connection (`NSSQLitePragmasOption`), e.g. `["journal_mode": "DELETE"]`.
  /// `journal_mode` defaults to `WAL`, as in Core Data.
  public var sqlitePragmas: [String: String]
  /// Open the store read-only (`NSReadOnlyPersistentStoreOption`): saves fail with a clear error.
  public var readOnly: Bool
  /// Called with each SQL statement this store runs (as prepared, with `?` for its arguments), on the
  /// thread that runs it, once the statement has run. An ObjectGraph addition with no Core Data option:
  /// it lets a test or a tool watch one store's SQL, where ``SQLDebug`` logs every store of the process.
  ///
  /// ```swift
  /// let options = StoreOptions(sqlTrace: { sql in print("Notes store:", sql) })
  /// try coordinator.addPersistentStore(type: .sqlite, at: storeURL, options: options)
  /// ```
  public var sqlTrace: (@Sendable (String) -> Void)?
  /// Models a store may have been made with, searched (before the versions next to the current model's
  /// file and the model kept in the store itself) when the store needs a migration. An ObjectGraph
  /// addition: Core Data searches the app's bundles for them.
  public var migrationSourceModels: [ManagedObjectModel]
  /// Called as a migration advances, on the thread that migrates, with ``MigrationProgress`` from 0 to
  /// 1; never called when the store needs no migration. An ObjectGraph addition (Core Data reports the
  /// progress of a migration only through its migration manager).
  ///
  /// ```swift
  /// let options = StoreOptions(migrationProgress: { progress in
  ///   DispatchQueue.main.async { bar.fraction = progress.fractionCompleted }
  /// })
  /// ```
  public var migrationProgress: (@Sendable (MigrationProgress) -> Void)?
  /// Record every change written to the store as persistent history (`NSPersistentHistoryTrackingKey`):
  /// transactions with their author and context name, and the objects each inserted, updated or
  /// deleted, which ``PersistentHistoryChangeRequest`` reads back. Default `false`.
  public var persistentHistoryTracking = false
  /// How a store that needs a migration is migrated with a mapping model when it is opened, before
  /// inference is tried: `.mappingModels(in: bundles, policies: …)` looks for a compiled mapping model in
  /// the given folders and beside the model, as Core Data looks in the app's bundles. `nil` (the default):
  /// no mapping model is looked for. An ObjectGraph addition (see ``MappingModelMigration``).
  public var mappingModelMigration: MappingModelMigration?

  /// Makes store options; the defaults are the ones a Core Data stack normally sets.
  public init(
    migratePersistentStoresAutomatically: Bool = true, inferMappingModelAutomatically: Bool = true,
    sqlitePragmas: [String: String] = [:], readOnly: Bool = false, sqlTrace: (@Sendable (String) -> Void)? = nil,
    migrationSourceModels: [ManagedObjectModel] = [], migrationProgress: (@Sendable (MigrationProgress) -> Void)? = nil,
    persistentHistoryTracking: Bool = false
  ) {
    self.persistentHistoryTracking = persistentHistoryTracking
    self.sqlTrace = sqlTrace
    self.migrationSourceModels = migrationSourceModels
    self.migrationProgress = migrationProgress
    self.migratePersistentStoresAutomatically = migratePersistentStoresAutomatically
    self.inferMappingModelAutomatically = inferMappingModelAutomatically
    self.sqlitePragmas = sqlitePragmas
    self.readOnly = readOnly
  }
}

/// A store added to a coordinator: a SQLite file or an in-memory database.
///
/// You get one from ``PersistentStoreCoordinator/addPersistentStore(type:configuration:at:options:)``;
/// it tells where the data lives and carries the store's metadata (its UUID, the model version hashes it
/// was made with).
public final class PersistentStore: Sendable, CustomStringConvertible {
  /// The kind of store.
  public let type: StoreType
  /// The file, for a SQLite store; `nil` for an in-memory one.
  public let url: URL?
  /// The store's unique identifier (a UUID string), written in its metadata and in its objects' URIs.
  public let identifier: String
  /// The model configuration the store holds (`nil`: every entity).
  public let configurationName: String?
  /// The options the store was added with.
  public let options: StoreOptions
  let database: DatabaseQueue
  let schema: SQLiteSchema
  /// A small number standing for ``identifier`` in this process, used in object IDs' hashes.
  let number: Int
  /// How rows of each entity are decoded and written, indexed by entity number.
  let plans: StorePlans
  /// Per entity number (index 0 unused): the source the identities of its fetched rows share.
  let rowSources: [RowSource?]
  let model: ManagedObjectModel
  /// The metadata as the store holds it or will write it at its next save (see ``pendingMetadata``).
  let storedMetadata: Locked<[String: any Sendable]>
  /// App keys set with `PersistentStoreCoordinator.setMetadata(_:for:)` and not yet written.
  let pendingMetadata = Locked<PendingMetadata?>(nil)
  /// For a store opened read-only: the journal files that were beside it before, so that closing it removes
  /// the ones its connection made.
  let sideFiles: SideFiles?
  /// The file's `PRAGMA schema_version` when the store was opened (or last found unchanged in its model):
  /// see ``refuseWritesIfModelChanged(_:)``.
  let schemaVersion = Locked<Int?>(nil)

  init(
    type: StoreType, url: URL?, identifier: String, configurationName: String?, options: StoreOptions,
    database: DatabaseQueue, schema: SQLiteSchema, model: ManagedObjectModel, metadata: [String: any Sendable],
    sideFiles: SideFiles? = nil
  ) {
    self.sideFiles = sideFiles
    self.type = type
    self.url = url
    self.identifier = identifier
    self.configurationName = configurationName
    self.options = options
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
  func makeID(entity: EntityDescription, primaryKey: Int64) -> ManagedObjectID {
    makeID(entity: entity, table: schema.byIdentity[ObjectIdentifier(entity)]?.rootNumber ?? 0, primaryKey: primaryKey)
  }

  /// The same, when the table (the root entity's number) is already known.
  func makeID(entity: EntityDescription, table: Int64, primaryKey: Int64) -> ManagedObjectID {
    ManagedObjectID(
      entity: entity, key: .permanent(store: number, table: table, primaryKey: primaryKey), storeIdentifier: identifier)
  }

  /// The store's metadata: `NSStoreType`, `NSStoreUUID`, `NSStoreModelVersionHashes` (`[String: Data]`),
  /// `NSStoreModelVersionIdentifiers`, as Core Data keeps them, and the app's own keys (see
  /// ``PersistentStoreCoordinator/setMetadata(_:for:)``), including those not yet written.
  public var metadata: [String: any Sendable] { storedMetadata.withLock { $0 } }

  /// Whether the store holds the entity (per its configuration).
  func holds(_ entity: EntityDescription) -> Bool { schema.byIdentity[ObjectIdentifier(entity)] != nil }

  public var description: String {
    "<PersistentStore \(type.rawValue) \(url?.path ?? "in memory") \(identifier)>"
  }
}
