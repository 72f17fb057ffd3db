import Foundation
internal import GRDB

extension NSPersistentStore {
  /// Migrates the store at `url` with a staged migration (Core Data's `NSStagedMigrationManager`), all or
  /// nothing.
  ///
  /// It runs as a migration with a mapping model does (``migrateWithMappingModel(_:url:options:configuration:model:source:sourceHashes:)``):
  /// the store's write lock is held from the first look at its version hashes until the result is committed
  /// in its place. The store is copied beside itself (SQLite's backup, which reads a `-wal` too), the stages
  /// run on the copy (their handlers' containers open the copy, never the store), and the copy's contents
  /// replace the store's in that same transaction. A handler that throws, or stages that do not reach the
  /// model the store is added with, leave the store byte for byte as it was, and the copy is removed.
  ///
  /// With `NSPersistentStoreDeferredLightweightMigrationOptionKey`, each stage's lightweight migration (a
  /// lightweight stage's, and the one between a custom stage's models) defers its cleanup as an inferred
  /// migration on open does; a stage runs what the previous one deferred first, so the store is left with
  /// the last one's tasks, in its metadata, for ``NSPersistentStoreCoordinator/finishDeferredLightweightMigration()``.
  static func migrateStaged(
    _ runner: any StagedMigrationRunner, url: URL, options: StoreOptions, configuration: String?, model: NSManagedObjectModel,
    source found: MigrationSource.Found, sourceHashes: [String: Data]?
  ) throws {
    let known = options.migrationSourceModels + ((try? MigrationSource.siblingVersions(of: model)) ?? []).map(\.model)
    let migration = MappingModelMigration { request in
      try copyStore(at: request.storeURL, to: request.migratedStoreURL)
      try runner.migrate(
        storeAt: request.migratedStoreURL, from: request.sourceModel, to: request.destinationModel, configuration: configuration,
        knownModels: known, defersCleanup: options.defersLightweightMigration)
      return true
    }
    _ = try migrateWithMappingModel(
      migration, url: url, options: options, configuration: configuration, model: model, source: found, sourceHashes: sourceHashes)
  }

  /// Copies the store at `url`, as committed (its `-wal` included), into a new file at `copy`, with SQLite's
  /// backup through a read-only connection: the store is not written.
  private static func copyStore(at url: URL, to copy: URL) throws {
    let before = SideFiles(of: url)
    defer { before.removeNewOnes() }
    let source = try inspector(url: url)
    defer { try? source.close() }
    let destination = try DatabaseQueue(path: copy.path)
    defer { try? destination.close() }
    try source.backup(to: destination)
  }
}
