import Foundation

extension MappingModelMigration {
  /// Opening a store migrates it with a mapping model found as Core Data finds one: in `bundles` (folders),
  /// then in the folder of the destination model's file (the app's bundle; for a model read from inside a
  /// `.momd` or `.xcdatamodeld`, that folder and the one holding it), the first mapping model whose entity
  /// version hashes are the two models' (``NSMappingModel/init(from:forSourceModel:destinationModel:)``): a
  /// compiled `.cdm` as Xcode ships it, or else an `.xcmappingmodel` folder as a Swift package on Linux may
  /// ship it (with the models it records beside it).
  ///
  /// The mapping's policy classes are made from `policies`, by class name (with or without its module
  /// prefix, so `"V2to3MakerPolicy"` serves `REPLACE_AT_RUNTIME.V2to3MakerPolicy`): Swift on Linux cannot
  /// make a class from its name. Each factory is called once per migration, and the mappings naming the
  /// same class share that instance. An ``NSMigrationManager`` migrates the store into a new file beside it, whose
  /// tables the engine then copies into the store in the transaction that has held the store's write lock
  /// since before the migration read it, and removes: the store is migrated whole or not at all, and no
  /// other connection writes in between. A failure is 134110 naming the entity mapping (a policy class missing from
  /// `policies` included), and the store is left as it was.
  public static func mappingModels(
    in bundles: [URL] = [], policies: [String: @Sendable () -> NSEntityMigrationPolicy] = [:]
  ) -> MappingModelMigration {
    MappingModelMigration { request in
      var folders = bundles
      if let source = request.destinationModel.sourceURL {
        let folder = source.deletingLastPathComponent()
        folders.append(folder)
        if ["momd", "xcdatamodeld", "xcdatamodel"].contains(folder.pathExtension) { folders.append(folder.deletingLastPathComponent()) }
      }
      let found = try NSMappingModel.matching(
        in: folders.compactMap { Bundle(url: $0) }, source: request.sourceModel, destination: request.destinationModel)
      guard let mapping = found else { return false }
      // One instance per policy class for the whole migration, shared by the mappings that name it.
      var made: [String: NSEntityMigrationPolicy] = [:]
      for entityMapping in mapping.entityMappings {
        guard let name = entityMapping.entityMigrationPolicyClassName else { continue }
        let bare = name.split(separator: ".").last.map(String.init) ?? name
        let key = policies[name] != nil ? name : bare
        guard let make = policies[key] else { continue }
        let policy = made[key] ?? make()
        made[key] = policy
        entityMapping.migrationPolicy = policy
      }
      try migrate(request, with: mapping)
      return true
    }
  }

  /// Migrates the request's store with `mapping` into the request's new file, which the engine then puts in
  /// place; a failure leaves no new file (the migration manager removes it) and the store untouched.
  private static func migrate(_ request: Request, with mapping: NSMappingModel) throws {
    do {
      try NSMigrationManager(sourceModel: request.sourceModel, destinationModel: request.destinationModel).migrateStore(
        from: request.storeURL, type: .sqlite, mapping: mapping, to: request.migratedStoreURL, type: .sqlite)
    } catch let error as ObjectGraphError {
      throw ObjectGraphError(
        .migration,
        "The store at \(request.storeURL.path) needs a migration with the mapping model found for it, and the migration failed: \(error.message) The store was left untouched.",
        url: request.storeURL, underlyingError: error)
    }
  }
}
