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
}
