import Foundation

extension NSManagedObjectContext {
  /// Whether the context applies delete rules (cascade, nullify, deny's bookkeeping) at the end of each
  /// event, where it also posts ``didChangeObjectsNotification`` (Core Data's `propagatesDeletesAtEndOfEvent`).
  /// Default `true`. With `false`, the rules are applied only when the context saves: until then a deleted
  /// object's related objects keep pointing at it, and a cascade's objects are not yet deleted. The end of a
  /// `perform` block, ``processPendingChanges()`` and a count with pending changes honour it; undo, redo and a
  /// merge of another context's deletions still apply the rules, as they must to put both sides back.
  public var propagatesDeletesAtEndOfEvent: Bool {
    get { settings.withLock { $0.propagatesDeletesAtEndOfEvent } }
    set { settings.withLock { $0.propagatesDeletesAtEndOfEvent = newValue } }
  }

  /// Marks `object` so that the next ``save()`` checks it for an optimistic-locking conflict even if it has
  /// not changed (Core Data's `detectConflicts(for:)`): when another context or a batch request changed or
  /// deleted its row since this context read it, the save fails with 133020 (or the merge policy settles
  /// it), as it would for a changed object.
  ///
  /// The object is saved as an update without changed values: its row version goes up and the did-save
  /// notification lists it among the updated objects. The mark lasts until the next successful save. An
  /// inserted object has no row to check, and one of another context is left alone (a programmer error,
  /// reported when concurrency debugging is on).
  public func detectConflicts(for object: NSManagedObject) {
    isolated("detectConflicts(for:)") { confined in
      guard object.managedObjectContext === self else {
        if object.managedObjectContext != nil { ConcurrencyDebug.objectsFromTwoContexts(object, object, key: "(detectConflicts)") }
        return
      }
      guard !object.state.isInserted, !object.objectID.isTemporaryID else { return }
      // The row version it read is what the save checks: a fault reads its row now.
      object.fireFault(key: object.layout.slots.first?.name ?? "")
      confined.conflictChecked.insert(object)
    }
  }

  /// Asked when a fault's row turns out to be gone (Core Data's
  /// `shouldHandleInaccessibleFault(_:for:triggeredByProperty:)`): `true` lets the context handle it, turning
  /// the object into a deleted, empty one; `false` stops the program with "could not fulfill a fault", as
  /// older Core Data raised.
  ///
  /// `fault` is the object, `oid` its ID, and `property` the property whose access fired the fault (`nil`
  /// when not known). This implementation returns ``shouldDeleteInaccessibleFaults``; Core Data's class can
  /// be subclassed to decide per object, while this context class is final, so the setting is the way to
  /// choose here.
  public func shouldHandleInaccessibleFault(
    _ fault: NSManagedObject, for oid: NSManagedObjectID, triggeredByProperty property: NSPropertyDescription?
  ) -> Bool {
    shouldDeleteInaccessibleFaults
  }
}
