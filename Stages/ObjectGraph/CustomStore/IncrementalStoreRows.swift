import Foundation

/// Turns what an incremental store answers into what contexts read: a node into a row snapshot (values by
/// layout slot), and a relationship's value into member IDs.
enum IncrementalStoreRows {
  /// The snapshot of `node`, the values of the object `id` names. A to-many the node leaves out is marked
  /// unloaded: the context asks the store for its members when it is first read.
  static func snapshot(of node: NSIncrementalStoreNode, for id: NSManagedObjectID) -> RowSnapshot {
    let layout = id.entity.layout
    var values = [StoredValue](repeating: nil, count: layout.slots.count)
    for slot in layout.slots where slot.isPersistent {
      let entry = node.entry(slot.name)
      switch slot.kind {
      case .attribute(let type):
        guard let raw = entry.value, !(raw is NSNull) else { continue }
        values[slot.index] = SlotValue.coerce(raw, to: type)
      case .toOne:
        values[slot.index] = members(entry.value).first.map { .objectID($0) }
      case .toMany:
        values[slot.index] = entry.present ? slot.toManyValue(members(entry.value)) : .unloadedToMany
      }
    }
    return RowSnapshot(version: Int64(truncatingIfNeeded: node.version), values: values)
  }

  /// The IDs a relationship's value holds: an ID, an object, or an array, set or ordered set of either.
  static func members(_ value: Any?) -> [NSManagedObjectID] {
    switch value {
    case nil, is NSNull: return []
    case let id as NSManagedObjectID: return [id]
    case let object as NSManagedObject: return [object.objectID]
    case let ids as [NSManagedObjectID]: return ids
    case let ids as Set<NSManagedObjectID>: return Array(ids)
    case let ordered as NSOrderedSet: return ordered.array.flatMap { members($0) }
    case let set as NSSet: return set.allObjects.flatMap { members($0) }
    case let array as [Any]: return array.flatMap { members($0) }
    default: return []
    }
  }

  /// A row of a dictionary fetch as a subclass returns it: a Swift dictionary or an `NSDictionary` with string
  /// keys; `nil` for anything else.
  static func dictionary(_ item: Any) -> [String: Any]? {
    if let row = item as? [String: Any] { return row }
    guard let row = item as? NSDictionary else { return nil }
    var result: [String: Any] = [:]
    for (key, value) in row {
      guard let name = (key as? String) ?? (key as? NSString).map({ String($0) }) else { return nil }
      result[name] = value
    }
    return result
  }

  /// A value of a type no property holds, in what a subclass returned for a dictionary fetch.
  struct UnreadableValue: Error {
    /// The value, described, and its type's name.
    let value: String
    let type: String
  }

  /// `raw` as a slot value: `nil` (absent or `NSNull`) for no value, a managed object as its ID.
  /// - Throws: ``UnreadableValue`` for a value of a type no property holds.
  static func value(_ raw: Any?) throws -> StoredValue {
    switch raw {
    case nil, is NSNull: return nil
    case let value as String: return .string(value)
    case let value as NSManagedObjectID: return .objectID(value)
    case let value as NSManagedObject: return .objectID(value.objectID)
    case let value as Date: return .date(value)
    case let value as Data: return .data(value)
    case let value as Bool: return .bool(value)
    case let value as Int: return .int64(Int64(value))
    case let value as Int64: return .int64(value)
    case let value as Int32: return .int32(value)
    case let value as Int16: return .int16(value)
    case let value as Double: return .double(value)
    case let value as Float: return .float(value)
    case let value as UUID: return SlotValue(value)
    case let value as URL: return SlotValue(value)
    case let value as Decimal: return SlotValue(value)
    case let value as NSNumber:
      let whole = value.int64Value
      return value.doubleValue == Double(whole) ? .int64(whole) : .double(value.doubleValue)
    case let value as NSString: return .string(String(value))
    case let value?: throw UnreadableValue(value: "\(value)", type: "\(Swift.type(of: value))")
    }
  }
}
