import Foundation
import GRDB

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
  public var migrationSourceModels: [NSManagedObjectModel]
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
  /// deleted, which ``NSPersistentHistoryChangeRequest`` reads back. Default `false`.
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
