import Foundation

/// Keys of a store's metadata dictionary (Core Data's names).
public enum StoreMetadataKey {
  /// The store's type: `"SQLite"` or `"InMemory"`.
  public static let storeType = "NSStoreType"
  /// The store's unique identifier, a UUID string.
  public static let storeUUID = "NSStoreUUID"
  /// The model's entity version hashes, `[String: Data]`.
  public static let versionHashes = "NSStoreModelVersionHashes"
  /// The model's version identifiers, `[String]`.
  public static let versionIdentifiers = "NSStoreModelVersionIdentifiers"
  /// The name of the Xcode model version the store was made with or last migrated to (`"DataModel 2"`),
  /// when the model was read from a `.xcdatamodeld`. An ObjectGraph addition: it lets a migration tell a
  /// store made by a newer version of the app (refused, error 134100) from an older one.
  public static let modelVersionName = "ObjectGraphModelVersionName"
  /// The version of the engine's store format.
  public static let formatVersion = "ObjectGraphStoreFormatVersion"
}
