import Foundation

extension NSManagedObject {
  /// Whether the relationship `key` is a fault: its destination not in memory yet (Core Data's
  /// `hasFault(forRelationshipNamed:)`). Asking fires no fault.
  ///
  /// A to-many is a fault until its members' IDs have been read (the object itself a fault, or the
  /// relationship not yet touched). A to-one is a fault when the object is a fault (the destination's ID is
  /// not read yet) or its destination is: not registered in the context, or registered as a fault. A to-one
  /// that holds no object is not a fault. A key that names no relationship stops the program, as Core Data
  /// raises.
  public func hasFault(forRelationshipNamed key: String) -> Bool {
    let slot = relationshipSlot(key, asking: "hasFault(forRelationshipNamed:)")
    if state.isFault || state.needsLoad { return true }
    if slot.isToMany { return values[slot.index].isUnloadedToMany }
    guard let id = values[slot.index].objectID else { return false }
    return managedObjectContext?.registeredObject(for: id)?.isFault ?? true
  }

  /// The IDs of the objects the relationship `key` leads to (Core Data's `objectIDs(forRelationshipNamed:)`):
  /// none or one for a to-one, the members for a to-many (in order for an ordered one), without turning any of
  /// them into objects. The object's own fault fires if it is one, and a to-many's member IDs are read from
  /// the store if they were not yet. A key that names no relationship stops the program, as Core Data raises.
  public func objectIDs(forRelationshipNamed key: String) -> [NSManagedObjectID] {
    let slot = relationshipSlot(key, asking: "objectIDs(forRelationshipNamed:)")
    _ = loadedSlot(forKey: key)
    if slot.isToMany { return relatedIDList(slot) }
    return values[slot.index].objectID.map { [$0] } ?? []
  }

  /// The slot of relationship `key`, or the stop when `key` is an attribute.
  private func relationshipSlot(_ key: String, asking method: String) -> EntityLayout.Slot {
    let slot = slot(forKey: key)
    if case .attribute = slot.kind {
      programmerError(
        "ObjectGraph: \(method) was asked about \(entity.entityName).\(key), which is an attribute, not a relationship.")
    }
    return slot
  }
}
