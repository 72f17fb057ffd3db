import Foundation
internal import GRDB

extension NSPersistentStore {
  /// Brings a store file made with another version of the model up to `model`, as Core Data's lightweight
  /// migration does, or throws and leaves the file exactly as it was.
  ///
  /// In order: migration off → 134100; the store's model not found → 134130 (a store from a newer model
  /// version → 134100); inference off → 134140; a change that cannot be inferred → 134140. Then the whole
  /// migration runs in one exclusive SQLite transaction on the file itself: SQLite's journal makes it all or
  /// nothing, also when the process dies halfway (the next open rolls the journal back). A failure inside
  /// the transaction (a full disk, a required value rows do not have, an entity of both versions whose rows
  /// would not all come through) is 134110.
  static func migrate(
    url: URL, metadata: [String: any Sendable], configuration: String?, options: StoreOptions, model: NSManagedObjectModel,
    entities: [NSEntityDescription], incompatibility: @autoclosure () -> ObjectGraphError
  ) throws {
    // A staged migration given in the options is asked for: it runs without the automatic-migration flag.
    guard options.migratePersistentStoresAutomatically || options.stagedMigration != nil else { throw incompatibility() }
    // The source model first: a store whose model cannot be found, or that is of a newer version, is told
    // so, read-only or not; "open it read-write" is only advice when a read-write open could migrate it.
    let found = try MigrationSource.find(
      metadata: metadata, configuration: configuration, destination: model,
      given: options.migrationSourceModels + (options.stagedMigration?.stageModels ?? []),
      storedModel: { StoreModelCache.read(url: url) }, url: url)
    guard !options.readOnly else {
      throw ObjectGraphError(
        .persistentStoreIncompatibleVersionHash,
        "The store at \(url.path) was made with another version of the model (\(found.origin)) and needs a migration, but it is opened read-only. Open it read-write once to migrate it. The file was left untouched.",
        url: url, userInfo: ["metadata": metadata as [String: Any]])
    }
    // A staged migration, when given, is the whole migration: its stages say how to get to the model.
    if let staged = options.stagedMigration {
      try migrateStaged(
        staged, url: url, options: options, configuration: configuration, model: model, source: found,
        sourceHashes: metadata[NSStoreModelVersionHashesKey] as? [String: Data])
      return
    }
    // A mapping model found for the two versions comes first, as in Core Data; inference only without one.
    if let explicit = options.mappingModelMigration,
      try migrateWithMappingModel(
        explicit, url: url, options: options, configuration: configuration, model: model, source: found,
        sourceHashes: metadata[NSStoreModelVersionHashesKey] as? [String: Data])
    {
      return
    }
    guard options.inferMappingModelAutomatically else {
      let looked =
        options.mappingModelMigration == nil
        ? "no mapping model is looked for (set the option ObjectGraphMappingModelMigrationOption to .mappingModels(in:policies:) to use one)"
        : "no mapping model was found for the two versions"
      throw ObjectGraphError(
        .migrationMissingMappingModel,
        "The store at \(url.path) needs a migration from \(found.origin), and inferring the mapping is switched off (NSInferMappingModelAutomaticallyOption), and \(looked). Switch inference on, give a mapping model, or migrate the file first with a NSMigrationManager and a NSMappingModel. The file was left untouched.",
        url: url)
    }
    let sourceModel = found.model
    sourceModel.freeze()
    guard let sourceEntities = sourceModel.entities(forConfigurationName: configuration) else {
      throw ObjectGraphError(
        .migrationMissingSourceModel,
        "The model that made the store at \(url.path) (\(found.origin)) has no configuration '\(configuration ?? "")'. The file was left untouched.",
        url: url)
    }
    let mapping: InferredMapping
    do {
      mapping = try InferredMapping.infer(from: sourceEntities, to: entities)
    } catch let error as ObjectGraphError {
      throw ObjectGraphError(
        ObjectGraphError.Code(rawValue: error.code),
        "The store at \(url.path) needs a migration from \(found.origin). \(error.message) The file was left untouched.",
        url: url)
    }
    // The store keeps its layout: a migration renames only what the models' differences rename.
    // Its values too: bare external records stay bare (copied as they are), to be tagged by the open that follows.
    let layout = SQLiteSchema.Layout(metadata: metadata)
    let form = ExternalBinaryRecord.Form(metadata: metadata)
    var newMetadata = metadata
    for (key, value) in StoreMetadata.make(
      type: .sqlite, identifier: "", model: model, entities: entities, layout: layout, externalRecords: form)
    where key != NSStoreUUIDKey {
      newMetadata[key] = value
    }
    if model.versionName == nil { newMetadata[ObjectGraphModelVersionNameKey] = nil }
    // The store is read with the entity numbers and join-table names it has ("Files Core Data wrote").
    var source: SQLiteSchema
    do {
      source = try SQLiteSchema(
        reading: try inspect(url: url) { try StoreFileLayout.read(in: $0) }, entities: sourceEntities, layout: layout, url: url)
      source.externalRecords = form
    } catch let error as DatabaseError {
      throw ObjectGraphError.database(.persistentStoreOpen, "Cannot read the tables of \(url.path)", error, url: url)
    }
    guard source.unresolved.isEmpty else {
      throw ObjectGraphError(
        .persistentStoreIncompatibleSchema,
        "The store at \(url.path) needs a migration from \(found.origin), but it lacks where these relationships are stored: \(source.unresolved.joined(separator: "; ")). Migrating would lose their members, so nothing was done; the file was left untouched.",
        url: url)
    }
    var destination = SQLiteSchema(entities: entities, layout: layout)
    destination.externalRecords = form
    try run(
      url: url, options: options, source: source,
      destination: destination,
      mapping: mapping, metadata: try StoreMetadata.encode(newMetadata), model: StoreModelCache.contents(of: model),
      from: found.origin, sourceHashes: metadata[NSStoreModelVersionHashesKey] as? [String: Data])
  }

  /// Runs the migration's SQL in one exclusive transaction, reporting progress.
  private static func run(
    url: URL, options: StoreOptions, source: SQLiteSchema, destination: SQLiteSchema, mapping: InferredMapping, metadata: Data,
    model: Data, from origin: String, sourceHashes: [String: Data]?
  ) throws {
    // A read-only connection, open for the whole migration, first plans it: a refusal found while planning
    // (a required value rows lack) is reported before anything opens the file for writing. Then, in WAL
    // mode, it keeps the writing connection from being the last one to close, which would fold a `-wal`
    // left by an app that was killed into the main file even when the migration failed: the main file
    // stays byte for byte as it was unless the migration commits. (A read-only connection never folds.)
    let planner = try inspector(url: url)
    defer { try? planner.close() }
    let database = try makeDatabase(path: url.path, options: options, readOnly: false, url: url, setsJournalMode: false)
    defer { try? database.close() }
    let report = options.migrationProgress
    var finalTotal: Int64?
    do {
      try planner.read { db in
        guard try !isMigrated(db, to: metadata) else { return }
        let maxima = try primaryKeyMaxima(db)
        _ = try SchemaMigration(
          source: source, destination: destination, mapping: mapping, primaryKeyMaxima: maxima, metadata: metadata, model: model,
          url: url, deferring: options.defersLightweightMigration, db: db)
      }
      try database.writeWithoutTransaction { db in
        try db.inMigrationTransaction(.exclusive) {
          // Another connection (a second coordinator, another process) may have migrated the file while
          // this one waited for the lock: then there is nothing left to do.
          if try isMigrated(db, to: metadata) { return .commit }
          // Or to a third version: the plan, made for the version the store had, would damage it.
          guard try StoreMetadata.read(in: db)[NSStoreModelVersionHashesKey] as? [String: Data] == sourceHashes else {
            throw migratedElsewhere(url: url, from: origin)
          }
          // What an earlier deferred migration left runs first, so that this plan starts from the layout
          // its source model has.
          try runDeferredTasks(deferredTasks(in: StoreMetadata.read(in: db)), db: db)
          let maxima = try primaryKeyMaxima(db)
          let plan = try SchemaMigration(
            source: source, destination: destination, mapping: mapping, primaryKeyMaxima: maxima, metadata: metadata, model: model,
            url: url, deferring: options.defersLightweightMigration, db: db)
          let rowsIn = try plan.countRowsIn(db)
          // The commit counts as the last unit: 1 is reported only once the migration is on disk.
          let total = plan.totalWeight + 1
          finalTotal = total
          var done: Int64 = 0
          report?(MigrationProgress(completedUnitCount: 0, totalUnitCount: total))
          for step in plan.steps {
            switch step.action {
            case .sql(let sql, let arguments):
              try db.execute(sql: sql, arguments: arguments)
              done += step.weight
              report?(MigrationProgress(completedUnitCount: done, totalUnitCount: total))
            case .chunkedUpdate(let table, let assignments, let arguments):
              let start = done
              try updateInChunks(table: table, assignments: assignments, arguments: arguments, db: db) { fraction in
                done = start + Int64(Double(step.weight) * fraction)
                report?(MigrationProgress(completedUnitCount: done, totalUnitCount: total))
              }
              done = start + step.weight
            }
          }
          try plan.checkRowsOut(against: rowsIn, db: db, from: origin)
          return .commit
        }
      }
      if let finalTotal { report?(MigrationProgress(completedUnitCount: finalTotal, totalUnitCount: finalTotal)) }
    } catch let error as DatabaseError {
      throw ObjectGraphError.database(
        .migration, "Migrating the store at \(url.path) from \(origin) failed", error,
        advice:
          "The migration runs in one transaction, so the store was left as it was; free disk space (SQLITE_FULL) or fix the cause and open it again.",
        url: url)
    }
  }

  /// The refusal when, while a migration waited for the store's lock, another process migrated the store
  /// to a third version: the migration planned for the version it had would damage it.
  static func migratedElsewhere(url: URL, from origin: String) -> ObjectGraphError {
    ObjectGraphError(
      .persistentStoreIncompatibleVersionHash,
      "The store at \(url.path) was migrated to another version of the model by another process while this one waited to migrate it from \(origin). Nothing was written. Add the store again: it is checked against the model afresh.",
      url: url)
  }

  /// Whether the file open in `db` already has the version hashes of `metadata` (the migration's result):
  /// another connection migrated it meanwhile.
  private static func isMigrated(_ db: Database, to metadata: Data) throws -> Bool {
    guard let plist = try Data.fetchOne(db, sql: "SELECT Z_PLIST FROM Z_METADATA ORDER BY Z_VERSION LIMIT 1"),
      let current = StoreMetadata.decode(plist), let written = StoreMetadata.decode(metadata)
    else { return false }
    return current[NSStoreModelVersionHashesKey] as? [String: Data] == written[NSStoreModelVersionHashesKey] as? [String: Data]
  }

  /// `Z_PRIMARYKEY`'s highest key handed out, by entity number.
  private static func primaryKeyMaxima(_ db: Database) throws -> [Int64: Int64] {
    try Dictionary(
      Row.fetchAll(db, sql: "SELECT Z_ENT, Z_MAX FROM Z_PRIMARYKEY").compactMap { row in
        Int64.fromDatabaseValue(row[0]).map { ($0, Int64.fromDatabaseValue(row[1]) ?? 0) }
      },
      uniquingKeysWith: { a, _ in a })
  }

  /// `UPDATE table SET assignments` over ranges of about 25,000 primary keys, calling `progress` with the
  /// fraction of the key range done after each.
  private static func updateInChunks(
    table: String, assignments: String, arguments: StatementArguments, db: Database, progress: (Double) -> Void
  ) throws {
    guard let bounds = try Row.fetchOne(db, sql: "SELECT MIN(Z_PK), MAX(Z_PK) FROM \(table)"),
      let low = bounds[0] as Int64?, let high = bounds[1] as Int64?
    else { return }
    let statement = try db.makeStatement(sql: "UPDATE \(table) SET \(assignments) WHERE Z_PK >= ? AND Z_PK < ?")
    let chunk: Int64 = 25_000
    var start = low
    while start <= high {
      let end = start + chunk
      try statement.execute(arguments: arguments + [start, end])
      progress(Double(min(end, high + 1) - low) / Double(high - low + 1))
      start = end
    }
  }

}
