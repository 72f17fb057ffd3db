import Foundation

extension NSPersistentStoreCoordinator {
  /// Inserts rows of one entity into the first store that holds it (of `affectedStores`, when given), without
  /// temporary IDs or objects; returns `nil` when the entity has uniqueness constraints there (the caller then
  /// saves the rows as a save would, which checks them, into the first store holding the entity).
  func batchInsert(
    _ entity: NSEntityDescription, rows: [[StoredValue]], makeIDs: Bool, author: String?, contextName: String?,
    affectedStores: [ObjectIdentifier]? = nil
  ) throws -> [NSManagedObjectID]? {
    try serialized {
      let holding = persistentStores.filter { $0.holds(entity) }
      guard let store = try affected(holding, by: affectedStores).first else {
        throw ObjectGraphError(
          .noPersistentStore,
          "No store of the coordinator\(affectedStores == nil ? "" : " the request names") holds entity \(entity.entityName); nothing was inserted."
        )
      }
      try store.refuseBatchIfAtomic()
      if store.hasUniquenessConstraints(entity) {
        guard store === holding.first else {
          throw ObjectGraphError(
            .persistentStoreOperation,
            "\(entity.entityName) has uniqueness constraints, whose rows a batch insert checks as a save does, and a save puts them in the first store holding the entity, not \(store). Nothing was inserted: leave affectedStores nil, or put \(entity.entityName) in one store."
          )
        }
        return nil
      }
      return try store.batchInsert(entity, rows: rows, makeIDs: makeIDs, author: author, contextName: contextName)
    }
  }

  /// Runs a batch update or delete on every store that holds the entity (for IDs, on the store of each).
  func executeBatch(_ request: StoreBatchRequest) throws -> StoreBatchResult {
    try serialized {
      var result = StoreBatchResult(ids: [])
      if let named = request.ids {
        let byStore = Dictionary(grouping: named) { $0.storeAndTable?.store ?? -1 }
        for store in try affected(persistentStores, by: request.affectedStores) {
          guard let part = byStore[store.number] else { continue }
          var single = StoreBatchRequest(
            entity: request.entity, predicate: nil, ids: part, includesSubentities: request.includesSubentities,
            action: request.action)
          single.author = request.author
          single.contextName = request.contextName
          single.needsIDs = request.needsIDs
          result.append(try store.executeBatch(single))
        }
        return result
      }
      let holding = try affected(persistentStores.filter { $0.holds(request.entity) }, by: request.affectedStores)
      guard !holding.isEmpty else {
        throw ObjectGraphError(
          .noPersistentStore,
          "No store of the coordinator holds entity \(request.entity.entityName), so a batch request has nothing to change.")
      }
      for store in holding { result.append(try store.executeBatch(request)) }
      return result
    }
  }
}
