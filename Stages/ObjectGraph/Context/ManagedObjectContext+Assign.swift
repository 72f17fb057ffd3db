import Foundation

extension NSManagedObjectContext {
  /// Chooses the store a newly inserted object is saved to (Core Data's `assign(_:to:)`).
  ///
  /// ```swift
  /// let archive = coordinator.persistentStores[1]
  /// let note = Note(context: context)
  /// context.assign(note, to: archive)
  /// try context.save()  // the note is written to `archive`, not to the first store holding Note
  /// ```
  ///
  /// Needed only when several of the coordinator's stores hold the object's entity: without it a save puts
  /// a new object in the first store (in the order they were added) whose configuration has its entity.
  /// The choice holds until the object is saved to the store (from this context or, for a child context's
  /// object, from the root context it reaches), and fetches with ``NSFetchRequest/affectedStores`` see the
  /// unsaved object as in that store. Assigning again before the save changes the store. An object that
  /// already has a permanent ID (``obtainPermanentIDs(for:)``) keeps its store.
  ///
  /// As in Core Data, where these raise an exception, the engine stops the program, naming the misuse, when
  /// `object` is not a managed object inserted in this context and not yet saved, when `store` is not one of
  /// the coordinator's stores or cannot hold the object's entity, or when the object's permanent ID is in
  /// another store.
  ///
  /// - Parameters:
  ///   - object: an `NSManagedObject` inserted in this context.
  ///   - store: one of ``persistentStoreCoordinator``'s stores.
  public func assign(_ object: Any, to store: NSPersistentStore) {
    guard let object = object as? NSManagedObject else {
      programmerError("ObjectGraph: assign(_:to:) was given \(type(of: object)), not an NSManagedObject.")
    }
    isolated("assign(_:to:)") { _ in
      requireCorrectUse(
        object.managedObjectContext === self && object.isInserted,
        "ObjectGraph: assign(_:to:) was given \(object.entity.entityName) \(object.objectID), which is not an object inserted in this context and not yet saved. Only new objects are assigned a store; a saved object stays in its store."
      )
      guard let coordinator = persistentStoreCoordinator else {
        programmerError(
          "ObjectGraph: assign(_:to:): the context has no persistent store coordinator, so \(store) cannot be one of its stores.")
      }
      do {
        try coordinator.assign(object.objectID, to: store)
      } catch {
        programmerError("ObjectGraph: \((error as? ObjectGraphError)?.message ?? "\(error)")")
      }
    }
  }
}
