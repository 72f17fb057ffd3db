import Foundation

extension NSManagedObjectContext {
  /// Brings another context's saved changes into this one, as Core Data's
  /// `mergeChanges(fromContextDidSave:)` does: objects this context holds that were updated are refreshed
  /// (their unsaved changes here are kept on top), deleted ones leave this context, and inserted ones are
  /// faulted in. Posts ``didChangeObjectsNotification``.
  ///
  /// Call it on this context's queue, with a did-save (or did-save-object-IDs) notification from a context
  /// of the same coordinator, or from this context's parent:
  ///
  /// ```swift
  /// NotificationCenter.default.addObserver(forName: NSManagedObjectContext.didSaveObjectIDsNotification,
  ///                                        object: worker, queue: nil) { note in
  ///   let ids = SavedObjectIDs(note)          // Sendable: safe to carry to the main queue
  ///   main.perform { main.mergeChanges(fromContextDidSave: ids) }
  /// }
  /// ```
  public func mergeChanges(fromContextDidSave notification: Notification) {
    mergeChanges(fromContextDidSave: SavedObjectIDs(notification))
  }

  /// Merges saved changes given as IDs (see ``SavedObjectIDs``), which may cross queues.
  public func mergeChanges(fromContextDidSave changes: SavedObjectIDs) {
    isolated("mergeChanges(fromContextDidSave:)") { confined in
      // A pinned context moves to the newest generation first, so the rows it reads below are the merged ones.
      moveToCurrentQueryGeneration()
      // What a merge brings is not the user's change: it is not recorded for undo (nor is it in Core Data).
      confined.undoSuppression += 1
      defer { confined.undoSuppression -= 1 }
      var refreshed: Set<NSManagedObject> = []
      var deleted: Set<NSManagedObject> = []
      var inserted: Set<NSManagedObject> = []
      for id in changes.updated.union(changes.deleted) { confined.rowCache[id] = nil }
      let updatedHere = changes.updated.compactMap { confined.registered(resolve($0)) ?? twinInChild(of: $0, confined) }
      if !updatedHere.isEmpty, let fresh = try? parentStore().snapshots(for: updatedHere.map(\.objectID)) {
        for object in updatedHere where !object.state.isInserted && !object.state.isDeleted {
          guard let snapshot = fresh[object.objectID] else { continue }
          takeRow(snapshot, keepingChangesOf: object)
          refreshed.insert(object)
        }
      }
      for id in changes.deleted {
        guard let object = confined.registered(resolve(id)) ?? twinInChild(of: id, confined) else { continue }
        if object.state.isDeleted {
          // Deleted here too: the row is gone, so this context's save has nothing left to delete.
          object.state.isInaccessible = true
          continue
        }
        // As Core Data does, through delete(_:): the object's relationships here are undone by its delete
        // rules. Its row is already gone, so saving this delete later writes nothing.
        confined.updated.remove(object)
        object.state.isUpdated = false
        object.state.isDeleted = true
        object.state.isInaccessible = true
        confined.deleted.insert(object)
        deleted.insert(object)
      }
      propagateDeletes(confined)
      for id in changes.inserted where confined.registered(id) == nil {
        inserted.insert(materializeFault(id, confined))
      }
      if !(refreshed.isEmpty && deleted.isEmpty && inserted.isEmpty) {
        NotificationCenter.default.post(
          name: Self.didChangeObjectsNotification, object: self,
          userInfo: [
            NotificationKey.refreshedObjects.rawValue: refreshed, NotificationKey.deletedObjects.rawValue: deleted,
            NotificationKey.insertedObjects.rawValue: inserted, NotificationKey.updatedObjects.rawValue: Set<NSManagedObject>(),
          ])
      }
      // After the merge, as Core Data posts it: what was merged, by ID, and what it refreshed here.
      NotificationCenter.default.post(
        name: Self.didMergeChangesObjectIDsNotification, object: self,
        userInfo: [
          NotificationKey.insertedObjectIDs.rawValue: changes.inserted, NotificationKey.updatedObjectIDs.rawValue: changes.updated,
          NotificationKey.deletedObjectIDs.rawValue: changes.deleted,
          NotificationKey.refreshedObjectIDs.rawValue: Set(refreshed.map(\.objectID)),
        ])
    }
  }

  /// Starts or stops merging the parent's saves (or, for a root context, other root contexts' saves to
  /// the same coordinator) into this context, on this context's queue.
  func updateAutomaticMerging(_ enabled: Bool) {
    let token: (any NSObjectProtocol)? =
      enabled
      ? NotificationCenter.default.addObserver(
        forName: Self.didSaveObjectIDsNotification, object: nil, queue: nil
      ) { [weak self] notification in
        guard let self, let saver = notification.object as? NSManagedObjectContext, saver !== self else { return }
        // "Changes saved to its persistent store coordinator or parent context": the parent's own saves, a
        // sibling's saves into the shared parent, or (for a root context) other root contexts' saves.
        let parent = self.parent
        let fromParent = parent.map { $0 === saver } ?? false
        let fromSiblingChild = parent.map { $0 === saver.parent } ?? false
        let fromSiblingRoot =
          parent == nil && saver.parent == nil && saver.persistentStoreCoordinator === self.persistentStoreCoordinator
        guard fromParent || fromSiblingChild || fromSiblingRoot else { return }
        let changes = SavedObjectIDs(notification)
        self.perform { self.mergeChanges(fromContextDidSave: changes) }
      } : nil
    let previous = settings.withLock { state -> (any NSObjectProtocol)? in
      let old = state.mergeObserver
      state.mergeObserver = token.map(ObserverToken.init)
      return old?.token
    }
    if let previous { NotificationCenter.default.removeObserver(previous) }
  }
}

/// A notification observer token kept in the context's settings.
///
/// `@unchecked Sendable`: the token is only stored, then handed to `NotificationCenter.removeObserver`,
/// which is thread-safe; nothing reads its state.
struct ObserverToken: @unchecked Sendable {
  let token: any NSObjectProtocol
}
