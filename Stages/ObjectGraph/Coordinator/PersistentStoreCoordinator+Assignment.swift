import Foundation

/// Which store an inserted object goes to at its save: the store it was assigned to with
/// `NSManagedObjectContext.assign(_:to:)`, else the first of the coordinator's stores that holds its entity.
extension NSPersistentStoreCoordinator {
  /// Records that the object with temporary ID `id` goes to `store` at its save.
  ///
  /// - Throws: ``NSPersistentStoreOperationError`` when `store` is not one of this coordinator's stores or
  ///   does not hold the object's entity (its configuration leaves the entity out), and when the object
  ///   already has a permanent ID in another store (``NSManagedObjectContext/obtainPermanentIDs(for:)``).
  func assign(_ id: NSManagedObjectID, to store: NSPersistentStore) throws {
    guard persistentStores.contains(where: { $0 === store }) else {
      throw ObjectGraphError(
        .persistentStoreOperation,
        "assign(_:to:) was given \(store), which is not one of the coordinator's stores. Pass a store from persistentStoreCoordinator.persistentStores."
      )
    }
    guard store.holds(id.entity) else {
      throw ObjectGraphError(
        .persistentStoreOperation,
        "assign(_:to:): \(store) cannot hold entity \(id.entity.entityName): its configuration \(store.configurationName.map { "'\($0)'" } ?? "") leaves the entity out. Assign the object to a store whose configuration has the entity."
      )
    }
    guard id.isTemporaryID else {
      guard self.store(for: id) === store else {
        throw ObjectGraphError(
          .persistentStoreOperation,
          "assign(_:to:): the \(id.entity.entityName) object already has a permanent ID in another store (obtainPermanentIDs(for:)), which fixes its store. Assign objects before obtaining their permanent IDs."
        )
      }
      return
    }
    assignments.withLock { $0[id] = store }
  }

  /// The store the object with temporary ID `id` was assigned to, if any (whether or not it is still one of
  /// the coordinator's stores).
  func assignedStore(of id: NSManagedObjectID) -> NSPersistentStore? {
    assignments.withLock { $0.isEmpty ? nil : $0[id] }
  }

  /// Whether any unsaved object has been assigned a store.
  var hasAssignments: Bool { assignments.withLock { !$0.isEmpty } }

  /// Forgets the assignments of objects that are saved now, or that have obtained permanent IDs.
  func forgetAssignments<IDs: Sequence<NSManagedObjectID>>(of ids: IDs) {
    assignments.withLock { table in
      guard !table.isEmpty else { return }
      for id in ids { table[id] = nil }
    }
  }

  /// The store a new object (temporary ID `id`, or a permanent ID it obtained before its save) of `entity`
  /// goes to: the store of its permanent ID, else the store it was assigned to, else the first that holds
  /// its entity.
  ///
  /// - Throws: ``NSPersistentStoreOperationError`` when the assigned store was removed from the coordinator
  ///   since; ``ObjectGraphNoPersistentStoreError`` when no store holds the entity.
  func store(forInserting id: NSManagedObjectID, entity: NSEntityDescription) throws -> NSPersistentStore {
    if !id.isTemporaryID, let store = store(for: id) { return store }
    if let assigned = assignedStore(of: id) {
      guard persistentStores.contains(where: { $0 === assigned }) else {
        throw ObjectGraphError(
          .persistentStoreOperation,
          "A \(entity.entityName) object was assigned to \(assigned) with assign(_:to:), and that store was removed from the coordinator before the object was saved. Assign the object to one of the coordinator's stores again, or delete it."
        )
      }
      return assigned
    }
    return try store(forInserting: entity)
  }
}
