import Foundation
internal import GRDB
internal import SHA256

/// Reading and writing a store's metadata as a binary property list, the form Core Data keeps in
/// `Z_METADATA.Z_PLIST`.
enum StoreMetadata {
  /// The metadata of a new store (or of one migrated to `model`): Core Data's keys, with the engine's format
  /// number for `layout` and `externalRecords` and the model version's name. The store's UUID is part of the dictionary, as Core
  /// Data's metadata reports it, but is kept in `Z_METADATA.Z_UUID`, not in the property list (``encode(_:)``).
  static func make(
    type: NSPersistentStore.StoreType, identifier: String, model: NSManagedObjectModel, entities: [NSEntityDescription],
    layout: SQLiteSchema.Layout = .coreData, externalRecords: ExternalBinaryRecord.Form = .tagged
  ) -> [String: any Sendable] {
    var metadata: [String: any Sendable] = [
      NSStoreTypeKey: type.rawValue,
      NSStoreUUIDKey: identifier,
      NSStoreModelVersionIdentifiersKey: model.versionIdentifiers.sorted(),
      ObjectGraphStoreFormatVersionKey: layout.formatVersion(externalRecords),
      CoreDataMetadataKey.autoVacuumLevel: "2",
    ]
    for (key, value) in hashKeys(Dictionary(entities.map { ($0.entityName, $0.versionHash) }, uniquingKeysWith: { a, _ in a })) {
      metadata[key] = value
    }
    if let name = model.versionName { metadata[ObjectGraphModelVersionNameKey] = name }
    return metadata
  }

  /// The keys that describe a set of entity version hashes, as Core Data writes them: the hashes, the
  /// scheme's version (3), the digest of names and hashes (base64 of SHA-512 of each name's UTF-8 followed by
  /// its hash, in name order) and the checksum (base64 of SHA-256 of the hashes in name order). A rewrite of
  /// the hashes always rewrites the other three, so they never disagree.
  static func hashKeys(_ hashes: [String: Data]) -> [String: any Sendable] {
    let sorted = hashes.sorted { Array($0.key.utf8).lexicographicallyPrecedes(Array($1.key.utf8)) }
    var digestInput = Data()
    var checksumInput = Data()
    for (name, hash) in sorted {
      digestInput.append(contentsOf: Data(name.utf8))
      digestInput.append(contentsOf: hash)
      checksumInput.append(contentsOf: hash)
    }
    return [
      NSStoreModelVersionHashesKey: hashes,
      CoreDataMetadataKey.versionHashesVersion: 3,
      CoreDataMetadataKey.versionHashesDigest: SHA512.hash(digestInput).base64EncodedString(),
      NSPersistentStoreModelVersionChecksumKey: SHA256.hash(checksumInput).base64EncodedString(),
    ]
  }

  /// The property list `Z_METADATA.Z_PLIST` holds: every key but the store's UUID, which has its own column.
  static func encode(_ metadata: [String: any Sendable]) throws -> Data {
    var plist: [String: Any] = [:]
    for (key, value) in metadata where key != NSStoreUUIDKey { plist[key] = value }
    return try PropertyListSerialization.data(fromPropertyList: plist, format: .binary, options: 0)
  }

  /// The metadata of the store open in `db`, as the caller's transaction sees it (empty when it cannot be
  /// read), with the store's UUID from its own column (`Z_UUID`) where Core Data keeps it.
  static func read(in db: Database) throws -> [String: any Sendable] {
    let row = try Row.fetchOne(db, sql: "SELECT Z_PLIST, Z_UUID FROM Z_METADATA ORDER BY Z_VERSION LIMIT 1")
    var metadata = (row?["Z_PLIST"] as DatabaseValue?).flatMap { Data.fromDatabaseValue($0) }.flatMap(decode) ?? [:]
    if let uuid = (row?["Z_UUID"] as DatabaseValue?).flatMap({ String.fromDatabaseValue($0) }), !uuid.isEmpty {
      metadata[NSStoreUUIDKey] = uuid
    }
    return metadata
  }

  /// Sets `changes` in the metadata of the store open in `db`, inside the caller's transaction, keeping every
  /// other key exactly as the property list holds it (keys of a newer Core Data included). A property list
  /// that cannot be read is an error, never replaced by one holding only `changes`.
  static func update(in db: Database, with changes: [String: Any], removing removed: Set<String> = [], url: URL?) throws {
    let current = try Data.fetchOne(db, sql: "SELECT Z_PLIST FROM Z_METADATA ORDER BY Z_VERSION LIMIT 1")
    guard let current, var plist = (try? PropertyListSerialization.propertyList(from: current, format: nil)) as? [String: Any] else {
      throw ObjectGraphError(
        .persistentStoreOpen,
        "The metadata of the store at \(url.storePath) (Z_METADATA.Z_PLIST) cannot be read as a property list; it was not rewritten.",
        url: url)
    }
    for key in removed { plist[key] = nil }
    for (key, value) in changes where key != NSStoreUUIDKey { plist[key] = value }
    let data = try PropertyListSerialization.data(fromPropertyList: plist, format: .binary, options: 0)
    try db.execute(sql: "UPDATE Z_METADATA SET Z_PLIST = ? WHERE Z_VERSION = (SELECT MIN(Z_VERSION) FROM Z_METADATA)", arguments: [data])
  }

  static func decode(_ data: Data) -> [String: any Sendable]? {
    guard let plist = try? PropertyListSerialization.propertyList(from: data, options: [], format: nil),
      let dictionary = plist as? [String: Any]
    else { return nil }
    var result: [String: any Sendable] = [:]
    for (key, value) in dictionary {
      if let sendable = sendable(value) { result[key] = sendable }
    }
    return result
  }

  private static func sendable(_ value: Any) -> (any Sendable)? {
    // A property list's numbers come back as NSNumber on Linux, and an NSNumber holding 0 or 1 also casts to
    // Bool: its own type (`c` for a Boolean) says which it was.
    if let number = value as? NSNumber, !(value is String) {
      switch String(cString: number.objCType) {
      case "c", "B": return number.boolValue
      case "f", "d": return number.doubleValue
      default: return number.intValue
      }
    }
    switch value {
    case let data as Data: return data
    case let string as String: return string
    case let bool as Bool: return bool
    case let int as Int: return int
    case let double as Double: return double
    case let date as Date: return date
    case let array as [Any]: return array.compactMap { sendable($0) } as [any Sendable]
    case let dictionary as [String: Any]:
      if dictionary.values.allSatisfy({ $0 is Data }) {
        return dictionary.compactMapValues { $0 as? Data }
      }
      return dictionary.compactMapValues { sendable($0) } as [String: any Sendable]
    default: return nil
    }
  }
}
