import Foundation

/// The option key that migrates a store made with an older model version when it is added, an `NSNumber`
/// or `Bool` (Core Data's `NSMigratePersistentStoresAutomaticallyOption`).
public let NSMigratePersistentStoresAutomaticallyOption = "NSMigratePersistentStoresAutomaticallyOption"
/// The option key that lets the mapping between model versions be inferred, an `NSNumber` or `Bool` (Core
/// Data's `NSInferMappingModelAutomaticallyOption`).
public let NSInferMappingModelAutomaticallyOption = "NSInferMappingModelAutomaticallyOption"
/// The option key of the SQLite pragmas run on every connection, a dictionary of pragma names to values
/// (`["journal_mode": "DELETE"]`); `journal_mode` defaults to `WAL`, as in Core Data (Core Data's
/// `NSSQLitePragmasOption`).
public let NSSQLitePragmasOption = "NSSQLitePragmasOption"
/// The option key that opens a store read-only, an `NSNumber` or `Bool`: saves fail with a clear error
/// (Core Data's `NSReadOnlyPersistentStoreOption`).
public let NSReadOnlyPersistentStoreOption = "NSReadOnlyPersistentStoreOption"
/// The option key that records every change written to the store as persistent history, an `NSNumber` or
/// `Bool` (Core Data's `NSPersistentHistoryTrackingKey`).
public let NSPersistentHistoryTrackingKey = "NSPersistentHistoryTrackingKey"
/// The option key that asks a SQLite store to post ``Foundation/NSNotification/Name/NSPersistentStoreRemoteChange``
/// after every write to the store, its own coordinator's, another coordinator's and another process's, an
/// `NSNumber` or `Bool` (Core Data's `NSPersistentStoreRemoteChangeNotificationPostOptionKey`). With
/// ``NSPersistentHistoryTrackingKey``, the notification carries the history token to fetch the changes after.
/// In-memory and binary stores accept it and post nothing: no other process can write them.
public let NSPersistentStoreRemoteChangeNotificationPostOptionKey = "NSPersistentStoreRemoteChangeNotificationOptionKey"
/// Core Data's option key of a store file's data protection class (`NSPersistentStoreFileProtectionKey`).
/// Linux has no data protection: the engine accepts the key and ignores it.
public let NSPersistentStoreFileProtectionKey = "NSPersistentStoreFileProtectionKey"
/// The option key of how long, in seconds, a SQLite store waits for a lock another connection holds before
/// a request fails, an `NSNumber` or `TimeInterval` (Core Data's `NSPersistentStoreTimeoutOption`): the
/// connection's SQLite busy timeout. Default 10 seconds.
public let NSPersistentStoreTimeoutOption = "NSPersistentStoreTimeoutOption"
/// The option key that runs SQLite's `ANALYZE` when a SQLite store is added, an `NSNumber` or `Bool`, so the
/// query planner chooses indexes from statistics of the data (Core Data's `NSSQLiteAnalyzeOption`). Not run
/// on a read-only store.
public let NSSQLiteAnalyzeOption = "NSSQLiteAnalyzeOption"
/// The option key that rebuilds a SQLite store's file (SQLite's `VACUUM`) when the store is added, an
/// `NSNumber` or `Bool`, giving back the pages deleted rows left free (Core Data's
/// `NSSQLiteManualVacuumOption`). Not run on a read-only store.
public let NSSQLiteManualVacuumOption = "NSSQLiteManualVacuumOption"
/// The option key of `destroyPersistentStore(at:type:options:)` that deletes the store's files even when the
/// file cannot be read as a store (a damaged file), an `NSNumber` or `Bool` (Core Data's
/// `NSPersistentStoreForceDestroyOption`: destroy even if it might be unsafe). Without it such a file is
/// refused and left as it is.
public let NSPersistentStoreForceDestroyOption = "NSPersistentStoreForceDestroyOption"
/// Core Data's option key that ignores the model version hashes in a store's metadata when it is added, an
/// `NSNumber` or `Bool` (`NSIgnorePersistentStoreVersioningOption`). The engine accepts it and still refuses
/// (or migrates) a store made with another model: its SQLite tables are laid out from the model, so a store of
/// another version would fail on its first read or write instead. See "Choices where Core Data is silent or
/// different" in `Docs/ObjectGraph.md`.
public let NSIgnorePersistentStoreVersioningOption = "NSIgnorePersistentStoreVersioningOption"
/// Core Data's option key of the most connections a SQLite store opens for reading at once, a positive
/// `NSNumber` or `Int` (`NSPersistentStoreConnectionPoolMaxSizeKey`). The engine checks it and runs every
/// store on one serial connection whatever its value: the coordinator serves one request at a time anyway
/// (query generations read through connections of their own).
public let NSPersistentStoreConnectionPoolMaxSizeKey = "NSPersistentStoreConnectionPoolMaxSizeKey"
/// Core Data's option key of the classes a binary store may decode from its file beyond the property-list
/// ones, a `Set` of class names or classes (`NSBinaryStoreSecureDecodingClasses`). The engine's binary archive
/// holds property-list values only (a transformable attribute is stored as the `Data` its transformer made),
/// so it needs no class list: the key is checked for a set and otherwise ignored.
public let NSBinaryStoreSecureDecodingClasses = "NSBinaryStoreSecureDecodingClasses"
/// Core Data's option key that lets a binary store decode its file without secure coding, an `NSNumber` or
/// `Bool` (`NSBinaryStoreInsecureDecodingCompatibilityOption`). Accepted and ignored: the engine's binary
/// archive decodes property-list values only, always securely.
public let NSBinaryStoreInsecureDecodingCompatibilityOption = "NSBinaryStoreInsecureDecodingCompatibilityOption"

/// The option key of the staged migration that brings a store made with an earlier model version up to the
/// current one when it is added, an ``NSStagedMigrationManager`` (Core Data's
/// `NSPersistentStoreStagedMigrationManagerOptionKey`). Its stages run before any mapping model or inferred
/// migration is tried, with ``NSMigratePersistentStoresAutomaticallyOption`` on; see "Staged migration" in
/// `Docs/ObjectGraph.md`.
public let NSPersistentStoreStagedMigrationManagerOptionKey = "NSPersistentStoreStagedMigrationManagerOptionKey"

/// The engine's option key of a closure called with each SQL statement the store runs (as prepared, with
/// `?` for its arguments), on the thread that runs it: a `@Sendable (String) -> Void`. An ObjectGraph
/// addition with no Core Data option: it lets a test or a tool watch one store's SQL, where ``SQLDebug``
/// logs every store of the process.
///
/// ```swift
/// let trace: @Sendable (String) -> Void = { sql in print("Notes store:", sql) }
/// try coordinator.addPersistentStore(type: .sqlite, at: storeURL, options: [ObjectGraphSQLTraceOption: trace])
/// ```
public let ObjectGraphSQLTraceOption = "ObjectGraphSQLTraceOption"
/// The engine's option key of models a store may have been made with, an `[NSManagedObjectModel]`,
/// searched (before the versions next to the current model's file and the model kept in the store itself)
/// when the store needs a migration. An ObjectGraph addition: Core Data searches the app's bundles for them.
public let ObjectGraphMigrationSourceModelsOption = "ObjectGraphMigrationSourceModelsOption"
/// The engine's option key of a closure called as a migration advances, a
/// `@Sendable (MigrationProgress) -> Void`, on the thread that migrates, with ``MigrationProgress`` from 0
/// to 1; never called when the store needs no migration. An ObjectGraph addition (Core Data reports the
/// progress of a migration only through its migration manager).
public let ObjectGraphMigrationProgressOption = "ObjectGraphMigrationProgressOption"
/// The engine's option key of how a store that needs a migration is migrated with a mapping model when it
/// is added, before inference is tried, a ``MappingModelMigration``. An ObjectGraph addition.
public let ObjectGraphMappingModelMigrationOption = "ObjectGraphMappingModelMigrationOption"

extension StoreOptions {
  /// The typed options of a Core Data options dictionary. A key that is absent is `false` (or empty), as in
  /// Core Data; a key the engine does not know is ignored, as Core Data ignores it.
  /// - Throws: ``ObjectGraphError`` with ``NSPersistentStoreOpenError`` naming the option
  ///   when a value has the wrong type.
  init(dictionary: [AnyHashable: Any]?) throws {
    self.init(migratePersistentStoresAutomatically: false, inferMappingModelAutomatically: false)
    self.dictionary = GivenOptions(dictionary)
    guard let dictionary else { return }
    func value<T>(_ key: String, _ what: String, as type: T.Type) throws -> T? {
      guard let raw = dictionary[key].flatMap(unwrappingOptional) else { return nil }
      guard let typed = raw as? T else {
        throw ObjectGraphError(
          .persistentStoreOpen, "The store option \(key) must be \(what); got \(Swift.type(of: raw)) (\(raw)).")
      }
      return typed
    }
    func flag(_ key: String) throws -> Bool? {
      if let number = dictionary[key].flatMap(unwrappingOptional) as? NSNumber { return number.boolValue }
      return try value(key, "a Bool or an NSNumber", as: Bool.self)
    }
    if let migrate = try flag(NSMigratePersistentStoresAutomaticallyOption) {
      migratePersistentStoresAutomatically = migrate
    }
    if let infer = try flag(NSInferMappingModelAutomaticallyOption) { inferMappingModelAutomatically = infer }
    if let readOnly = try flag(NSReadOnlyPersistentStoreOption) { self.readOnly = readOnly }
    if let history = try flag(NSPersistentHistoryTrackingKey) { persistentHistoryTracking = history }
    if let remote = try flag(NSPersistentStoreRemoteChangeNotificationPostOptionKey) {
      postsRemoteChangeNotifications = remote
    }
    if let analyze = try flag(NSSQLiteAnalyzeOption) { analyzesOnAdd = analyze }
    if let deferred = try flag(NSPersistentStoreDeferredLightweightMigrationOptionKey) { defersLightweightMigration = deferred }
    if let vacuum = try flag(NSSQLiteManualVacuumOption) { vacuumsOnAdd = vacuum }
    if let force = try flag(NSPersistentStoreForceDestroyOption) { forceDestroy = force }
    _ = try flag(NSIgnorePersistentStoreVersioningOption)
    _ = try flag(NSBinaryStoreInsecureDecodingCompatibilityOption)
    if let raw = dictionary[NSBinaryStoreSecureDecodingClasses].flatMap(unwrappingOptional), !(raw is NSSet),
      !(raw is Set<String>), !(raw is Set<AnyHashable>)
    {
      throw ObjectGraphError(
        .persistentStoreOpen, "The store option \(NSBinaryStoreSecureDecodingClasses) must be a Set; got \(Swift.type(of: raw)) (\(raw)).")
    }
    if let size = dictionary[NSPersistentStoreConnectionPoolMaxSizeKey].flatMap(unwrappingOptional) {
      guard let number = size as? NSNumber ?? (size as? Int).map(NSNumber.init(value:)), number.intValue > 0 else {
        throw ObjectGraphError(
          .persistentStoreOpen,
          "The store option \(NSPersistentStoreConnectionPoolMaxSizeKey) must be a positive Int or NSNumber; got \(Swift.type(of: size)) (\(size))."
        )
      }
    }
    if let timeout = dictionary[NSPersistentStoreTimeoutOption].flatMap(unwrappingOptional) {
      guard let seconds = (timeout as? NSNumber)?.doubleValue ?? (timeout as? Double), seconds >= 0 else {
        throw ObjectGraphError(
          .persistentStoreOpen,
          "The store option \(NSPersistentStoreTimeoutOption) must be a number of seconds (a TimeInterval or NSNumber, not negative); got \(Swift.type(of: timeout)) (\(timeout))."
        )
      }
      busyTimeout = seconds
    }
    if let pragmas = dictionary[NSSQLitePragmasOption].flatMap(unwrappingOptional) as? NSDictionary {
      for case (let name as String, let value) in pragmas { sqlitePragmas[name] = "\(value)" }
    } else if let pragmas = try value(
      NSSQLitePragmasOption, "a dictionary of pragma names to values", as: [String: Any].self)
    {
      sqlitePragmas = pragmas.mapValues { "\($0)" }
    }
    let declared = " (declare the closure with that type: a closure written in the dictionary is not @Sendable)"
    sqlTrace = try value(
      ObjectGraphSQLTraceOption, "a @Sendable (String) -> Void" + declared,
      as: (@Sendable (String) -> Void).self)
    migrationSourceModels =
      try value(ObjectGraphMigrationSourceModelsOption, "an [NSManagedObjectModel]", as: [NSManagedObjectModel].self) ?? []
    migrationProgress = try value(
      ObjectGraphMigrationProgressOption, "a @Sendable (MigrationProgress) -> Void" + declared,
      as: (@Sendable (MigrationProgress) -> Void).self)
    mappingModelMigration = try value(
      ObjectGraphMappingModelMigrationOption, "a MappingModelMigration", as: MappingModelMigration.self)
    stagedMigration = try value(
      NSPersistentStoreStagedMigrationManagerOptionKey, "an NSStagedMigrationManager", as: (any StagedMigrationRunner).self)
  }
}

/// A Swift optional put in an options dictionary: `nil` stands for an absent key, and a value for itself
/// (an app writes `[ObjectGraphMigrationProgressOption: progress]` with an optional `progress`).
private protocol OptionalOptionValue {
  var wrappedOptionValue: Any? { get }
}

extension Optional: OptionalOptionValue {
  fileprivate var wrappedOptionValue: Any? {
    switch self {
    case .some(let value): unwrappingOptional(value)
    case .none: nil
    }
  }
}

/// `value`, or what the optional `value` holds (`nil` for none).
private func unwrappingOptional(_ value: Any) -> Any? {
  (value as? any OptionalOptionValue).map(\.wrappedOptionValue) ?? value
}
