import Foundation

extension NSMergeConflict {
  /// Merges ``sourceObject`` with ``persistedRow`` as `type` does (see
  /// ``NSMergePolicy/resolve(optimisticLockingConflicts:)``), and makes the row the object's snapshot, so that a
  /// save tried again finds no conflict and writes what the object holds. Attributes are set directly; a to-one
  /// that takes the store's value is set through `setValue(_:forKey:)`, which keeps the inverse relationships in
  /// memory right. To-many relationships are left to the save, which writes the members the object added and
  /// removed. Call on the object's context's queue.
  func mergeInMemory(_ type: NSMergePolicyType) {
    let object = sourceObject
    guard let row = persistedRow, let context = object.managedObjectContext, !object.isDeleted else { return }
    let read = object.snapshot?.values
    for slot in object.layout.slots where slot.isPersistent && slot.index < row.values.count {
      let index = slot.index
      let stored = row.values[index]
      let storeChanged = read.map { index >= $0.count || !StoredValueComparison.isEqual($0[index], stored) } ?? true
      let mine = object.changedSlots.contains(index)
      let takeStored: Bool
      switch type {
      case .mergeByPropertyObjectTrumpMergePolicyType: takeStored = storeChanged && !mine
      case .mergeByPropertyStoreTrumpMergePolicyType: takeStored = storeChanged
      case .rollbackMergePolicyType: takeStored = storeChanged || mine
      case .overwriteMergePolicyType:
        // The object's value, read before the store changed it, is written over the store's.
        if storeChanged && !mine { object.changedSlots.insert(index) }
        takeStored = false
      case .errorMergePolicyType: takeStored = false
      }
      guard takeStored else { continue }
      switch slot.kind {
      case .attribute:
        object.values[index] = stored
        object.changedSlots.remove(index)
      case .toOne:
        let destination = stored.objectID.map { context.object(with: $0) }
        object.setValue(destination, forKey: slot.name)
      case .toMany:
        continue
      }
    }
    object.snapshot = row
    object.forgetFetchedProperties()
  }
}
