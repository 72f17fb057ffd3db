import Foundation

/// What the coordinator does for query generations (see ``QueryGeneration``): making one of its stores as
/// they are now, and the stores a read in one covers.
extension NSPersistentStoreCoordinator {
  /// A generation of the stores as they are now: for each SQLite store in WAL mode, a snapshot taken with the
  /// coordinator's lock held (so no save of this coordinator is half in it).
  ///
  /// - Throws: ``NSPersistentStoreOperationError`` when a snapshot cannot be opened (the file cannot be read).
  func makeQueryGeneration() throws -> QueryGeneration {
    try serialized { try QueryGeneration(coordinator: self, stores: persistentStores) }
  }

  /// The stores a read covers: in a generation, the stores it was made with that the coordinator still has;
  /// otherwise every store.
  func stores(in generation: QueryGeneration?) -> [NSPersistentStore] {
    guard let generation else { return persistentStores }
    return persistentStores.filter { generation.covers($0) }
  }

  /// Ends the snapshots that live generations hold of `store`, which leaves the coordinator.
  func endSnapshots(of store: NSPersistentStore) {
    for generation in QueryGeneration.alive(of: self) { generation.storeRemoved(store) }
  }
}
