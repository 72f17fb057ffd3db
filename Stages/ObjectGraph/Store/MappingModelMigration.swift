import Foundation

/// How opening a store migrates it with a mapping model: Core Data looks for one in the app's bundles when
/// a store made with another model version is opened with automatic migration. An ObjectGraph addition,
/// set in ``StoreOptions/mappingModelMigration``; make one with
/// `MappingModelMigration.mappingModels(in:policies:)`.
///
/// ```swift
/// var options = StoreOptions(inferMappingModelAutomatically: false)
/// options.mappingModelMigration = .mappingModels(in: [mappingFolder], policies: ["V2to3MakerPolicy": { MakerPolicy() }])
/// try coordinator.addPersistentStore(type: .sqlite, at: storeURL, options: options)
/// ```
///
/// When a store needs a migration, it is asked first (as Core Data uses a mapping model it finds before
/// inferring one); when it finds no mapping model, inference runs if it is switched on, and the store is
/// refused with 134140 if not.
public struct MappingModelMigration: Sendable {
  /// What a migration on open knows: the store, the model that made it and the model it is opened with.
  public struct Request: Sendable {
    /// The store file to migrate in place.
    public let storeURL: URL
    /// The model the store was made with.
    public let sourceModel: ManagedObjectModel
    /// The model the store is being opened with.
    public let destinationModel: ManagedObjectModel
    /// Where the source model was found, for messages.
    public let sourceDescription: String
  }

  /// Migrates the store and returns `true`, or returns `false` when it has no mapping model for the two
  /// models (the store untouched). Throws when the migration fails, leaving the store as it was.
  let migrate: @Sendable (Request) throws -> Bool

  /// Makes a migration on open from a closure; `mappingModels(in:policies:)` is the one to use.
  public init(_ migrate: @escaping @Sendable (Request) throws -> Bool) {
    self.migrate = migrate
  }
}
