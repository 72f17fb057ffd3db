import Foundation
internal import GRDB

extension NSPersistentStore {
  // MARK: - Opening

  /// Opens (or creates) a store for `model`.
  ///
  /// An existing file is inspected read-only first: a file that is not a SQLite database, or a SQLite
  /// database that is not a store, or a store made with another model, is refused with an error and left
  /// exactly as it was (no journal files, no pragmas, no schema are written to it). Opened read-write, a file
  /// with an unfinished transaction (a hot journal) is first rolled back by SQLite, as any writer does, and
  /// an empty store whose creation was cut short is finished ("Files a killed process leaves").
  static func open(
    type: NSPersistentStore.StoreType, url: URL?, configuration: String?, options: StoreOptions, model: NSManagedObjectModel
  ) throws -> NSPersistentStore {
    let store: NSPersistentStore
    do {
      store = try openStore(type: type, url: url, configuration: configuration, options: options, model: model)
    } catch let error as DatabaseError {
      throw ObjectGraphError.database(
        .persistentStoreOpen, "Opening the store at \(url?.path ?? "memory") failed", error,
        advice: "The files were left as SQLite left them.", url: url)
    }
    do {
      if options.persistentHistoryTracking && !options.readOnly { try store.createHistoryTables() }
      try store.recordSchemaVersion()
    } catch let error as DatabaseError {
      // Every step above reports SQLite's failures as the engine's; this keeps one that slipped through typed.
      store.close()
      throw ObjectGraphError.database(.persistentStoreOpen, "Opening the store at \(url?.path ?? "memory") failed", error, url: url)
    } catch {
      store.close()
      throw error
    }
    return store
  }

  private static func openStore(
    type: NSPersistentStore.StoreType, url: URL?, configuration: String?, options: StoreOptions, model: NSManagedObjectModel
  ) throws -> NSPersistentStore {
    guard let entities = model.entities(forConfigurationName: configuration) else {
      throw ObjectGraphError(
        .persistentStoreOpen,
        "The model has no configuration named '\(configuration ?? "")'. Its configurations: \(model.configurations.joined(separator: ", ")). Pass nil to use every entity.",
        url: url)
    }
    for entity in entities {
      for slot in entity.layout.slots where slot.isRelationship && slot.isPersistent {
        guard let destination = slot.relationship?.destinationEntity, entities.contains(where: { $0 === destination })
        else {
          throw ObjectGraphError(
            .persistentStoreOpen,
            "Configuration '\(configuration ?? "Default")' holds \(entity.entityName) but not the destination of its relationship '\(slot.name)'. Relationships across stores are not supported: put both entities in one configuration.",
            url: url)
        }
      }
    }
    switch type {
    case .inMemory:
      return try openInMemory(type: type, url: url, configuration: configuration, options: options, model: model, entities: entities)
    case .sqlite where url?.isFileURL == true && url?.standardizedFileURL.path == "/dev/null":
      // Xcode's app template points its previews' and tests' store at /dev/null: Core Data's SQLite store
      // then works and keeps nothing. Here it is a SQLite database in memory, a store of the SQLite type.
      return try openInMemory(type: type, url: url, configuration: configuration, options: options, model: model, entities: entities)
    case .binary:
      return try openBinary(url: url, configuration: configuration, options: options, model: model, entities: entities)
    case .sqlite:
      guard let url, url.isFileURL else {
        throw ObjectGraphError(
          .persistentStoreOpen,
          "A SQLite store needs a file URL; got \(url?.absoluteString ?? "nil"). Pass a file URL, e.g. URL(fileURLWithPath:).",
          url: url)
      }
      // Before SQLite opens anything: side files that are not files, and saves left in a log without their store.
      try refuseIfNotARegularFile(url)
      try refuseOrphanedLog(url)
      if FileManager.default.fileExists(atPath: url.path) {
        return try openExisting(url: url, configuration: configuration, options: options, model: model, entities: entities)
      }
      return try createNew(
        url: url, configuration: configuration, options: options, model: model, entities: entities,
        schema: SQLiteSchema(entities: entities, layout: .coreData))
    default:
      throw unknownType(type, url: url)
    }
  }

  /// The error for a store type the engine has no store for.
  static func unknownType(_ type: NSPersistentStore.StoreType, url: URL?) -> ObjectGraphError {
    ObjectGraphError(
      .persistentStoreInvalidType,
      "Unknown store type '\(type.rawValue)'. ObjectGraph has NSSQLiteStoreType, NSInMemoryStoreType and NSBinaryStoreType, and the types registered with NSPersistentStoreCoordinator.registerStoreClass(_:forStoreType:).",
      url: url)
  }

  /// A store whose SQLite database lives in memory: the in-memory type's, or a SQLite store at `/dev/null`.
  private static func openInMemory(
    type: NSPersistentStore.StoreType, url: URL?, configuration: String?, options: StoreOptions, model: NSManagedObjectModel,
    entities: [NSEntityDescription]
  ) throws -> NSPersistentStore {
    let schema = SQLiteSchema(entities: entities, layout: .coreData)
    let database = try makeDatabase(path: nil, options: options, readOnly: false, url: url)
    let identifier = UUID().uuidString
    var metadata = StoreMetadata.make(type: type, identifier: identifier, model: model, entities: entities)
    metadata[ObjectGraphFetchIndexNamesKey] = try schema.fetchIndexNames
    try create(
      schema: schema, metadata: metadata, identifier: identifier, model: StoreModelCache.contents(of: model), in: database, url: url)
    return NSPersistentStore(
      type: type, url: url, identifier: identifier, configurationName: configuration, options: options,
      database: database, schema: schema, model: model, metadata: metadata)
  }

  private static func openExisting(
    url: URL, configuration: String?, options requested: StoreOptions, model: NSManagedObjectModel, entities: [NSEntityDescription]
  ) throws -> NSPersistentStore {
    try refuseIfNotARegularFile(url)
    // Before any connection that may write: a -wal of another database must never be folded into the file.
    try refuseForeignLog(url: url)
    var options = requested
    if !options.readOnly {
      // What a process killed at the wrong moment leaves: an unfinished transaction (a hot journal, rolled
      // back as any SQLite writer would), or a store whose creation never committed (finished now).
      try rollBackHotJournal(url: url)
      if try isUnfinishedCreation(url: url) {
        try finishCreation(url: url, options: options, model: model, entities: entities)
      }
    }
    let (found, tables) = try readMetadataAndTables(url: url)
    var metadata = found
    // Core Data's history, before a migration or the open writes anything: tracking it is refused, and
    // without tracking the store is only read, as Core Data opens it ("Files Core Data wrote").
    var readOnlyReason: String?
    if tables.contains("ATRANSACTION"), (try? inspect(url: url, { try NSPersistentStore.hasCoreDataHistory(in: $0) })) == true {
      if options.persistentHistoryTracking { throw NSPersistentStore.coreDataHistoryError(url: url) }
      if !options.readOnly {
        options.readOnly = true
        readOnlyReason = NSPersistentStore.coreDataHistoryReadOnlyReason
      }
    }
    var match = model.hashMatch(configuration: configuration, metadata: metadata)
    if match == nil {
      if let readOnlyReason, options.migratePersistentStoresAutomatically {
        throw ObjectGraphError(
          .persistentStoreIncompatibleVersionHash,
          "The store at \(url.path) was made with another version of the model and needs a migration, but it was opened read-only: \(readOnlyReason). The file was left untouched.",
          url: url, userInfo: ["metadata": metadata as [String: Any]])
      }
      try migrate(
        url: url, metadata: metadata, configuration: configuration, options: options, model: model, entities: entities,
        incompatibility: incompatibility(url: url, metadata: metadata, entities: entities))
      metadata = try readMetadata(url: url)
      match = model.hashMatch(configuration: configuration, metadata: metadata)
      // Another process may have migrated the file to yet another version meanwhile.
      guard match != nil else { throw incompatibility(url: url, metadata: metadata, entities: entities) }
    }
    let sideFiles = options.readOnly ? SideFiles(of: url) : nil
    let database: DatabaseQueue
    do {
      database = try makeDatabase(path: url.path, options: options, readOnly: options.readOnly, url: url)
    } catch {
      sideFiles?.removeNewOnes()
      throw error
    }
    var schema: SQLiteSchema
    do {
      // The file is read with its own entity numbers and join-table names ("Files Core Data wrote").
      let file = try fileLayout(of: database, url: url)
      schema = try SQLiteSchema(reading: file, entities: entities, layout: SQLiteSchema.Layout(metadata: metadata), url: url)
      schema.externalRecords = ExternalBinaryRecord.Form(metadata: metadata)
      if options.readOnly { schema.unusableRTreeTables = schema.unusableRTreeTables(in: file) }
      try refuseMissingTables(in: file, schema: schema, url: url)
    } catch {
      try? database.close()
      sideFiles?.removeNewOnes()
      throw error
    }
    if !options.readOnly {
      do {
        metadata = try bringUpToDate(
          database, schema: schema, configuration: configuration, model: model, entities: entities, url: url)
        schema.externalRecords = ExternalBinaryRecord.Form(metadata: metadata)
      } catch {
        try? database.close()
        throw error
      }
    }
    let identifier = metadata[NSStoreUUIDKey] as? String ?? UUID().uuidString
    return NSPersistentStore(
      type: .sqlite, url: url, identifier: identifier, configurationName: configuration, options: options,
      database: database, schema: schema, model: model, metadata: metadata, sideFiles: sideFiles, readOnlyReason: readOnlyReason)
  }

  // MARK: - Bringing an open store up to date

  /// The writes a read-write open may make, all in one transaction that first reads the metadata again and
  /// checks its hashes: another process may have migrated the file since the open's first look, and a
  /// repair or an index made for this model would then damage a store of another version.
  ///
  /// In order: a store the engine wrote with its own (legacy) hashes gets Core Data's; `Z_PRIMARYKEY` is
  /// repaired; values of attributes that allow external storage are tagged as Core Data tags them (a store
  /// of format 2); the fetch indexes are reconciled; the kept model is updated. The transaction is deferred: a
  /// store that needs none of it is only read (a store whose file cannot be written still opens), and one
  /// that does takes the write lock at its first write, when SQLite refuses the upgrade (with SQLITE_BUSY,
  /// at once, without waiting) if another process holds the lock or wrote since this transaction's read
  /// began: then nothing was written, and the step runs again in an immediate transaction, which waits for
  /// the lock (the busy timeout) before it reads. Returns the metadata as it now is.
  static func bringUpToDate(
    _ database: DatabaseQueue, schema: SQLiteSchema, configuration: String?, model: NSManagedObjectModel,
    entities: [NSEntityDescription], url: URL
  ) throws -> [String: any Sendable] {
    do {
      return try bringUpToDate(
        .deferred, database, schema: schema, configuration: configuration, model: model, entities: entities, url: url)
    } catch let error as ObjectGraphError where error.sqlitePrimaryResultCode == 5 /* SQLITE_BUSY */ {
      return try bringUpToDate(
        .immediate, database, schema: schema, configuration: configuration, model: model, entities: entities, url: url)
    }
  }

  private static func bringUpToDate(
    _ kind: Database.TransactionKind, _ database: DatabaseQueue, schema: SQLiteSchema, configuration: String?,
    model: NSManagedObjectModel, entities: [NSEntityDescription], url: URL
  ) throws -> [String: any Sendable] {
    do {
      return try database.writeWithoutTransaction { db in
        var metadata: [String: any Sendable] = [:]
        try db.inTransaction(kind) {
          metadata = try StoreMetadata.read(in: db)
          guard let match = model.hashMatch(configuration: configuration, metadata: metadata) else {
            throw incompatibility(url: url, metadata: metadata, entities: entities)
          }
          if match == .legacy {
            // A store the engine wrote with its own hashes: the same model, Core Data's hashes from now on.
            let hashes = Dictionary(entities.map { ($0.entityName, $0.versionHash) }, uniquingKeysWith: { a, _ in a })
            try StoreMetadata.update(in: db, with: StoreMetadata.hashKeys(hashes), url: url)
            metadata = try StoreMetadata.read(in: db)
          }
          try repairPrimaryKeys(in: db, schema: schema, url: url)
          if try NSPersistentStore.tagExternalRecords(in: db, schema: schema, metadata: metadata, url: url) {
            metadata = try StoreMetadata.read(in: db)
          }
          try reconcileFetchIndexes(in: db, schema: schema, metadata: metadata, url: url)
          try StoreModelCache.update(in: db, to: model, metadata: metadata, url: url)
          return .commit
        }
        return metadata
      }
    } catch let error as DatabaseError {
      throw ObjectGraphError.database(
        .persistentStoreOpen, "Bringing the store at \(url.path) up to date for this model failed", error,
        advice:
          "Nothing was changed. If another process was writing to the store at the same moment, add the store again; otherwise check that the file is writable.",
        url: url)
    }
  }

  // MARK: - Creating a new store

  private static func createNew(
    url: URL, configuration: String?, options: StoreOptions, model: NSManagedObjectModel, entities: [NSEntityDescription],
    schema: SQLiteSchema
  ) throws -> NSPersistentStore {
    let folder = url.deletingLastPathComponent()
    try refuseMissingFolder(for: url)
    guard FileManager.default.isWritableFile(atPath: folder.path) else {
      throw ObjectGraphError(
        .persistentStoreOpen,
        "Cannot create the store at \(url.path): the folder \(folder.path) is not writable. Choose a folder this user may write to.",
        url: url)
    }
    guard !options.readOnly else {
      throw ObjectGraphError(
        .persistentStoreOpen,
        "Cannot open \(url.path) read-only: the file does not exist. Create the store first, or drop the readOnly option.",
        url: url)
    }
    let identifier = UUID().uuidString
    var metadata = StoreMetadata.make(type: .sqlite, identifier: identifier, model: model, entities: entities)
    metadata[ObjectGraphFetchIndexNamesKey] = try schema.fetchIndexNames
    // The tables are made in rollback-journal mode, in one exclusive transaction that first checks the file is
    // still empty (another process, or coordinator, may be creating the same store: the first one wins and
    // the others open what it made); the journal mode comes after the commit. So a kill at any moment leaves
    // an empty file or a rollback-mode file without tables, which the next open finishes, never a WAL file
    // without tables, which is what a store separated from its -wal looks like. Nothing here deletes a file:
    // another opener may be using it.
    let database: DatabaseQueue
    do {
      database = try makeDatabase(path: url.path, options: options, readOnly: false, url: url, setsJournalMode: false, isNewFile: true)
    } catch {
      removeIfNothingWritten(url)
      throw error
    }
    var created = false
    do {
      try database.writeWithoutTransaction { db in
        try db.inTransaction(.immediate) {
          guard try Int.fetchOne(db, sql: "SELECT count(*) FROM sqlite_master") == 0 else { return .commit }
          try writeSchema(schema, metadata: metadata, identifier: identifier, model: StoreModelCache.contents(of: model), in: db)
          created = true
          return .commit
        }
        if created { try db.execute(sql: "PRAGMA journal_mode = \(sanitize(journalMode(options)))") }
      }
    } catch let error as DatabaseError {
      try? database.close()
      removeIfNothingWritten(url)
      throw ObjectGraphError.database(.persistentStoreOpen, "Could not create the store's tables at \(url.path)", error, url: url)
    }
    guard created else {
      try? database.close()
      return try openExisting(url: url, configuration: configuration, options: options, model: model, entities: entities)
    }
    return NSPersistentStore(
      type: .sqlite, url: url, identifier: identifier, configurationName: configuration, options: options,
      database: database, schema: schema, model: model, metadata: metadata)
  }

  /// The journal mode a store's connections set: the one in the store options' pragmas, else WAL.
  static func journalMode(_ options: StoreOptions) -> String {
    options.sqlitePragmas.first(where: { $0.key.lowercased() == "journal_mode" })?.value ?? "WAL"
  }

  /// Whether the database file at `path` is in WAL mode, read from its header (the read and write format
  /// versions, bytes 18 and 19, are 2 in WAL mode) without taking any SQLite lock: `false` for a file that
  /// is missing, shorter than a header, or in a rollback-journal mode.
  static func isInWALMode(path: String) -> Bool {
    guard let file = FileHandle(forReadingAtPath: path) else { return false }
    defer { try? file.close() }
    guard let header = try? file.read(upToCount: 20), header.count == 20 else { return false }
    return header[header.startIndex + 18] == 2 && header[header.startIndex + 19] == 2
  }

  /// Removes a store file that an attempt to create it left empty (0 bytes: SQLite wrote nothing), with an
  /// empty journal beside it; a file with anything in it is left for the next open to finish.
  private static func removeIfNothingWritten(_ url: URL) {
    guard size(url.path) == 0 else { return }
    for suffix in ["-journal", "-wal", "-shm"] where size(url.path + suffix) != nil {
      guard size(url.path + suffix) == 0 else { return }
    }
    removeFiles(of: url)
  }

  // MARK: - Inspecting a file without opening a store

  /// A read-only connection to a store file, for looking without changing anything. It waits, as the
  /// store's own connections do, for a writer (a migration, another process's save) rather than report the
  /// file as locked. Close it with ``closeInspector(_:url:sideFiles:)``, which also removes the journal files
  /// SQLite made for it.
  static func inspector(url: URL) throws -> DatabaseQueue {
    var configuration = Configuration()
    configuration.readonly = true
    configuration.label = "ObjectGraph.inspect"
    configuration.busyMode = .timeout(10)
    return try DatabaseQueue(path: SideFiles.readOnlyName(of: url), configuration: configuration)
  }

  /// Reads a store file through a read-only connection and closes it, leaving no file beside the store that
  /// was not there before (``SideFiles``).
  static func inspect<T>(url: URL, _ body: (Database) throws -> T) throws -> T {
    let before = SideFiles(of: url)
    // Registered before the open: opening a damaged WAL file can make the side files and then fail.
    defer { before.removeNewOnes() }
    let queue = try inspector(url: url)
    defer { try? queue.close() }
    return try queue.read(body)
  }

  /// Reads a store file's metadata without changing the file.
  static func readMetadata(url: URL) throws -> [String: any Sendable] {
    try readMetadataAndTables(url: url).metadata
  }

  /// Reads a store file's metadata and the names of its tables without changing the file.
  static func readMetadataAndTables(url: URL) throws -> (metadata: [String: any Sendable], tables: Set<String>) {
    try refuseIfNotARegularFile(url)
    guard FileManager.default.isReadableFile(atPath: url.path) else {
      throw ObjectGraphError(
        .persistentStoreOpen, "Cannot read \(url.path): permission denied or the file does not exist.", url: url)
    }
    let raw: (tables: Set<String>, plist: Data?, uuid: String?, isWAL: Bool)
    do {
      raw = try inspect(url: url) { db in
        let tables = Set(try String.fetchAll(db, sql: "SELECT name FROM sqlite_master WHERE type = 'table'"))
        let isWAL = try String.fetchOne(db, sql: "PRAGMA journal_mode")?.lowercased() == "wal" || SideFiles.opensImmutable(url)
        guard tables.contains("Z_METADATA") else { return (tables, nil, nil, isWAL) }
        // Read as SQLite values, so that a hand-edited row (a number where the property list should be) is a
        // file that is not a store, never a trap.
        let row = try Row.fetchOne(db, sql: "SELECT Z_PLIST, Z_UUID FROM Z_METADATA ORDER BY Z_VERSION LIMIT 1")
        let plist = (row?["Z_PLIST"] as DatabaseValue?).flatMap { Data.fromDatabaseValue($0) }
        let uuid = (row?["Z_UUID"] as DatabaseValue?).flatMap { String.fromDatabaseValue($0) }
        return (tables, plist, uuid, isWAL)
      }
    } catch let error as DatabaseError where error.resultCode == .SQLITE_NOTADB || error.resultCode == .SQLITE_CORRUPT {
      let advice =
        FileManager.default.fileExists(atPath: url.path + "-wal")
        ? "The files were left untouched. A -wal file lies beside it: when the store file itself is sound, that -wal (from another database, or damaged) is the problem; move the -wal and the -shm away, not the store, and open it again."
        : "The file was left untouched. Point the store at another file, or move this one away if it is not needed."
      throw ObjectGraphError.database(
        .persistentStoreInvalidType, "\(url.path) is not a SQLite database (or it is damaged)", error, advice: advice, url: url)
    } catch let error as DatabaseError where error.resultCode == .SQLITE_READONLY && hasHotJournal(url: url) {
      throw ObjectGraphError.database(
        .persistentStoreOpen,
        "\(url.path) has a -journal file beside it, an unfinished transaction of a process that stopped in the middle of a save (or a stray file SQLite takes for one), which a read-only connection cannot roll back",
        error,
        advice:
          "Open the store once without NSReadOnlyPersistentStoreOption: that rolls the unfinished transaction back, as SQLite does for any writer, and keeps every saved change. The file was left untouched.",
        url: url)
    } catch let error as DatabaseError {
      throw ObjectGraphError.database(
        .persistentStoreOpen, "Cannot open \(url.path)", error, advice: "The file was left untouched.", url: url)
    }
    guard !raw.tables.isEmpty else {
      throw ObjectGraphError(
        .persistentStoreInvalidType,
        raw.isWAL
          ? "\(url.path) is a SQLite database in WAL mode without any tables: a store moved or copied without its -wal, which holds its tables and rows (or with a -wal that is not its own). Put its -wal back beside it (the same name plus \"-wal\", and the -shm too). If it is an empty store nobody needs, delete it. The file was left untouched."
          : "\(url.path) is a SQLite database without any tables: a store whose creation was interrupted, or an empty database. A read-write open creates the store in a small one; move a larger one away. The file was left untouched.",
        url: url)
    }
    guard raw.tables.contains("Z_METADATA"), raw.tables.contains("Z_PRIMARYKEY") else {
      let walNote =
        FileManager.default.fileExists(atPath: url.path + "-wal")
        ? " A -wal file lies beside it, and SQLite reads the two as one: if the store file itself is yours, that -wal may come from another database; move the -wal and the -shm away, not the store, and open it again."
        : " Use another file for the store."
      throw ObjectGraphError(
        .persistentStoreInvalidType,
        "\(url.path) is a SQLite database but not an ObjectGraph (Core Data) store: it has no Z_METADATA / Z_PRIMARYKEY tables (tables: \(raw.tables.sorted().prefix(8).joined(separator: ", "))). The file was left untouched.\(walNote)",
        url: url)
    }
    guard let plist = raw.plist, var metadata = StoreMetadata.decode(plist),
      metadata[NSStoreModelVersionHashesKey] is [String: Data]
    else {
      throw ObjectGraphError(
        .persistentStoreInvalidType,
        "\(url.path) has a Z_METADATA table but its metadata cannot be read (no model version hashes). The file was left untouched.",
        url: url)
    }
    // Core Data keeps the store's UUID in its own column, not in the property list (the engine's first stores
    // kept it in both), and reports it among the metadata.
    if let uuid = raw.uuid, !uuid.isEmpty { metadata[NSStoreUUIDKey] = uuid }
    return (metadata, raw.tables)
  }

  // MARK: - Refusing what cannot be opened

  /// Reads what the file at `url`, open in `database`, says of its own layout.
  private static func fileLayout(of database: DatabaseQueue, url: URL) throws -> StoreFileLayout {
    do {
      return try database.read { try StoreFileLayout.read(in: $0) }
    } catch let error as DatabaseError {
      throw ObjectGraphError.database(.persistentStoreOpen, "Cannot read the tables of \(url.path)", error, url: url)
    }
  }

  /// Refuses a store whose metadata matches the model but whose file lacks a table its entities are stored
  /// in (dropped by a tool, or a file edited by hand: every fetch and save would fail on it), or a
  /// relationship's join table or column (reading would find nothing where the store has rows).
  private static func refuseMissingTables(in file: StoreFileLayout, schema: SQLiteSchema, url: URL) throws {
    let missing = Set(schema.tables.keys).union(schema.joinTables.keys).subtracting(file.tableNames).sorted()
    if !missing.isEmpty {
      throw ObjectGraphError(
        .persistentStoreIncompatibleSchema,
        "The store at \(url.path) has the model's version hashes but lacks the table(s) \(missing.joined(separator: ", ")) that its entities are stored in: the file was changed outside Core Data. It was left untouched. Restore it from a backup, or move it away to start a new store.",
        url: url)
    }
    guard !schema.unresolved.isEmpty else { return }
    throw ObjectGraphError(
      .persistentStoreIncompatibleSchema,
      "The store at \(url.path) has the model's version hashes but not where these relationships are stored: \(schema.unresolved.joined(separator: "; ")). Reading them would give empty sets, so the store was not opened; it was left untouched. Open it with the model version that made it, or restore it from a backup.",
      url: url)
  }

  private static func incompatibility(url: URL, metadata: [String: any Sendable], entities: [NSEntityDescription])
    -> ObjectGraphError
  {
    ObjectGraphError(
      .persistentStoreIncompatibleVersionHash,
      "The store at \(url.path) was made with a different version of the model (\(versionDifferences(metadata, entities))). Open it with the model version that made it, or migrate it to this one. The file was left untouched.",
      url: url, userInfo: ["metadata": metadata as [String: Any]])
  }

  /// What differs between the version hashes in a store's `metadata` and `entities`', in words
  /// ("Note changed; Tag is new in the model").
  static func versionDifferences(_ metadata: [String: any Sendable], _ entities: [NSEntityDescription]) -> String {
    let stored = metadata[NSStoreModelVersionHashesKey] as? [String: Data] ?? [:]
    let mine = Dictionary(entities.map { ($0.entityName, $0.versionHash) }, uniquingKeysWith: { a, _ in a })
    var differences: [String] = []
    for name in Set(stored.keys).union(mine.keys).sorted() {
      switch (stored[name], mine[name]) {
      case (nil, _): differences.append("\(name) is new in the model")
      case (_, nil): differences.append("\(name) is in the store but not in the model")
      case (let a?, let b?) where a != b: differences.append("\(name) changed")
      default: continue
      }
    }
    return differences.joined(separator: "; ")
  }

  // MARK: - The database connection and the schema

  /// Opens a connection with the store's pragmas. `setsJournalMode: false` keeps the file's journal mode
  /// (a migration must not change the file before its transaction). For a file about to be created
  /// (`isNewFile`), Core Data's `auto_vacuum` 2 (incremental) comes first: SQLite takes it only before the
  /// journal mode is WAL and before the first table. `holdsReadTransaction` lets the connection keep a
  /// transaction open between its accesses (a query generation's ``StoreSnapshot``).
  static func makeDatabase(
    path: String?, options: StoreOptions, readOnly: Bool, url: URL?, setsJournalMode: Bool = true, isNewFile: Bool = false,
    holdsReadTransaction: Bool = false
  ) throws -> DatabaseQueue {
    var configuration = Configuration()
    configuration.readonly = readOnly
    configuration.label = holdsReadTransaction ? "ObjectGraph.generation" : "ObjectGraph.store"
    configuration.allowsUnsafeTransactions = holdsReadTransaction
    configuration.busyMode = .timeout(options.busyTimeout)
    let pragmas = options.sqlitePragmas
    let logs = SQLDebug.isEnabled
    let trace = options.sqlTrace
    configuration.prepareDatabase { db in
      SQLFunctions.install(in: db)
      try db.execute(sql: "PRAGMA case_sensitive_like = ON")
      if isNewFile { try db.execute(sql: "PRAGMA auto_vacuum = 2") }
      // A file already in WAL mode is left as it is: setting WAL again would wait for a lock another
      // coordinator's migration may hold for longer than the busy timeout.
      if let path, !readOnly, setsJournalMode, !(journalMode(options).lowercased() == "wal" && isInWALMode(path: path)) {
        try db.execute(sql: "PRAGMA journal_mode = \(sanitize(journalMode(options)))")
      }
      for (name, value) in pragmas.sorted(by: { $0.key < $1.key }) where name.lowercased() != "journal_mode" {
        try db.execute(sql: "PRAGMA \(sanitize(name)) = \(sanitize(value))")
      }
      // SQLite keeps one trace callback per connection: the process-wide log and this store's trace share it.
      if logs || trace != nil {
        db.trace(options: .profile) { event in
          guard case .profile(let statement, let duration) = event else { return }
          if logs { SQLDebug.log(sql: statement.sql, duration: duration) }
          trace?(statement.sql)
        }
      }
    }
    do {
      if let path {
        let name = readOnly ? SideFiles.readOnlyName(of: URL(fileURLWithPath: path)) : path
        return try DatabaseQueue(path: name, configuration: configuration)
      }
      return try DatabaseQueue(configuration: configuration)
    } catch let error as DatabaseError {
      throw ObjectGraphError.database(
        .persistentStoreOpen, "Cannot open the store at \(path ?? "memory")", error,
        advice: "Check the SQLite pragmas in the store options and the file's permissions.", url: url)
    }
  }

  /// Keeps a pragma name or value to the characters pragmas use, so an option cannot inject SQL.
  private static func sanitize(_ text: String) -> String {
    String(text.unicodeScalars.filter { CharacterSet.alphanumerics.contains($0) || $0 == "_" || $0 == "-" }.map(Character.init))
  }

  private static func create(
    schema: SQLiteSchema, metadata: [String: any Sendable], identifier: String, model: Data, in database: DatabaseQueue,
    url: URL?
  ) throws {
    do {
      try database.write { db in
        try writeSchema(schema, metadata: metadata, identifier: identifier, model: model, in: db)
      }
    } catch let error as DatabaseError {
      throw ObjectGraphError.database(.persistentStoreOpen, "Could not create the store's tables", error, url: url)
    }
  }

  /// Writes a new store's tables, keys, metadata and model copy, inside the caller's transaction.
  static func writeSchema(
    _ schema: SQLiteSchema, metadata: [String: any Sendable], identifier: String, model: Data, in db: Database
  ) throws {
    let plist = try StoreMetadata.encode(metadata)
    for statement in try schema.createStatements() { try db.execute(sql: statement) }
    try reconcileRTreeIndexes(in: db, schema: schema, url: nil)
    for row in schema.primaryKeyRows() {
      try db.execute(
        sql: "INSERT INTO Z_PRIMARYKEY (Z_ENT, Z_NAME, Z_SUPER, Z_MAX) VALUES (?, ?, ?, 0)",
        arguments: [row.number, row.name, row.superNumber])
    }
    try db.execute(sql: "INSERT INTO Z_METADATA (Z_VERSION, Z_UUID, Z_PLIST) VALUES (1, ?, ?)", arguments: [identifier, plist])
    try StoreModelCache.replace(with: model, in: db)
  }
}
