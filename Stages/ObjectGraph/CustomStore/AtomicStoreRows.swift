import Foundation

/// Turns an atomic store's cache nodes into the rows of its in-memory database: one insert per node, its
/// values by layout slot (a relationship's nodes as their object IDs), and each relationship's inverse filled
/// in where the nodes give one side only.
enum AtomicStoreRows {
  /// The save request that writes `nodes` as new rows.
  static func insertRequest(for nodes: [NSAtomicStoreCacheNode]) -> StoreSaveRequest {
    var rows: [NSManagedObjectID: [StoredValue]] = [:]
    var order: [NSManagedObjectID] = []
    for node in nodes where rows[node.objectID] == nil {
      rows[node.objectID] = values(of: node)
      order.append(node.objectID)
    }
    fillInverses(&rows, order: order)
    var request = StoreSaveRequest()
    request.inserts = order.compactMap { id in
      rows[id].map { StoreSaveRequest.Insert(temporaryID: id, entity: id.entity, values: $0) }
    }
    return request
  }

  /// A node's values, one per slot of its entity's layout.
  private static func values(of node: NSAtomicStoreCacheNode) -> [StoredValue] {
    let layout = node.objectID.entity.layout
    var values = [StoredValue](repeating: nil, count: layout.slots.count)
    for slot in layout.slots where slot.isPersistent {
      let raw = node.value(forKey: slot.name)
      switch slot.kind {
      case .attribute(let type):
        guard let raw, !(raw is NSNull) else { continue }
        values[slot.index] = SlotValue.coerce(raw, to: type)
      case .toOne:
        values[slot.index] = members(raw).first.map { .objectID($0) }
      case .toMany:
        values[slot.index] = slot.toManyValue(members(raw))
      }
    }
    return values
  }

  /// The object IDs of the nodes a relationship's value holds: a node, a set, an array or an ordered set of them.
  private static func members(_ value: Any?) -> [NSManagedObjectID] {
    switch value {
    case let node as NSAtomicStoreCacheNode: return [node.objectID]
    case let set as Set<NSAtomicStoreCacheNode>: return set.map(\.objectID)
    case let array as [NSAtomicStoreCacheNode]: return array.map(\.objectID)
    case let ordered as NSOrderedSet: return ordered.array.compactMap { ($0 as? NSAtomicStoreCacheNode)?.objectID }
    case let set as NSSet: return set.allObjects.compactMap { ($0 as? NSAtomicStoreCacheNode)?.objectID }
    case let array as [Any]: return array.compactMap { ($0 as? NSAtomicStoreCacheNode)?.objectID }
    default: return []
    }
  }

  /// Where a node names a destination and the destination's node leaves the inverse empty, the inverse gets it.
  private static func fillInverses(_ rows: inout [NSManagedObjectID: [StoredValue]], order: [NSManagedObjectID]) {
    var additions: [NSManagedObjectID: [Int: [NSManagedObjectID]]] = [:]
    for id in order {
      guard let values = rows[id] else { continue }
      for slot in id.entity.layout.slots where slot.isRelationship && slot.isPersistent {
        guard let inverse = slot.relationship?.inverseRelationship else { continue }
        for destination in ids(in: values[slot.index]) {
          guard let destinationValues = rows[destination],
            let inverseIndex = destination.entity.layout.index(of: inverse.name),
            ids(in: destinationValues[inverseIndex]).isEmpty || !destination.entity.layout.slots[inverseIndex].isToMany
          else { continue }
          if !destination.entity.layout.slots[inverseIndex].isToMany, destinationValues[inverseIndex] != nil { continue }
          additions[destination, default: [:]][inverseIndex, default: []].append(id)
        }
      }
    }
    for (destination, slots) in additions {
      guard var values = rows[destination] else { continue }
      for (index, members) in slots {
        let slot = destination.entity.layout.slots[index]
        values[index] = slot.isToMany ? slot.toManyValue(members) : members.first.map { .objectID($0) }
      }
      rows[destination] = values
    }
  }

  /// The IDs a relationship slot's value holds.
  private static func ids(in value: StoredValue) -> [NSManagedObjectID] {
    switch value {
    case .objectID(let id)?: return [id]
    case .objectIDs(let set)?: return Array(set)
    case .orderedObjectIDs(let ordered)?: return ordered.list
    default: return []
    }
  }
}
