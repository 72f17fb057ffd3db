import Foundation

/// Reading and writing a store's metadata as a binary property list, the form Core Data keeps in
/// `Z_METADATA.Z_PLIST`.
enum StoreMetadata {
  static func make(type: StoreType, identifier: String, model: ManagedObjectModel, entities: [EntityDescription])
    -> [String: any Sendable]
  {
    var metadata: [String: any Sendable] = [
      StoreMetadataKey.storeType: type.rawValue,
      StoreMetadataKey.storeUUID: identifier,
      StoreMetadataKey.versionHashes: Dictionary(entities.map { ($0.name, $0.versionHash) }, uniquingKeysWith: { a, _ in a }),
      StoreMetadataKey.versionIdentifiers: model.versionIdentifiers.sorted(),
      StoreMetadataKey.formatVersion: 1,
    ]
    if let name = model.versionName { metadata[StoreMetadataKey.modelVersionName] = name }
    return metadata
  }

  static func encode(_ metadata: [String: any Sendable]) throws -> Data {
    var plist: [String: Any] = [:]
    for (key, value) in metadata { plist[key] = value }
    return try PropertyListSerialization.data(fromPropertyList: plist, format: .binary, options: 0)
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
