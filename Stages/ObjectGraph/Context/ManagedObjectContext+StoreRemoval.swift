import Foundation

extension NSManagedObjectContext: StoreRemovalListening {
  /// Starts hearing about store removals from `coordinator` (this context's, directly or through its parents).
  func listenForStoreRemovals(from coordinator: NSPersistentStoreCoordinator?) {
    coordinator?.storeRemovalListeners.add(self)
  }

  /// Invalidates, on the context's queue, the objects it holds from `store`: each turns into a fault, loses
  /// its unsaved changes and leaves the context's changed sets; the context then posts
  /// ``didChangeObjectsNotification`` with them under ``NSInvalidatedObjectsKey``. Objects inserted and not
  /// yet saved are left alone: their IDs are temporary, so they belong to no store yet.
  func persistentStoreWasRemoved(_ store: NSPersistentStore) {
    let identifier = store.identifier
    perform { [self] in
      let confined = self.confined
      let invalidated = confined.registry.objects.filter { object in
        !object.objectID.isTemporaryID && object.objectID.storeIdentifier == identifier
      }
      guard !invalidated.isEmpty else { return }
      for object in invalidated {
        object.willTurnIntoFault()
        confined.rowCache[object.objectID] = nil
        confined.updated.remove(object)
        confined.deleted.remove(object)
        confined.propagated.remove(ObjectIdentifier(object))
        confined.conflictChecked.remove(object)
        confined.unnoticedUpdates.remove(object)
        confined.unnoticedDeletes.remove(object)
        object.state.isDeleted = false
        object.releaseValues()
        object.didTurnIntoFault()
      }
      NotificationCenter.default.post(
        name: Self.didChangeObjectsNotification, object: self,
        userInfo: [NotificationKey.invalidatedObjects.rawValue: Set(invalidated)])
    }
  }
}
