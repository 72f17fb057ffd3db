import Foundation

extension NSManagedObject {
  /// Makes an object of `entity`, inserting it into `context` when one is given: Core Data's older spelling of
  /// ``init(entity:insertInto:)``, which it calls.
  public convenience init(entity: NSEntityDescription, insertIntoManagedObjectContext context: NSManagedObjectContext?) {
    self.init(entity: entity, insertInto: context)
  }

  /// Whether a persistent property (one a save writes: not a transient) has changed since the object was
  /// last fetched or saved (Core Data's `hasPersistentChangedValues`). A new object has changed values when
  /// any of its persistent properties holds one. Changing a property and changing it back leaves none.
  public var hasPersistentChangedValues: Bool {
    ConcurrencyDebug.objectTouchedOffQueue(self, key: "hasPersistentChangedValues")
    return changedValues().keys.contains { key in
      guard let property = entity.propertiesByName[key] else { return true }
      return !property.isTransient
    }
  }

  /// The object's faulting state (Core Data's `faultingState`): 0 when the object is fully initialised as
  /// a managed object and not turning into or out of a fault. Apple documents no other values. It is always 0
  /// here, as a fault too is a fully made object whose values load on first access (see ``isFault``), and
  /// the engine's transitions finish before any code of the object's queue can look.
  public var faultingState: Int {
    ConcurrencyDebug.objectTouchedOffQueue(self, key: "faultingState")
    return 0
  }

  /// Called by a custom to-many accessor before it changes the set of `inKey` with `inMutationKind` and
  /// `inObjects` (Core Data's `willChangeValue(forKey:withSetMutation:using:)`). As
  /// ``willChangeValue(forKey:)``, it fires the fault, so the change is made to loaded values; there is no
  /// key-value observing to notify.
  public func willChangeValue(
    forKey inKey: String, withSetMutation inMutationKind: NSKeyValueSetMutationKind, using inObjects: Set<AnyHashable>
  ) {
    willChangeValue(forKey: inKey)
  }

  /// Called by a custom to-many accessor after it changed the set of `inKey` (Core Data's
  /// `didChangeValue(forKey:withSetMutation:using:)`). Does nothing here, as ``didChangeValue(forKey:)``:
  /// the change made through ``mutableSetValue(forKey:)`` or the primitive setter has been recorded already.
  public func didChangeValue(
    forKey inKey: String, withSetMutation inMutationKind: NSKeyValueSetMutationKind, using inObjects: Set<AnyHashable>
  ) {
    didChangeValue(forKey: inKey)
  }
}
