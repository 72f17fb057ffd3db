import Foundation

/// The metadata key of a store's type (`"SQLite"`, `"InMemory"`, `"Binary"`), a `String` (Core Data's
/// `NSStoreTypeKey`).
public let NSStoreTypeKey = "NSStoreType"
/// The metadata key of a store's unique identifier, a UUID `String` (Core Data's `NSStoreUUIDKey`).
public let NSStoreUUIDKey = "NSStoreUUID"
/// The metadata key of the model's entity version hashes, `[String: Data]` (Core Data's
/// `NSStoreModelVersionHashesKey`).
public let NSStoreModelVersionHashesKey = "NSStoreModelVersionHashes"
/// The metadata key of the model's version identifiers, `[String]` (Core Data's
/// `NSStoreModelVersionIdentifiersKey`).
public let NSStoreModelVersionIdentifiersKey = "NSStoreModelVersionIdentifiers"
/// The metadata key of a checksum of the version hashes (base64 of SHA-256), as Core Data's
/// `versionChecksum` of a model (Core Data's `NSPersistentStoreModelVersionChecksumKey`).
public let NSPersistentStoreModelVersionChecksumKey = "NSStoreModelVersionChecksumKey"
/// The metadata key of the oldest OS version a store may be opened on (Core Data's
/// `NSPersistentStoreOSCompatibility`); the engine keeps it when a store has it and writes none.
public let NSPersistentStoreOSCompatibility = "NSPersistentStoreOSCompatibility"

/// The metadata key of the UUID a store had before a migration on open with a mapping model gave it its new
/// one (Core Data's migrated store is a new store, with a UUID of its own), a `String`: the open of a store
/// checks a `-wal` beside it against the store's UUID, and this tells the log of that migration from another
/// store's. An ObjectGraph addition.
public let ObjectGraphMigratedFromStoreUUIDKey = "ObjectGraphMigratedFromStoreUUID"
/// The metadata key of the name of the Xcode model version the store was made with or last migrated to
/// (`"DataModel 2"`), when the model was read from a `.xcdatamodeld`. An ObjectGraph addition: when several
/// versions have the store's hashes (they differ only in what the hashes leave out, such as renaming
/// identifiers), a migration takes the one named here as its source.
public let ObjectGraphModelVersionNameKey = "ObjectGraphModelVersionName"
/// The metadata key of the version of the engine's store format: 1 for the stores it wrote before it
/// followed Core Data's layout exactly, 2 since. Core Data's own stores have none. An ObjectGraph addition.
public let ObjectGraphStoreFormatVersionKey = "ObjectGraphStoreFormatVersion"
/// The metadata key of the names of the fetch indexes the engine created in the store, so that it drops
/// only its own when the model no longer has them. An ObjectGraph addition.
public let ObjectGraphFetchIndexNamesKey = "ObjectGraphFetchIndexes"

/// The key for enabling deferred lightweight migrations (Core Data's
/// `NSPersistentStoreDeferredLightweightMigrationOptionKey`), dual-purpose as in Core Data.
///
/// As a store option (a `Bool` or `NSNumber`), it lets the lightweight migration of a SQLite store defer its
/// cleanup: dropping indexes, columns and tables nothing maps to any more, and creating the layout's
/// non-unique indexes. The store is fully usable in between. As a metadata key, it is `true` in the store's
/// metadata while such work remains: finish it with
/// ``NSPersistentStoreCoordinator/finishDeferredLightweightMigration()`` or one task at a time with
/// ``NSPersistentStoreCoordinator/finishDeferredLightweightMigrationTask()``.
public let NSPersistentStoreDeferredLightweightMigrationOptionKey = "NSPersistentStoreDeferredLightweightMigrationOptionKey"
/// The metadata key of the SQL statements a deferred lightweight migration left to run, `[String]`, in the
/// order they run. An ObjectGraph addition: Core Data documents no place for them.
public let ObjectGraphDeferredMigrationTasksKey = "ObjectGraphDeferredMigrationTasks"

/// Metadata keys Core Data writes but does not publish as constants.
enum CoreDataMetadataKey {
  /// The version of Core Data's hashing scheme: 3, as Core Data writes it.
  static let versionHashesVersion = "NSStoreModelVersionHashesVersion"
  /// A digest of every entity's name and version hash (base64 of SHA-512), which newer Core Data writes.
  static let versionHashesDigest = "NSStoreModelVersionHashesDigest"
  /// The version of Core Data that wrote the store (a number, 1044 for iOS 15). The engine keeps it in
  /// stores Core Data wrote and writes none of its own.
  static let frameworkVersion = "NSPersistenceFrameworkVersion"
  /// The store's SQLite `auto_vacuum` level as a string (`"2"`: incremental), as Core Data records it.
  static let autoVacuumLevel = "_NSAutoVacuumLevel"

  /// Every key the engine (or Core Data) writes and reads itself: an app's metadata may not change them.
  static let engineKeys: Set<String> = [
    NSStoreTypeKey, NSStoreUUIDKey, NSStoreModelVersionHashesKey, NSStoreModelVersionIdentifiersKey,
    ObjectGraphModelVersionNameKey, ObjectGraphStoreFormatVersionKey, versionHashesVersion, versionHashesDigest,
    NSPersistentStoreModelVersionChecksumKey, frameworkVersion, autoVacuumLevel, ObjectGraphFetchIndexNamesKey,
    NSPersistentStoreDeferredLightweightMigrationOptionKey, ObjectGraphDeferredMigrationTasksKey,
  ]
}
