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
  /// The version of the engine's store format.
  public static let formatVersion = "ObjectGraphStoreFormatVersion"
}
