import Foundation

extension NSManagedObject {
  /// The keys and **old** values of the persistent properties changed since the object's context last posted
  /// ``NSManagedObjectContext/didChangeObjectsNotification`` (Core Data's `changedValuesForCurrentEvent()`):
  /// what code later in the same event can compare against. The notification's own observers still read the
  /// event it announces; the next event starts after them.
  ///
  /// Old values are given as ``value(forKey:)`` gives values (numbers as `NSNumber`, a to-one's object, a
  /// to-many's set), with `NSNull` for a property that had none. A property changed and changed back within
  /// the event is left out. An object inserted and not yet saved has no old values: the dictionary is empty
  /// (``changedValues()`` gives its values). Composite attributes are left out.
  public func changedValuesForCurrentEvent() -> [String: Any] {
    ConcurrencyDebug.objectTouchedOffQueue(self, key: "changedValuesForCurrentEvent()")
    guard let record = eventChanges, let context = managedObjectContext, record.event == context.confined.eventNumber else {
      return [:]
    }
    var result: [String: Any] = [:]
    for (index, old) in record.old {
      let slot = layout.slots[index]
      guard slot.isPersistent, !slot.isComposite, slot.compositeOwner == nil, !StoredValueComparison.isEqual(old, values[index])
      else { continue }
      result[slot.name] = oldValue(old, slot, context) ?? NSNull()
    }
    return result
  }

  /// Records slot `index`'s value before its first change in the current event (objects with a row only).
  func recordEventOldValue(_ index: Int) {
    guard let context = managedObjectContext, context.isOnQueue else { return }
    let event = context.confined.eventNumber
    if eventChanges?.event != event {
      eventChanges = EventChanges(event: event, old: [index: values[index]])
    } else if eventChanges?.old[index] == nil {
      eventChanges?.old[index] = values[index]
    }
  }

  private func oldValue(_ stored: StoredValue, _ slot: EntityLayout.Slot, _ context: NSManagedObjectContext) -> Any? {
    switch slot.kind {
    case .attribute:
      return layout.transformableIndexes.contains(slot.index) ? transformableValue(stored, at: slot.index) : stored?.boxedValue
    case .toOne:
      return stored.objectID.map { context.object(with: $0) }
    case .toMany where slot.isOrdered:
      return NSOrderedSet(array: (stored.memberList ?? []).map { context.object(with: $0) })
    case .toMany:
      return Set((stored.objectIDs ?? []).map { context.object(with: $0) })
    }
  }
}
