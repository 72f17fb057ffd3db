import Foundation
internal import GRDB

// @unchecked Sendable: a class that may be subclassed cannot be checked as Sendable. Every stored property
// declared here is a `let` of a Sendable type or a `Locked` value (so the engine's own state is as safe as it
// was when the class was final and checked); what a subclass adds is its own to keep thread-safe, as the
// documentation below tells it.

/// A store added to a coordinator: a SQLite file, an in-memory database, a binary file, or a store of a
/// class of your own (see "Custom store classes" in Docs/ObjectGraph.md).
///
/// You get one from ``NSPersistentStoreCoordinator/addPersistentStore(type:configuration:at:options:)``;
/// it tells where the data lives and carries the store's metadata (its UUID, the model version hashes it
/// was made with).
///
/// ## Subclassing
/// As in Core Data, write a custom store by subclassing ``NSAtomicStore`` (its file read and written whole),
/// register the subclass with ``NSPersistentStoreCoordinator/registerStoreClass(_:forStoreType:)``, and add it
/// by its type string. The coordinator makes it with ``init(persistentStoreCoordinator:configurationName:at:options:)``,
/// calls ``loadMetadata()``, checks ``metadata`` against its model, loads it and calls ``didAdd(to:)``;
/// ``willRemove(from:)`` comes before it is removed.
///
/// - Important: a store is shared by every queue of its coordinator (`Sendable`). The engine calls a
///   subclass's overrides with the coordinator's lock held, one at a time; what a subclass reads or writes from
///   anywhere else (its own properties, read by your code on other queues) it must keep thread-safe itself,
///   behind a lock, as the engine keeps its own state.
open class NSPersistentStore: @unchecked Sendable, CustomStringConvertible {
  /// The store's type string, as Core Data's `type` is: `NSSQLiteStoreType`, `NSInMemoryStoreType`,
  /// `NSBinaryStoreType`, or the type a custom store's class was registered for (`store.type == NSSQLiteStoreType`).
  open var type: String { customType ?? storeType.rawValue }
  /// For a store of a registered class: the type string it was added as (else `nil`, and ``storeType`` says).
  let customType: String?
  /// Whether the store is of a class of the app's own (made by the public initializer): only then do saves
  /// call the subclass hooks, so the built-in stores never pay for them.
  let isCustom: Bool
  /// What went wrong making a custom store (an option of the wrong type, a configuration the model lacks),
  /// thrown when the store is added: Core Data's initializer cannot fail.
  let setupError: ObjectGraphError?
  /// The kind of store, as the engine tells them apart.
  let storeType: NSPersistentStore.StoreType
  /// The file, for a SQLite or binary store; `nil` for an in-memory one (Core Data's `url`). To move a
  /// store, call ``NSPersistentStoreCoordinator/setURL(_:for:)``.
  public var url: URL? { location.withLock { $0 } }
  /// The store's unique identifier (a UUID string), written in its metadata and in its objects' URIs.
  public let identifier: String
  /// The model configuration the store holds (`nil`: every entity).
  public let configurationName: String?
  /// The options dictionary the store was added with, as it was given (Core Data's `options`); `nil` when
  /// it was added with none.
  public var options: [AnyHashable: Any]? { storeOptions.dictionary.value }
  /// The options the store was added with, as the engine parsed them from ``options``.
  let storeOptions: StoreOptions
  let database: DatabaseQueue
  let schema: SQLiteSchema
  /// A small number standing for ``identifier`` in this process, used in object IDs' hashes.
  let number: Int
  /// How rows of each entity are decoded and written, indexed by entity number.
  let plans: StorePlans
  /// Per entity number (index 0 unused): the source the identities of its fetched rows share.
  let rowSources: [RowSource?]
  let model: NSManagedObjectModel
  /// The metadata as the store holds it or will write it at its next save (see ``pendingMetadata``).
  let storedMetadata: Locked<[String: any Sendable]>
  /// App keys set with `NSPersistentStoreCoordinator.setMetadata(_:for:)` and not yet written.
  let pendingMetadata = Locked<PendingMetadata?>(nil)
  /// For a store opened read-only: the journal files that were beside it before, so that closing it removes
  /// the ones its connection made.
  let sideFiles: SideFiles?
  /// The file's `PRAGMA schema_version` when the store was opened (or last found unchanged in its model):
  /// see ``refuseWritesIfModelChanged(_:)``.
  let schemaVersion = Locked<Int?>(nil)
  /// Why the store was opened read-only though the caller asked for read-write (Core Data's history tables
  /// without history tracking), for the error a write gets; `nil` otherwise.
  let readOnlyReason: String?
  /// The coordinator the store is added to, weakly (``NSPersistentStore/persistentStoreCoordinator``, declared
  /// by the coordinator's layer): set when the store is added, cleared when it is removed.
  let attachment = Locked(StoreAttachment())
  /// Whether ``isReadOnly`` was set to `true` on the store after it was added.
  let markedReadOnly = Locked(false)
  /// Where the store is (``url``): moved by `NSPersistentStoreCoordinator.setURL(_:for:)`.
  let location: Locked<URL?>

  init(
    type: NSPersistentStore.StoreType, url: URL?, identifier: String, configurationName: String?, options: StoreOptions,
    database: DatabaseQueue, schema: SQLiteSchema, model: NSManagedObjectModel, metadata: [String: any Sendable],
    sideFiles: SideFiles? = nil, readOnlyReason: String? = nil
  ) {
    customType = nil
    isCustom = false
    setupError = nil
    self.readOnlyReason = readOnlyReason
    self.sideFiles = sideFiles
    storeType = type
    location = Locked(url)
    self.identifier = identifier
    self.configurationName = configurationName
    storeOptions = options
    self.database = database
    self.schema = schema
    self.model = model
    storedMetadata = Locked(metadata)
    number = Self.numbers.withLock { table -> Int in
      if let known = table[identifier] { return known }
      let next = table.count + 1
      table[identifier] = next
      return next
    }
    plans = StorePlans(schema: schema)
    rowSources = Self.rowSources(of: plans, store: number, identifier: identifier)
  }

  /// Makes a store of a class of your own (Core Data's designated initializer): the coordinator calls it when
  /// a store of a type registered with ``NSPersistentStoreCoordinator/registerStoreClass(_:forStoreType:)`` is
  /// added. A subclass calls it from its own initializer, then sets ``metadata`` (at least `NSStoreTypeKey` and
  /// `NSStoreUUIDKey`) there or in ``loadMetadata()``.
  ///
  /// The store keeps its objects in an in-memory SQLite database laid out for `root`'s model (the
  /// configuration's entities), which every fetch and save of a context uses, as for the built-in stores.
  /// An option of the wrong type, or a configuration the model lacks, is reported when the store is added.
  ///
  /// It is `required` (Swift's rule for a class the coordinator makes from its registered metatype): a
  /// subclass that writes its own spells it `required init(persistentStoreCoordinator:configurationName:at:options:)`
  /// where Core Data code writes `override init`.
  ///
  /// - Parameters:
  ///   - root: the coordinator adding the store; its model decides the entities the store holds (`nil`: none).
  ///   - name: the model configuration the store holds; `nil` for every entity.
  ///   - url: where the store's data lives.
  ///   - options: Core Data's options dictionary, as given to `addPersistentStore`.
  public required init(
    persistentStoreCoordinator root: NSPersistentStoreCoordinator?, configurationName name: String?, at url: URL,
    options: [AnyHashable: Any]? = nil
  ) {
    var problem: ObjectGraphError?
    var parsed = StoreOptions()
    do {
      parsed = try StoreOptions(dictionary: options)
    } catch {
      problem =
        error as? ObjectGraphError
        ?? ObjectGraphError(.persistentStoreOpen, "The options of the store at \(url.path) cannot be read: \(error).", url: url)
    }
    let model = root?.managedObjectModel ?? NSManagedObjectModel()
    let entities = model.entities(forConfigurationName: name)
    if entities == nil, problem == nil {
      problem = ObjectGraphError(
        .persistentStoreOpen,
        "The model has no configuration named '\(name ?? "")'. Its configurations: \(model.configurations.joined(separator: ", ")). Pass nil to use every entity.",
        url: url)
    }
    let schema = SQLiteSchema(entities: entities ?? [], layout: .coreData)
    let identifier = UUID().uuidString
    let type = Thread.current.threadDictionary[Self.typeBeingAddedKey] as? String
    customType = type
    isCustom = true
    readOnlyReason = nil
    sideFiles = nil
    storeType = NSPersistentStore.StoreType(rawValue: type ?? "")
    location = Locked(url)
    self.identifier = identifier
    configurationName = name
    storeOptions = parsed
    self.schema = schema
    self.model = model
    storedMetadata = Locked([:])
    let database = Self.customDatabase(schema: schema, model: model, identifier: identifier, options: parsed, url: url)
    self.database = database.queue
    setupError = problem ?? database.problem
    number = Self.numbers.withLock { table -> Int in
      let next = table.count + 1
      table[identifier] = next
      return next
    }
    plans = StorePlans(schema: schema)
    rowSources = Self.rowSources(of: plans, store: number, identifier: identifier)
    // Core Data's store knows its coordinator from its initializer on (a subclass's `load()` reads the model
    // through it); the coordinator lists it among its stores only once it is added.
    if let root { attachment.withLock { $0.coordinator = root } }
  }

  /// The same initializer under its older Swift name (Core Data's `init(persistentStoreCoordinator:configurationName:URL:options:)`).
  public convenience init(
    persistentStoreCoordinator root: NSPersistentStoreCoordinator?, configurationName name: String?, URL url: URL,
    options: [AnyHashable: Any]? = nil
  ) {
    self.init(persistentStoreCoordinator: root, configurationName: name, at: url, options: options)
  }

  /// Loads the store's metadata (Core Data's `loadMetadata()`): the coordinator calls it after making a store
  /// of a registered class and before it checks ``metadata``. The default does nothing; a subclass reads its
  /// file's metadata here (or in its initializer) and sets ``metadata``.
  /// - Throws: what the subclass throws; the store is then not added.
  open func loadMetadata() throws {}

  /// Called after the store was added to `coordinator` (Core Data's `didAdd(to:)`), with the coordinator's lock
  /// held: do not call back into the coordinator or a context from here. The default does nothing.
  open func didAdd(to coordinator: NSPersistentStoreCoordinator) {}

  /// Called before the store is removed from `coordinator` (Core Data's `willRemove(from:)`), while it still
  /// serves requests. The default does nothing.
  open func willRemove(from coordinator: NSPersistentStoreCoordinator?) {}

  /// Reads the metadata of the store file at `url` without adding it (Core Data's class method
  /// `metadataForPersistentStore(with:)`). `NSPersistentStore`'s reads a SQLite store file, as
  /// ``NSPersistentStoreCoordinator/metadataForPersistentStore(type:at:options:)`` does with `.sqlite`; a custom
  /// store class overrides it to read its own file, and the coordinator's `metadataForPersistentStore(type:at:)`
  /// calls the override for a registered type.
  ///
  /// - Throws: Cocoa's `NSFileReadNoSuchFileError` when there is no file at `url`;
  ///   ``NSPersistentStoreInvalidTypeError`` for a file that is not a SQLite store.
  open class func metadataForPersistentStore(with url: URL) throws -> [String: Any] {
    guard FileManager.default.fileExists(atPath: url.path) else { throw noSuchFile(url) }
    return try readMetadata(url: url)
  }

  /// The class that migrates stores of this class (Core Data's `migrationManagerClass()`): `NSMigrationManager`.
  /// The engine migrates SQLite stores only; the class is reported for code that asks.
  open class func migrationManagerClass() -> AnyClass {
    (SwiftClassLookup.qualifiedNames(forBareName: "NSMigrationManager").lazy.compactMap { NSClassFromString($0) }.first)
      ?? NSPersistentStore.self
  }

  // MARK: - Subclass hooks of a save (internal: NSAtomicStore overrides them)

  /// Before a custom store's save writes its rows, outside the database transaction: returns what
  /// ``customSaveWillCommit(_:result:token:)`` and ``customSaveDidFail(_:)`` need, or `nil` for nothing.
  func customSaveWillBegin(_ request: StoreSaveRequest) throws -> AnyObject? { nil }

  /// Inside the save's transaction, after its rows are written: throwing rolls the transaction back.
  func customSaveWillCommit(_ request: StoreSaveRequest, result: StoreSaveResult, token: AnyObject) throws {}

  /// After a save that ``customSaveWillBegin(_:)`` prepared failed: undoes what it and
  /// ``customSaveWillCommit(_:result:token:)`` did.
  func customSaveDidFail(_ token: AnyObject) {}

  /// Whether a save must hand the store the saved objects themselves (an `NSAtomicStore` builds its cache
  /// nodes from them), with permanent IDs.
  var savesNeedObjects: Bool { false }

  /// Whether the store checks row versions at save without SQL, so that a merge policy settles its conflicts
  /// in memory (an `NSIncrementalStore`; see ``ObjectStore/settlesConflictsInMemory``).
  var settlesConflictsInMemory: Bool { false }

  /// Loads the store's contents after ``loadMetadata()`` and the checks (an `NSAtomicStore` calls `load()`).
  func loadContents() throws {}

  // MARK: - Requests a store answers itself (internal: NSIncrementalStore overrides them)
  // Each is asked only when ``isCustom`` is set, so the built-in stores test one flag per request; `nil`
  // (the default) leaves the request to the store's database.

  /// The rows of a fetch, as the subclass answers it (IDs only: the objects are faults).
  func answeredFetch(_ plan: StoreFetchPlan) throws -> [FetchedRow]? { nil }

  /// The count of a fetch, as the subclass answers it.
  func answeredCount(_ plan: StoreFetchPlan) throws -> Int? { nil }

  /// The values of objects, as the subclass answers a fault.
  func answeredSnapshots(for ids: [NSManagedObjectID]) throws -> [NSManagedObjectID: RowSnapshot]? { nil }

  /// The members of a to-many relationship, as the subclass answers them.
  func answeredRelatedIDs(of ids: [NSManagedObjectID], slot: EntityLayout.Slot) throws -> [NSManagedObjectID: [NSManagedObjectID]]? {
    nil
  }

  /// Permanent IDs for objects known by temporary IDs, as the subclass gives them.
  func answeredPermanentIDs(for ids: [NSManagedObjectID]) throws -> [NSManagedObjectID]? { nil }

  /// A save, as the subclass writes it.
  func answeredSave(_ request: StoreSaveRequest) throws -> StoreSaveResult? { nil }

  /// The rows of a dictionary fetch, as the subclass answers it.
  func answeredDictionaries(_ plan: StoreDictionaryPlan) throws -> StoreDictionaryRows? { nil }

  /// Store identifiers (UUIDs from the files' metadata) to small numbers, for the whole process: two
  /// coordinators on one file give its objects equal IDs, as the file's URIs are equal.
  private static let numbers = Locked<[String: Int]>([:])

  /// Per entity number (index 0 unused): the source the identities of the rows a store fetches share.
  private static func rowSources(of plans: StorePlans, store number: Int, identifier: String) -> [RowSource?] {
    plans.decode.map { plan in
      plan.map { RowSource(entity: $0.entity, storeNumber: number, storeIdentifier: identifier, table: $0.rootNumber) }
    }
  }

  /// The permanent ID of row `primaryKey` of `entity` in this store.
  func makeID(entity: NSEntityDescription, primaryKey: Int64) -> NSManagedObjectID {
    makeID(entity: entity, table: schema.byIdentity[ObjectIdentifier(entity)]?.rootNumber ?? 0, primaryKey: primaryKey)
  }

  /// The same, when the table (the root entity's number) is already known.
  func makeID(entity: NSEntityDescription, table: Int64, primaryKey: Int64) -> NSManagedObjectID {
    NSManagedObjectID(
      entity: entity, key: .permanent(store: number, table: table, primaryKey: primaryKey), storeIdentifier: identifier)
  }

  /// The store's metadata: `NSStoreType`, `NSStoreUUID`, `NSStoreModelVersionHashes` (`[String: Data]`),
  /// `NSStoreModelVersionIdentifiers`, as Core Data keeps them, and the app's own keys (see
  /// ``NSPersistentStoreCoordinator/setMetadata(_:for:)``), including those not yet written.
  ///
  /// A custom store sets it (Core Data's setter) from its initializer or ``loadMetadata()``, and writes it to
  /// its file when it saves. Values a property list cannot hold are dropped.
  open var metadata: [String: Any]! {
    get { sendableMetadata }
    set { storedMetadata.withLock { $0 = StoreMetadata.sendable(newValue ?? [:]) } }
  }

  /// ``metadata`` as the engine passes it between queues.
  var sendableMetadata: [String: any Sendable] { storedMetadata.withLock { $0 } }

  /// Whether the store holds the entity (per its configuration).
  func holds(_ entity: NSEntityDescription) -> Bool { schema.byIdentity[ObjectIdentifier(entity)] != nil }

  /// The store's type, where it is, and its identifier.
  open var description: String {
    "<NSPersistentStore \(type) \(url?.path ?? "in memory") \(identifier)>"
  }
}
