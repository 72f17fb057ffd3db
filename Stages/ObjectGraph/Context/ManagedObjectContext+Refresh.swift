import Foundation

extension ManagedObjectContext {
  /// Throws away every unsaved change: inserted objects leave the context, deleted ones come back, and
  /// changed ones return to their last fetched or saved values.
  public func rollback() {
    isolated("rollback()") { confined in
      for object in confined.inserted.inOrder {
        confined.registry[object.objectID] = nil
        object.state.isInserted = false
        object.managedObjectContext = nil
      }
      for object in confined.updated.union(confined.deleted) where !object.objectID.isTemporaryID {
        revert(object)
      }
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
    }
  }

  /// Forgets every object: the context is as new. Objects you still hold become unusable (their
  /// context is `nil`); fetch again.
  public func reset() {
    isolated("reset()") { confined in
      for object in confined.registry.objects {
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
      // As Core Data: observers learn that every object they held from this context is invalid.
      NotificationCenter.default.post(
        name: Self.objectsDidChangeNotification, object: self, userInfo: [NotificationKey.invalidatedAllObjects.rawValue: true])
    }
  }

  /// Refreshes an object from the store.
  ///
  /// With `mergeChanges: false` the object becomes a fault again and its unsaved changes are dropped;
  /// with `true` it takes the store's latest values and re-applies its own unsaved changes on top.
  public func refresh(_ object: ManagedObject, mergeChanges: Bool) {
    isolated("refresh(_:mergeChanges:)") { confined in
      guard object.managedObjectContext === self, !object.state.isInserted, !object.objectID.isTemporaryID else { return }
      confined.rowCache[object.objectID] = nil
      if mergeChanges && object.state.isUpdated {
        let changes = object.changedSlots.map { ($0, object.values[$0]) }
        guard let fresh = try? parentStore().snapshots(for: [object.objectID])[object.objectID] else { return }
        object.snapshot = fresh
        object.values = fresh.values
        for (index, value) in changes { object.values[index] = value }
        NotificationCenter.default.post(
          name: Self.objectsDidChangeNotification, object: self, userInfo: [NotificationKey.refreshedObjects.rawValue: Set([object])])
        return
      }
      confined.updated.remove(object)
      object.changedSlots = []
      object.state.isUpdated = false
      object.snapshot = nil
      object.state.isFault = true
      object.state.needsLoad = true
      object.didTurnIntoFault()
      NotificationCenter.default.post(
        name: Self.objectsDidChangeNotification, object: self, userInfo: [NotificationKey.refreshedObjects.rawValue: Set([object])])
    }
  }

  /// Gives permanent IDs to inserted objects now, before they are saved, so their IDs can be handed to
  /// other contexts. The objects stay inserted; the save writes them under these IDs.
  public func obtainPermanentIDs(for objects: [ManagedObject]) throws {
    try isolated("obtainPermanentIDs(for:)") { confined in
      let pending = objects.filter { $0.objectID.isTemporaryID }
      guard !pending.isEmpty else { return }
      let ids = try parentStore().obtainPermanentIDs(for: pending.map { ($0.objectID, $0.entity) })
      var map: [ManagedObjectID: ManagedObjectID] = [:]
      for (object, id) in zip(pending, ids) {
        map[object.objectID] = id
        confined.registry[object.objectID] = nil
        object.setObjectID(id)
        confined.register(object)
      }
      for object in confined.registry.objects where object.hasChanges {
        Self.replaceIDs(in: object, map)
      }
      // Ancestors holding these objects (pushed up by earlier saves) take the same IDs, so the row is
      // written under the ID this context hands out.
      if let parent = settings.withLock({ $0.parent }) { parent.adoptPermanentIDs(map) }
    }
  }

  /// Renumbers objects this context holds under temporary IDs that a descendant has made permanent.
  func adoptPermanentIDs(_ map: [ManagedObjectID: ManagedObjectID]) {
    performAndWait {
      var adopted: [ManagedObjectID: ManagedObjectID] = [:]
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
        for object in confined.registry.objects where object.hasChanges { Self.replaceIDs(in: object, adopted) }
      }
      if let parent = settings.withLock({ $0.parent }) { parent.adoptPermanentIDs(map) }
    }
  }

  private func revert(_ object: ManagedObject) {
    if let snapshot = object.snapshot {
      object.values = snapshot.values
    }
    object.changedSlots = []
    object.state.isUpdated = false
    object.state.isDeleted = false
  }
}
