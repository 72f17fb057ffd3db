import Foundation

/// A store's metadata as an app keeps things there (a sync token, the date of the last import), as
/// Core Data's coordinator offers it.
extension NSPersistentStoreCoordinator {
  /// The metadata of `store`: what the file holds, with the keys set by ``setMetadata(_:for:)`` that the
  /// next save will write (Core Data's `metadata(for:)`).
  public func metadata(for store: NSPersistentStore) -> [String: any Sendable] {
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
  /// try coordinator.setMetadata(metadata, for: store)
  /// try context.save()  // written with the context's changes
  /// ```
  ///
  /// - Throws: ``ObjectGraphInvalidValueError`` when the dictionary gives one of the engine's keys
  ///   a value other than the one it has (the store would no longer open, or open as another store), or
  ///   holds a value a property list cannot (strings, numbers, Booleans, dates, data, and arrays and
  ///   string-keyed dictionaries of them), naming the key; nothing is changed then.
  ///   ``NSPersistentStoreOperationError`` when `store` is not one of this coordinator's.
  ///   (Core Data's method does not throw; it raises for such a dictionary when the store is saved.)
  public func setMetadata(_ metadata: [String: any Sendable], for store: NSPersistentStore) throws {
    guard persistentStores.contains(where: { $0 === store }) else {
      throw ObjectGraphError(.persistentStoreOperation, "\(store) is not one of this coordinator's stores.")
    }
    let current = store.metadata
    for (key, value) in metadata.sorted(by: { $0.key < $1.key }) {
      if CoreDataMetadataKey.engineKeys.contains(key) {
        guard let kept = current[key], Self.propertyListValuesEqual(kept, value) else {
          throw ObjectGraphError(
            .invalidValue,
            "Metadata key '\(key)' belongs to the engine, which keeps it in step with the store's contents; setMetadata(_:for:) may repeat its current value but not change it. Keep your own values under keys of your own."
          )
        }
      } else if !Self.isPropertyListValue(value) {
        throw ObjectGraphError(
          .invalidValue,
          "Metadata key '\(key)' holds a \(type(of: value)), which a store's metadata (a property list) cannot keep. Use strings, numbers, Booleans, dates, data, or arrays and string-keyed dictionaries of them."
        )
      }
    }
    store.setAppMetadata(metadata)
  }

  /// Whether a property list can hold `value`.
  static func isPropertyListValue(_ value: Any) -> Bool {
    switch value {
    case is String, is Bool, is Int, is Int8, is Int16, is Int32, is Int64, is UInt, is UInt8, is UInt16, is UInt32, is UInt64,
      is Double, is Float, is Date, is Data, is NSNumber:
      return true
    case let array as [Any]: return array.allSatisfy(isPropertyListValue)
    case let dictionary as [String: Any]: return dictionary.values.allSatisfy(isPropertyListValue)
    default: return false
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
