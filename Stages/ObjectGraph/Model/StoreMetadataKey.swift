import Foundation

/// Keys of a store's metadata dictionary (Core Data's names).
public enum StoreMetadataKey {
  /// The store's type: `"SQLite"` or `"InMemory"`.
  public static let storeType = "NSStoreType"
  /// The store's unique identifier, a UUID string.
  public static let storeUUID = "NSStoreUUID"
  /// The UUID a store had before a migration on open with a mapping model gave it its new one (Core Data's
  /// migrated store is a new store, with a UUID of its own), a `String`: the open of a store checks a `-wal`
  /// beside it against the store's UUID, and this tells the log of that migration from another store's.
  public static let migratedFromStoreUUID = "ObjectGraphMigratedFromStoreUUID"
  /// The model's entity version hashes, `[String: Data]`.
  public static let versionHashes = "NSStoreModelVersionHashes"
  /// The model's version identifiers, `[String]`.
  public static let versionIdentifiers = "NSStoreModelVersionIdentifiers"
  /// The name of the Xcode model version the store was made with or last migrated to (`"DataModel 2"`),
  /// when the model was read from a `.xcdatamodeld`. An ObjectGraph addition: when several versions have
  /// the store's hashes (they differ only in what the hashes leave out, such as renaming identifiers), a
  /// migration takes the one named here as its source.
  public static let modelVersionName = "ObjectGraphModelVersionName"
  /// The version of the engine's store format: 1 for the stores it wrote before it followed Core Data's
  /// layout exactly, 2 since. Core Data's own stores have none (and follow Core Data's layout).
  public static let formatVersion = "ObjectGraphStoreFormatVersion"
  /// The version of Core Data's hashing scheme: 3, as Core Data writes it.
  public static let versionHashesVersion = "NSStoreModelVersionHashesVersion"
  /// A digest of every entity's name and version hash (base64 of SHA-512), which newer Core Data writes.
  public static let versionHashesDigest = "NSStoreModelVersionHashesDigest"
  /// A checksum of the version hashes (base64 of SHA-256), as Core Data's `versionChecksum` of a model.
  public static let versionChecksum = "NSStoreModelVersionChecksumKey"
  /// The version of Core Data that wrote the store (a number, 1044 for iOS 15). The engine keeps it in
  /// stores Core Data wrote and writes none of its own.
  public static let frameworkVersion = "NSPersistenceFrameworkVersion"
  /// The store's SQLite `auto_vacuum` level as a string (`"2"`: incremental), as Core Data records it.
  public static let autoVacuumLevel = "_NSAutoVacuumLevel"
  /// The names of the fetch indexes the engine created in the store, so that it drops only its own when the
  /// model no longer has them (an ObjectGraph addition).
  public static let fetchIndexNames = "ObjectGraphFetchIndexes"

  /// Every key the engine (or Core Data) writes and reads itself: an app's metadata may not change them.
  static let engineKeys: Set<String> = [
    storeType, storeUUID, versionHashes, versionIdentifiers, modelVersionName, formatVersion, versionHashesVersion,
    versionHashesDigest, versionChecksum, frameworkVersion, autoVacuumLevel, fetchIndexNames,
  ]
}
