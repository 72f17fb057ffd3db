import Foundation

/// Finishing a deferred lightweight migration (see ``NSPersistentStoreDeferredLightweightMigrationOptionKey``).
extension NSPersistentStoreCoordinator {
  /// Executes all remaining tasks of a deferred lightweight migration, in every store of the coordinator that
  /// has some (Core Data's `finishDeferredLightweightMigration()`).
  ///
  /// A store added with ``NSPersistentStoreDeferredLightweightMigrationOptionKey`` whose lightweight migration
  /// deferred its cleanup (dropping the indexes, columns and tables nothing maps to any more, creating the
  /// layout's non-unique indexes) has `true` under that key in its metadata until this runs. Each store's tasks
  /// run in one transaction with the update of its metadata; a store with none is left alone, as are
  /// read-only stores.
  /// - Throws: ``NSPersistentStoreSaveError`` when SQLite fails: that store's tasks stay for a later call.
  public func finishDeferredLightweightMigration() throws {
    for store in persistentStores { _ = try store.finishDeferredMigration(all: true) }
  }

  /// Executes a single pending task of a deferred lightweight migration (Core Data's
  /// `finishDeferredLightweightMigrationTask()`): the first task of the first store that has one. Call it
  /// until the stores' metadata no longer has ``NSPersistentStoreDeferredLightweightMigrationOptionKey`` to
  /// spread the cleanup over idle moments. Does nothing when no task remains.
  /// - Throws: ``NSPersistentStoreSaveError`` when SQLite fails: the task stays.
  public func finishDeferredLightweightMigrationTask() throws {
    for store in persistentStores where try store.finishDeferredMigration(all: false) { return }
  }
}
