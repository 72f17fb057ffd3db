import Foundation
internal import GRDB

/// The engine's parsed form of the options dictionary a store is added with (see
/// `StoreOptions(dictionary:)` and the keys in StoreOptionKeys.swift): Core Data's options dictionary,
/// typed. Internal: the public methods take Core Data's `[AnyHashable: Any]?` dictionaries only.
struct StoreOptions: Sendable {
  /// Migrate a store made with an older model version when it is opened
  /// (`NSMigratePersistentStoresAutomaticallyOption`).
  var migratePersistentStoresAutomatically: Bool
  /// Infer the mapping between model versions (`NSInferMappingModelAutomaticallyOption`).
  var inferMappingModelAutomatically: Bool
  /// SQLite pragmas run on every connection (`NSSQLitePragmasOption`), e.g. `["journal_mode": "DELETE"]`.
  /// `journal_mode` defaults to `WAL`, as in Core Data.
  var sqlitePragmas: [String: String]
  /// Open the store read-only (`NSReadOnlyPersistentStoreOption`): saves fail with a clear error.
  var readOnly: Bool
  /// Called with each SQL statement this store runs (as prepared, with `?` for its arguments), on the
  /// thread that runs it, once the statement has run. An ObjectGraph addition with no Core Data option:
  /// it lets a test or a tool watch one store's SQL, where ``SQLDebug`` logs every store of the process.
  ///
  var sqlTrace: (@Sendable (String) -> Void)?
  /// Models a store may have been made with, searched (before the versions next to the current model's
  /// file and the model kept in the store itself) when the store needs a migration. An ObjectGraph
  /// addition: Core Data searches the app's bundles for them.
  var migrationSourceModels: [NSManagedObjectModel]
  /// Called as a migration advances, on the thread that migrates, with ``MigrationProgress`` from 0 to
  /// 1; never called when the store needs no migration. An ObjectGraph addition (Core Data reports the
  /// progress of a migration only through its migration manager).
  var migrationProgress: (@Sendable (MigrationProgress) -> Void)?
  /// Record every change written to the store as persistent history (`NSPersistentHistoryTrackingKey`):
  /// transactions with their author and context name, and the objects each inserted, updated or
  /// deleted, which ``NSPersistentHistoryChangeRequest`` reads back. Default `false`.
  var persistentHistoryTracking = false
  /// Post ``Foundation/NSNotification/Name/NSPersistentStoreRemoteChange`` after every write to the store, by
  /// anyone (`NSPersistentStoreRemoteChangeNotificationPostOptionKey`; see ``StoreChangeWatcher``). Default
  /// `false`.
  var postsRemoteChangeNotifications = false
  /// How a store that needs a migration is migrated with a mapping model when it is opened, before
  /// inference is tried: `.mappingModels(in: bundles, policies: …)` looks for a compiled mapping model in
  /// the given folders and beside the model, as Core Data looks in the app's bundles. `nil` (the default):
  /// no mapping model is looked for. An ObjectGraph addition (see ``MappingModelMigration``).
  var mappingModelMigration: MappingModelMigration?
  /// The staged migration that brings a store made with an earlier model version up to date when it is
  /// opened, tried before ``mappingModelMigration`` and inference
  /// (`NSPersistentStoreStagedMigrationManagerOptionKey`). `nil` (the default): none.
  var stagedMigration: (any StagedMigrationRunner)?
  /// Let a lightweight migration defer its cleanup to
  /// ``NSPersistentStoreCoordinator/finishDeferredLightweightMigration()``
  /// (`NSPersistentStoreDeferredLightweightMigrationOptionKey`). Default `false`.
  var defersLightweightMigration = false
  /// Run `ANALYZE` when the store is added (`NSSQLiteAnalyzeOption`). Default `false`.
  var analyzesOnAdd = false
  /// Run `VACUUM` when the store is added (`NSSQLiteManualVacuumOption`). Default `false`.
  var vacuumsOnAdd = false
  /// Delete a store's files even when they cannot be read as a store (`NSPersistentStoreForceDestroyOption`,
  /// read by `destroyPersistentStore`). Default `false`.
  var forceDestroy = false
  /// How long, in seconds, the store's connection waits for another connection's lock
  /// (`NSPersistentStoreTimeoutOption`). Default 10.
  var busyTimeout: TimeInterval = 10
  /// The dictionary these options were parsed from, as the caller gave it (`nil` when none was given, or
  /// when the options were made typed): what ``NSPersistentStore/options`` hands back.
  var dictionary = GivenOptions(nil)

  /// Makes store options; the defaults are the ones a Core Data stack normally sets.
  init(
    migratePersistentStoresAutomatically: Bool = true, inferMappingModelAutomatically: Bool = true,
    sqlitePragmas: [String: String] = [:], readOnly: Bool = false, sqlTrace: (@Sendable (String) -> Void)? = nil,
    migrationSourceModels: [NSManagedObjectModel] = [], migrationProgress: (@Sendable (MigrationProgress) -> Void)? = nil,
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

/// The options dictionary a store was added with, kept to be handed back as ``NSPersistentStore/options``.
///
/// `@unchecked Sendable` is safe here: the dictionary is a `let` copy of the caller's, never mutated; the
/// engine reads its values only in `StoreOptions(dictionary:)`, on the thread that adds the store, before
/// the store exists, and afterwards only returns the dictionary unchanged. A value that is itself a mutable
/// class instance is shared exactly as Core Data shares it through its own `options` (a non-Sendable
/// `[AnyHashable: Any]?`); the engine never touches it again.
struct GivenOptions: @unchecked Sendable {
  let value: [AnyHashable: Any]?
  init(_ value: [AnyHashable: Any]?) { self.value = value }
}
