import Foundation

/// How opening a store migrates it with a mapping model: Core Data looks for one in the app's bundles when
/// a store made with another model version is opened with automatic migration. An ObjectGraph addition,
/// set under the store option ``ObjectGraphMappingModelMigrationOption``; make one with
/// `MappingModelMigration.mappingModels(in:policies:)`. `NSPersistentContainer` sets `.mappingModels()` in
/// the stores it loads with automatic migration, unless their options already have one.
///
/// ```swift
/// let migration = MappingModelMigration.mappingModels(
///   in: [mappingFolder], policies: ["V2to3MakerPolicy": { MakerPolicy() }])
/// try coordinator.addPersistentStore(
///   type: .sqlite, at: storeURL,
///   options: [NSMigratePersistentStoresAutomaticallyOption: true, ObjectGraphMappingModelMigrationOption: migration])
/// ```
///
/// When a store needs a migration, it is asked first (as Core Data uses a mapping model it finds before
/// inferring one); when it finds no mapping model, inference runs if it is switched on, and the store is
/// refused with 134140 if not. The engine holds the store's write lock from its check of the store's version
/// hashes until the migrated contents are committed in its place: a second coordinator or process opening
/// the store meanwhile waits and then finds it migrated, and no write made elsewhere can be lost.
public struct MappingModelMigration: Sendable {
  /// What a migration on open knows: the store, the model that made it and the model it is opened with.
  public struct Request: Sendable {
    /// The store file to migrate: read it, never write it (the engine holds its write lock meanwhile).
    public let storeURL: URL
    /// Where to write the migrated store: a path beside the store with no file yet. Once the migration
    /// returns `true`, the engine copies this file's contents into the store, in the same transaction that
    /// has held the store's write lock since before the migration read it, and removes the file.
    public let migratedStoreURL: URL
    /// The model the store was made with.
    public let sourceModel: NSManagedObjectModel
    /// The model the store is being opened with.
    public let destinationModel: NSManagedObjectModel
    /// Where the source model was found, for messages.
    public let sourceDescription: String
  }

  /// Writes the migrated store at the request's `migratedStoreURL` and returns `true`, or returns `false`
  /// when it has no mapping model for the two models (writing nothing). Throws when the migration fails:
  /// the store is left as it was.
  let migrate: @Sendable (Request) throws -> Bool

  /// Makes a migration on open from a closure; `mappingModels(in:policies:)` is the one to use.
  public init(_ migrate: @escaping @Sendable (Request) throws -> Bool) {
    self.migrate = migrate
  }
}
