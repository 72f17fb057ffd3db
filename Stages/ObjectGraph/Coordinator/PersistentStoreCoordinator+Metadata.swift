import Foundation

/// A store's metadata as an app keeps things there (a sync token, the date of the last import), as
/// Core Data's coordinator offers it.
extension NSPersistentStoreCoordinator {
  /// The metadata of `store`: what the file holds, with the keys set by ``setMetadata(_:for:)`` that the
  /// next save will write (Core Data's `metadata(for:)`).
  public func metadata(for store: NSPersistentStore) -> [String: Any] {
    store.metadata
  }

  /// Sets the metadata of `store`; the file gets it in the transaction of the store's next save, as in
  /// Core Data (nothing is written until then, and a save with no changes writes nothing).
  ///
  /// The dictionary replaces the app's keys: a key of yours left out is removed. The engine's own keys
  /// (those of Core Data: the store type and UUID, the model's version hashes, …) are kept
  /// whether the dictionary has them or not, so the usual way of adding a key works:
  ///
  /// ```swift
  /// var metadata = coordinator.metadata(for: store)
  /// metadata["syncToken"] = token
  /// coordinator.setMetadata(metadata, for: store)
  /// try context.save()  // written with the context's changes
  /// ```
  ///
  /// `nil` removes the app's keys. A dictionary that gives one of the engine's keys a value other than the
  /// one it has (the store would no longer open, or open as another store), or holds a value a property list
  /// cannot (strings, numbers, Booleans, dates, data, and arrays and string-keyed dictionaries of them), and
  /// a store that is not one of this coordinator's, are programmer errors: Core Data raises an exception
  /// (for a dictionary, when the store is saved), and the engine stops the program at once, naming the key.
  public func setMetadata(_ metadata: [String: Any]?, for store: NSPersistentStore) {
    do {
      try setCheckedMetadata(metadata ?? [:], for: store)
    } catch {
      programmerError("ObjectGraph: \((error as? ObjectGraphError)?.message ?? "\(error)")")
    }
  }

  /// ``setMetadata(_:for:)``, throwing what it stops the program for (the engine's tests read the message).
  func setCheckedMetadata(_ metadata: [String: Any], for store: NSPersistentStore) throws {
    guard persistentStores.contains(where: { $0 === store }) else {
      throw ObjectGraphError(
        .persistentStoreOperation, "setMetadata(_:for:) was given \(store), which is not one of this coordinator's stores.")
    }
    let checked = try Self.checkAppMetadata(metadata, against: store.sendableMetadata, method: "setMetadata(_:for:)")
    store.setAppMetadata(checked)
  }

  /// Sets the metadata of the store file at `url` now, without adding the store (Core Data's class method
  /// `setMetadata(_:forPersistentStoreOfType:at:options:)`): to mark a store file, say as imported, before
  /// or after the app opens it.
  ///
  /// ```swift
  /// var metadata = try NSPersistentStoreCoordinator.metadataForPersistentStore(ofType: NSSQLiteStoreType, at: url)
  /// metadata["importedAt"] = Date()
  /// try NSPersistentStoreCoordinator.setMetadata(metadata, forPersistentStoreOfType: NSSQLiteStoreType, at: url)
  /// ```
  ///
  /// As ``setMetadata(_:for:)``, the dictionary replaces the app's keys (a key of yours left out is
  /// removed; `nil` removes them all) and the store's own keys (its type and UUID, the model's version
  /// hashes, ...) are kept whether the dictionary has them or not. The file is written at once, in one
  /// transaction. `options` are read as ``addPersistentStore(type:configuration:at:options:)`` reads them
  /// (its `NSSQLitePragmasOption` apply to the connection that writes). Do it while no coordinator has the
  /// store: one that has it keeps the metadata it read and does not see the change.
  /// - Throws: ``ObjectGraphInvalidValueError`` naming the key, as ``setMetadata(_:for:)`` (nothing is
  ///   written then); Cocoa's `NSFileReadNoSuchFileError` when there is no file at `url`;
  ///   ``NSPersistentStoreInvalidTypeError`` for a type other than SQLite, or a file that is not a store;
  ///   ``NSPersistentStoreSaveError`` when the file cannot be written.
  public static func setMetadata(
    _ metadata: [String: Any]?, forPersistentStoreOfType storeType: String, at url: URL, options: [AnyHashable: Any]? = nil
  ) throws {
    let parsed = try StoreOptions(dictionary: options)
    guard NSPersistentStore.StoreType(rawValue: storeType) == .sqlite else {
      throw ObjectGraphError(
        .persistentStoreInvalidType,
        "The engine sets the metadata of SQLite store files by URL (NSSQLiteStoreType); got '\(storeType)'. Add a binary store and use setMetadata(_:for:), then save.",
        url: url)
    }
    let current = try metadataForPersistentStore(type: .sqlite, at: url)
    let given = metadata ?? [:]
    _ = try checkAppMetadata(given, against: current, method: "setMetadata(_:forPersistentStoreOfType:at:options:)")
    let set = given.filter { !CoreDataMetadataKey.engineKeys.contains($0.key) }
    let removed = Set(current.keys.filter { !CoreDataMetadataKey.engineKeys.contains($0) && given[$0] == nil })
    try NSPersistentStore.writeMetadata(url: url, setting: set, removing: removed, options: parsed)
  }

  /// Sets the metadata of the store file at `storeURL` now, without adding the store (Core Data's class
  /// method `setMetadata(_:type:at:options:)`); as `setMetadata(_:forPersistentStoreOfType:at:options:)`.
  public static func setMetadata(
    _ metadata: [String: Any]?, type storeType: NSPersistentStore.StoreType, at storeURL: URL,
    options: [AnyHashable: Any]? = nil
  ) throws {
    try setMetadata(metadata, forPersistentStoreOfType: storeType.rawValue, at: storeURL, options: options)
  }

  /// Checks a metadata dictionary an app sets: the engine's keys may only repeat their `current` values,
  /// and every other value must be one a property list holds.
  /// - Returns: the dictionary with values that can cross queues (an `NSString` as a `String`, arrays and
  ///   dictionaries of such values).
  static func checkAppMetadata(_ metadata: [String: Any], against current: [String: Any], method: String) throws
    -> [String: any Sendable]
  {
    var checked: [String: any Sendable] = [:]
    for (key, value) in metadata.sorted(by: { $0.key < $1.key }) {
      if CoreDataMetadataKey.engineKeys.contains(key) {
        guard let kept = current[key], Self.propertyListValuesEqual(kept, value) else {
          throw ObjectGraphError(
            .invalidValue,
            "Metadata key '\(key)' belongs to the engine, which keeps it in step with the store's contents; \(method) may repeat its current value but not change it. Keep your own values under keys of your own."
          )
        }
      } else if let sendable = Self.sendablePropertyListValue(value) {
        checked[key] = sendable
      } else {
        throw ObjectGraphError(
          .invalidValue,
          "Metadata key '\(key)' holds a \(type(of: value)), which a store's metadata (a property list) cannot keep. Use strings, numbers, Booleans, dates, data, or arrays and string-keyed dictionaries of them."
        )
      }
    }
    return checked
  }

  /// `value` as a property-list value that can cross queues, or `nil` when a property list cannot hold it.
  static func sendablePropertyListValue(_ value: Any) -> (any Sendable)? {
    switch value {
    case let string as String: return string
    case let number as NSNumber where type(of: value) is NSNumber.Type: return number
    case let value as Bool: return value
    case let value as Int: return value
    case let value as Int8: return value
    case let value as Int16: return value
    case let value as Int32: return value
    case let value as Int64: return value
    case let value as UInt: return value
    case let value as UInt8: return value
    case let value as UInt16: return value
    case let value as UInt32: return value
    case let value as UInt64: return value
    case let value as Double: return value
    case let value as Float: return value
    case let date as Date: return date
    case let data as Data: return data
    case let string as NSString: return string.description
    case let array as [Any]:
      let members = array.compactMap(sendablePropertyListValue)
      return members.count == array.count ? members : nil
    case let dictionary as [String: Any]:
      let members = dictionary.compactMapValues(sendablePropertyListValue)
      return members.count == dictionary.count ? members : nil
    default: return nil
    }
  }

  /// Whether two property-list values are equal (the engine's keys hold strings, numbers, arrays and
  /// dictionaries of data).
  private static func propertyListValuesEqual(_ a: Any, _ b: Any) -> Bool {
    switch (a, b) {
    case (let x as Data, let y as Data): return x == y
    case (let x as String, let y as String): return x == y
    case (let x as Date, let y as Date): return x == y
    case (let x as [Any], let y as [Any]):
      return x.count == y.count && zip(x, y).allSatisfy { propertyListValuesEqual($0, $1) }
    case (let x as [String: Any], let y as [String: Any]):
      return x.count == y.count && x.allSatisfy { key, value in y[key].map { propertyListValuesEqual(value, $0) } ?? false }
    default:
      // Numbers and Booleans, whichever Swift type holds them.
      return "\(a)" == "\(b)"
    }
  }
}
