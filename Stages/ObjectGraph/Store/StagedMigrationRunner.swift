import Foundation

/// What opening a store needs of a staged migration (Core Data's `NSStagedMigrationManager`, which lives in
/// `Container/` because its handlers use a container): the models its stages name, searched for the model
/// that made the store, and the run of its stages on a copy of the store.
///
/// The store layer holds the store's write lock, copies the store beside itself, asks the runner to bring the
/// copy to the destination model, and puts the copy's contents in place in the same transaction; a runner
/// that throws leaves the store as it was (see `NSPersistentStore.migrateStaged`).
protocol StagedMigrationRunner: Sendable {
  /// The models the stages name, where they resolve (the source model of a store is looked for among them).
  var stageModels: [NSManagedObjectModel] { get }

  /// Brings the store at `url` (a copy the engine made; nothing else has it open) from `source` to
  /// `destination`, stage by stage.
  /// - Parameters:
  ///   - url: the copy to migrate.
  ///   - source: the model that made the store.
  ///   - destination: the model the store is being added with.
  ///   - configuration: the configuration the store holds.
  ///   - knownModels: other models the store's versions may be found among (the store options' source
  ///     models, the versions beside the destination model's file).
  ///   - defersCleanup: whether the stages' lightweight migrations defer their cleanup
  ///     (`NSPersistentStoreDeferredLightweightMigrationOptionKey` on the store being added).
  /// - Throws: the error a handler throws, or an ``ObjectGraphError`` when the stages do not lead from
  ///   `source` to `destination`.
  func migrate(
    storeAt url: URL, from source: NSManagedObjectModel, to destination: NSManagedObjectModel, configuration: String?,
    knownModels: [NSManagedObjectModel], defersCleanup: Bool
  ) throws
}
