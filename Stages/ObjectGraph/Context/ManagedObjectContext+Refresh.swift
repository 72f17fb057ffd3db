import Foundation

extension NSManagedObjectContext {
  /// Throws away every unsaved change: inserted objects leave the context, deleted ones come back, and
  /// changed ones return to their last fetched or saved values.
  public func rollback() {
    isolated("rollback()") { confined in
      for object in confined.inserted.inOrder {
        confined.registry[object.objectID] = nil
        object.state.isInserted = false
        object.managedObjectContext = nil
      }
      let reverted = confined.updated.union(confined.deleted).filter { !$0.objectID.isTemporaryID }
      for object in reverted { revert(object) }
      for object in confined.deleted where object.objectID.isTemporaryID {
        confined.registry[object.objectID] = nil
        object.managedObjectContext = nil
      }
      confined.clearInserted()
      confined.updated = []
      confined.deleted = []
      confined.propagated = []
      confined.unnoticedUpdates = []
      confined.unnoticedDeletes = []
      // As Core Data's: a rollback removes everything from the undo manager.
      undoManager?.removeAllActions()
      for object in reverted { object.awake(fromSnapshotEvents: .rollback) }
    }
  }

  /// Forgets every object: the context is as new. Objects you still hold become unusable (their
  /// context is `nil`); fetch again.
  public func reset() {
    isolated("reset()") { confined in
      for object in confined.registry.objects {
        object.willTurnIntoFault()
        object.managedObjectContext = nil
        object.didTurnIntoFault()
      }
      for object in confined.inserted.inOrder + Array(confined.updated) + Array(confined.deleted) {
        object.managedObjectContext = nil
      }
      confined.registry.removeAll()
      confined.rowCache = [:]
      confined.clearInserted()
      confined.updated = []
      confined.deleted = []
      confined.propagated = []
      confined.unnoticedUpdates = []
      confined.unnoticedDeletes = []
      moveToCurrentQueryGeneration()
      // The context's recorded operations name objects it no longer has.
      undoManager?.removeAllActions(withTarget: self)
      // As Core Data: observers learn that every object they held from this context is invalid.
      NotificationCenter.default.post(
        name: Self.didChangeObjectsNotification, object: self, userInfo: [NotificationKey.invalidatedAllObjects.rawValue: true])
    }
  }

  /// Refreshes an object from the store.
  ///
  /// With `mergeChanges: false` the object becomes a fault again: its unsaved changes are dropped and its
  /// values released, so refreshing objects you keep but no longer read trims memory. Touching it reads
  /// its row again, as the store has it then.
  ///
  /// With `mergeChanges: true` its unsaved changes are kept: an object with changes takes the store's
  /// current values under them at once; one without becomes a fault that reads the row when touched. A
  /// deleted object stays deleted, untouched.
  ///
  /// An object inserted and not yet saved has no row to refresh from and is left as it is.
  ///
  /// Either way the object's fetched properties (see ``NSFetchedPropertyDescription``) forget their results, an
  /// inserted object's too: the next read runs each request again.
  public func refresh(_ object: NSManagedObject, mergeChanges: Bool) {
    isolated("refresh(_:mergeChanges:)") { confined in
      guard object.managedObjectContext === self else { return }
      // Fetched properties run their requests again when next read, an inserted object's too.
      object.forgetFetchedProperties()
      guard !object.state.isInserted, !object.objectID.isTemporaryID else { return }
      let refreshed = mergeChanges ? refreshKeepingChanges([object], confined) : [turnIntoFault(object, confined)]
      postRefreshed(refreshed)
    }
  }

  /// Refreshes every object the context holds, keeping unsaved changes (as ``refresh(_:mergeChanges:)`` with
  /// `mergeChanges: true` does for each, with one read of the store for all the changed ones).
  ///
  /// Objects without changes become faults: their values are released and read again when touched, which
  /// makes this the call to trim a long-lived context's memory while every reference you hold stays valid.
  /// Objects with changes take the store's current values under their changes. Inserted and deleted
  /// objects are left as they are. Rows read ahead for faults are dropped too.
  public func refreshAllObjects() {
    isolated("refreshAllObjects()") { confined in
      confined.rowCache = [:]
      for object in confined.registry.objects { object.forgetFetchedProperties() }
      let candidates = confined.registry.objects.filter { !$0.state.isInserted && !$0.objectID.isTemporaryID }
      postRefreshed(refreshKeepingChanges(candidates, confined))
    }
  }

  /// `refresh(_:mergeChanges: true)` for `objects`, which are registered and have rows: the ones with
  /// changes are read in one request and keep their changes on top; the others become faults. Returns the
  /// objects refreshed.
  private func refreshKeepingChanges(_ objects: [NSManagedObject], _ confined: Confined) -> [NSManagedObject] {
    var refreshed: [NSManagedObject] = []
    var changed: [NSManagedObject] = []
    for object in objects where !object.state.isDeleted {
      if object.state.isUpdated {
        changed.append(object)
      } else if !object.state.needsLoad {
        refreshed.append(turnIntoFault(object, confined))
      }
    }
    guard !changed.isEmpty, let rows = try? parentStore().snapshots(for: changed.map(\.objectID)) else { return refreshed }
    for object in changed {
      guard let fresh = rows[object.objectID] else { continue }
      confined.rowCache[object.objectID] = nil
      takeRow(fresh, keepingChangesOf: object)
      refreshed.append(object)
      object.awake(fromSnapshotEvents: .refresh)
    }
    return refreshed
  }

  /// Gives `object` the store's latest row with this context's unsaved changes re-applied on top, as Core
  /// Data merges (`refresh(_:mergeChanges: true)`, a merge of another context's save): an attribute or a
  /// to-one changed here keeps this context's value; a to-many changed here takes the store's members with
  /// this context's additions and removals applied to them, so a member another context saved is kept (in
  /// an ordered to-many, the store's order, then this context's additions in theirs). A to-many whose
  /// members this context replaced without reading them first keeps this context's members, as set.
  func takeRow(_ fresh: RowSnapshot, keepingChangesOf object: NSManagedObject) {
    let old = object.snapshot
    let local = object.changedSlots.map { ($0, object.values[$0]) }
    object.takeRowKeepingChanges(fresh)
    for (index, mine) in local {
      let slot = object.layout.slots[index]
      guard slot.isRelationship, let mine, mine.isLoadedToMany, let before = old?.values[index].memberList else { continue }
      var theirs = fresh.values[index]
      if theirs.isUnloadedToMany {
        guard let read = try? parentStore().relatedIDs(of: [object.objectID], slot: slot, entity: object.entity)[object.objectID]
        else { continue }
        theirs = slot.toManyValue(read)
      }
      guard let theirMembers = theirs.memberList, let myMembers = mine.memberList else { continue }
      let removed = Set(before).subtracting(myMembers)
      let kept = Set(before)
      let merged = theirMembers.filter { !removed.contains($0) } + myMembers.filter { !kept.contains($0) }
      object.snapshot?.values[index] = theirs
      object.values[index] = slot.toManyValue(merged)
    }
  }

  /// Drops an object's unsaved changes and values: it becomes a fault that reads its row when touched.
  private func turnIntoFault(_ object: NSManagedObject, _ confined: Confined) -> NSManagedObject {
    object.willTurnIntoFault()
    confined.rowCache[object.objectID] = nil
    confined.updated.remove(object)
    confined.unnoticedUpdates.remove(object)
    object.releaseValues()
    object.didTurnIntoFault()
    return object
  }

  private func postRefreshed(_ objects: [NSManagedObject]) {
    guard !objects.isEmpty else { return }
    NotificationCenter.default.post(
      name: Self.didChangeObjectsNotification, object: self, userInfo: [NotificationKey.refreshedObjects.rawValue: Set(objects)])
  }

  /// Gives permanent IDs to inserted objects now, before they are saved, so their IDs can be handed to
  /// other contexts. The objects stay inserted; the save writes them under these IDs.
  ///
  /// Objects inserted in this context get their keys in the order they were inserted, whatever order
  /// `objects` lists them in (`Array(insertedObjects)` is in a set's order), so the save writes its rows
  /// in key order, SQLite's fastest.
  public func obtainPermanentIDs(for objects: [NSManagedObject]) throws {
    try isolated("obtainPermanentIDs(for:)") { confined in
      var pending = objects.filter { $0.objectID.isTemporaryID }
      guard !pending.isEmpty else { return }
      syncStoreRegistrations(confined)
      // Objects inserted here and not saved yet are known to no ancestor: their IDs come from the
      // coordinator straight away, as Core Data's do, without waiting for each ancestor's queue (a
      // worker's writer may be busy writing the last batch to disk). Objects an earlier save pushed up
      // are asked for through the parents, which may have renumbered them already.
      let onlyHere = pending.allSatisfy { confined.inserted.contains($0) }
      // Keys are handed out in the order the objects were inserted, whatever order the array lists them in
      // (`Array(insertedObjects)` lists them in a set's order, which is random). The save then writes the
      // rows in key order, which SQLite appends at the end of the table instead of inserting them all over it.
      if onlyHere && zip(pending, pending.dropFirst()).contains(where: { $0.insertionPosition > $1.insertionPosition }) {
        pending.sort { $0.insertionPosition < $1.insertionPosition }
      }
      let source: any ObjectStore =
        if onlyHere, let coordinator = persistentStoreCoordinator { coordinator } else { try parentStore() }
      // This context is the innermost on this thread while the store gives the IDs (an NSIncrementalStore finds
      // the objects in it), also when it is used on its queue outside a block of its own.
      let ids = try InnermostContext.with(ObjectIdentifier(self)) {
        try source.obtainPermanentIDs(for: pending.map { ($0.objectID, $0.entity) })
      }
      var map: [NSManagedObjectID: NSManagedObjectID] = [:]
      confined.registry.log?.beginBatch()
      for (object, id) in zip(pending, ids) {
        map[object.objectID] = id
        confined.registry[object.objectID] = nil
        object.setObjectID(id)
        confined.register(object)
      }
      confined.registry.log?.endBatch()
      for object in confined.registry.objects where object.hasChanges {
        Self.replaceIDs(in: object, map)
      }
      // Ancestors holding these objects (pushed up by earlier saves) take the same IDs, so the row is
      // written under the ID this context hands out.
      if !onlyHere, let parent = settings.withLock({ $0.parent }) { parent.adoptPermanentIDs(map) }
    }
  }

  /// Renumbers objects this context holds under temporary IDs that a descendant has made permanent.
  func adoptPermanentIDs(_ map: [NSManagedObjectID: NSManagedObjectID]) {
    performAndWait {
      var adopted: [NSManagedObjectID: NSManagedObjectID] = [:]
      for (temporary, permanent) in map {
        guard let object = confined.registered(temporary) else { continue }
        confined.registry[temporary] = nil
        object.setObjectID(permanent)
        confined.register(object)
        confined.aliases[temporary] = permanent
        confined.reverseAliases[permanent] = temporary
        adopted[temporary] = permanent
      }
      if !adopted.isEmpty {
        hasReplacedTemporaryIDs.withLock { $0 = true }
        for object in confined.registry.objects where object.hasChanges { Self.replaceIDs(in: object, adopted) }
      }
      if let parent = settings.withLock({ $0.parent }) { parent.adoptPermanentIDs(map) }
    }
  }

  private func revert(_ object: NSManagedObject) {
    if let snapshot = object.snapshot {
      object.values = snapshot.values
    }
    object.changedSlots = []
    object.state.isUpdated = false
    object.state.isDeleted = false
  }
}
