import Foundation

extension ManagedObjectContext {
  /// Runs a request straight against the persistent store(s): a ``BatchInsertRequest``,
  /// ``BatchUpdateRequest`` or ``BatchDeleteRequest`` (Core Data's `execute(_:)`).
  ///
  /// The rows change in SQL; no object is made, and no context (this one included) sees the change until
  /// it fetches again or merges the IDs with ``mergeChanges(fromRemoteContextSave:into:)``. A child
  /// context's request goes to its coordinator too, past its parents.
  ///
  /// - Returns: a ``BatchInsertResult``, ``BatchUpdateResult`` or ``BatchDeleteResult``.
  /// - Throws: ``ObjectGraphError/Code/unknownKey`` for an unknown entity or key,
  ///   ``ObjectGraphError/Code/invalidValue`` for a value of the wrong type or a relationship given as a
  ///   value, ``ObjectGraphError/Code/validationMissingMandatoryProperty`` for a required attribute left
  ///   without a value, 133021 for a uniqueness constraint broken by an insert, 1600 when a Deny rule
  ///   refuses a delete, ``ObjectGraphError/Code/unsupportedFeature`` for another kind of request. Nothing
  ///   is changed when it throws.
  public func execute(_ request: any PersistentStoreRequest) throws -> any PersistentStoreResult {
    try isolated("execute(_:)") { _ in
      guard let coordinator = persistentStoreCoordinator, coordinator.canServeRequests else {
        throw ObjectGraphError(
          .noPersistentStore,
          "Context \(displayName) has no coordinator with a store, so a batch request has nowhere to go. Add a store first.")
      }
      switch request {
      case let insert as BatchInsertRequest: return try executeInsert(insert, coordinator)
      case let update as BatchUpdateRequest: return try executeUpdate(update, coordinator)
      case let delete as BatchDeleteRequest: return try executeDelete(delete, coordinator)
      case let history as PersistentHistoryChangeRequest: return try executeHistory(history, coordinator)
      default:
        throw ObjectGraphError(
          .unsupportedFeature,
          "execute(_:) runs BatchInsertRequest, BatchUpdateRequest and BatchDeleteRequest; \(type(of: request)) is not one. Fetch requests go to fetch(_:)."
        )
      }
    }
  }

  private func executeInsert(_ request: BatchInsertRequest, _ coordinator: PersistentStoreCoordinator) throws
    -> BatchInsertResult
  {
    let entity = try entity(named: request.entityName)
    guard !entity.isAbstract else {
      throw ObjectGraphError(.invalidValue, "Entity \(entity.name) is abstract: rows of it cannot be inserted. Insert rows of a subentity.")
    }
    let reader = BatchRowReader(entity: entity)
    var rows: [[StoredValue]] = []
    if let objects = request.objectsToInsert {
      rows.reserveCapacity(objects.count)
      for dictionary in objects { rows.append(try reader.row(dictionary, number: rows.count)) }
    } else if let handler = request.dictionaryHandler {
      while true {
        var dictionary: [String: Any] = [:]
        if handler(&dictionary) { break }
        rows.append(try reader.row(dictionary, number: rows.count))
      }
    }
    var ids: [ManagedObjectID] = []
    if !rows.isEmpty {
      let (author, contextName) = settings.withLock { ($0.transactionAuthor, $0.name) }
      if let inserted = try coordinator.batchInsert(
        entity, rows: rows, makeIDs: request.resultType == .objectIDs, author: author, contextName: contextName)
      {
        ids = inserted
      } else {
        // Uniqueness constraints: the rows go the way a save's inserts go, which checks them.
        var save = StoreSaveRequest(mergePolicy: .error)
        (save.author, save.contextName) = (author, contextName)
        save.inserts = rows.map { .init(temporaryID: .temporary(for: entity), entity: entity, values: $0) }
        ids = try coordinator.save(save).insertedIDs
      }
    }
    switch request.resultType {
    case .statusOnly: return BatchInsertResult(resultType: .statusOnly, result: true)
    case .count: return BatchInsertResult(resultType: .count, result: rows.count)
    case .objectIDs: return BatchInsertResult(resultType: .objectIDs, result: ids)
    }
  }

  private func executeUpdate(_ request: BatchUpdateRequest, _ coordinator: PersistentStoreCoordinator) throws
    -> BatchUpdateResult
  {
    let entity = try entity(named: request.entityName)
    guard let properties = request.propertiesToUpdate, !properties.isEmpty else {
      throw ObjectGraphError(.invalidValue, "The batch update of \(entity.name) has no propertiesToUpdate: say which attributes to set.")
    }
    let values = try Self.updateValues(properties, entity: entity)
    var changes: [Int: StoredValue] = [:]
    for key in properties.keys {
      guard let index = entity.layout.index(of: key) else { continue }
      let slot = entity.layout.slots[index]
      if values[index] == nil && !slot.isOptional {
        throw ObjectGraphError(
          .validationMissingMandatoryProperty,
          "The batch update would clear \(entity.name).\(key), which is required. Nothing was changed.")
      }
      changes[index] = values[index]
    }
    var batch = StoreBatchRequest(
      entity: entity, predicate: request.predicate?.resolvedNode, ids: nil, includesSubentities: request.includesSubentities,
      action: .update(changes))
    (batch.author, batch.contextName) = settings.withLock { ($0.transactionAuthor, $0.name) }
    let result = try coordinator.executeBatch(batch)
    switch request.resultType {
    case .statusOnlyResultType: return BatchUpdateResult(resultType: .statusOnlyResultType, result: true)
    case .updatedObjectIDsResultType: return BatchUpdateResult(resultType: .updatedObjectIDsResultType, result: result.ids)
    case .updatedObjectsCountResultType: return BatchUpdateResult(resultType: .updatedObjectsCountResultType, result: result.ids.count)
    }
  }

  private func executeDelete(_ request: BatchDeleteRequest, _ coordinator: PersistentStoreCoordinator) throws
    -> BatchDeleteResult
  {
    if let ids = request.objectIDs {
      guard !ids.isEmpty else { return BatchDeleteResult(resultType: request.resultType, result: Self.emptyResult(request.resultType)) }
      if let temporary = ids.first(where: \.isTemporaryID) {
        throw ObjectGraphError(
          .invalidValue,
          "A batch delete was given the temporary ID \(temporary): that object is not in the store yet. Delete it with delete(_:) instead.")
      }
      let entity = try entity(named: request.entityName)
      let root = entity.rootEntity
      if let other = ids.first(where: { $0.entity.rootEntity !== root }) {
        throw ObjectGraphError(
          .invalidValue,
          "A batch delete's IDs must be of one entity; \(other) is a \(other.entityName), the first is a \(entity.name). Make one request per entity."
        )
      }
    }
    let entity = try entity(named: request.entityName)
    var batch = StoreBatchRequest(
      entity: request.objectIDs == nil ? entity : entity.rootEntity, predicate: request.predicate?.resolvedNode, ids: request.objectIDs,
      includesSubentities: request.includesSubentities, action: .delete)
    (batch.author, batch.contextName) = settings.withLock { ($0.transactionAuthor, $0.name) }
    let result = try coordinator.executeBatch(batch)
    switch request.resultType {
    case .resultTypeStatusOnly: return BatchDeleteResult(resultType: .resultTypeStatusOnly, result: true)
    case .resultTypeObjectIDs: return BatchDeleteResult(resultType: .resultTypeObjectIDs, result: result.ids)
    case .resultTypeCount: return BatchDeleteResult(resultType: .resultTypeCount, result: result.ids.count)
    }
  }

  private static func emptyResult(_ type: BatchDeleteRequestResultType) -> Any {
    switch type {
    case .resultTypeStatusOnly: true
    case .resultTypeObjectIDs: [ManagedObjectID]()
    case .resultTypeCount: 0
    }
  }

  /// A batch update's values in slot order (`nil` for the slots it does not set), each checked against its
  /// attribute.
  private static func updateValues(_ dictionary: [String: Any], entity: EntityDescription) throws -> [StoredValue] {
    var values = [StoredValue](repeating: nil, count: entity.layout.slots.count)
    for (key, value) in dictionary {
      guard let index = entity.layout.index(of: key) else {
        throw ObjectGraphError(
          .unknownKey,
          "The batch update names '\(key)', which entity \(entity.name) does not have. Its attributes: \(entity.layout.slots.filter { $0.attribute != nil }.map(\.name).joined(separator: ", "))."
        )
      }
      let slot = entity.layout.slots[index]
      guard let attribute = slot.attribute, !slot.isTransient else {
        throw ObjectGraphError(
          .invalidValue,
          "\(entity.name).\(key) is \(slot.isTransient ? "transient" : "a relationship"): a batch request sets stored attributes only (as in Core Data). Set relationships on objects instead."
        )
      }
      if let reason = attribute.unsupportedReason {
        throw ObjectGraphError(.unsupportedFeature, "\(entity.name).\(key) \(reason); a batch request cannot set it.")
      }
      if value is NSNull || { if case Optional<Any>.none = value { true } else { false } }() {
        values[index] = nil
        continue
      }
      if attribute.attributeType == .transformable {
        let stored = attribute.transformedSlotValue(value)
        if case .boxed(let box)? = stored, let refused = box.value as? UntransformableValue {
          throw ObjectGraphError(
            .validationValue, "The batch update: \(refused.error.message) Nothing was changed.", underlyingError: refused.error)
        }
        values[index] = stored
        continue
      }
      guard let stored = ManagedObject.coerce(value, to: attribute.attributeType) else {
        throw ObjectGraphError(
          .invalidValue,
          "The batch update gives \(entity.name).\(key) a \(type(of: value)), but the attribute holds \(attribute.attributeType.swiftTypeName). Nothing was changed."
        )
      }
      values[index] = stored
    }
    return values
  }

  /// Merges changes made elsewhere (a batch request's IDs, another process's, a did-save notification's
  /// user info) into each context, as if they had been saved by a context of their coordinator (Core
  /// Data's `mergeChanges(fromRemoteContextSave:into:)`).
  ///
  /// `changes` holds sets or arrays of ``ManagedObjectID``s (or of objects) under the keys of
  /// ``NotificationKey``: `insertedObjectIDs`/`insertedObjects`, `updatedObjectIDs`/`updatedObjects`,
  /// `deletedObjectIDs`/`deletedObjects`. Each context merges on its own queue; the call returns when all
  /// have.
  public static func mergeChanges(fromRemoteContextSave changes: [String: Any], into contexts: [ManagedObjectContext]) {
    func ids(_ idKey: NotificationKey, _ objectKey: NotificationKey) -> Set<ManagedObjectID> {
      var result: Set<ManagedObjectID> = []
      for key in [idKey.rawValue, objectKey.rawValue] {
        switch changes[key] {
        case let set as Set<ManagedObjectID>: result.formUnion(set)
        case let array as [ManagedObjectID]: result.formUnion(array)
        case let objects as Set<ManagedObject>: result.formUnion(objects.map(\.objectID))
        case let objects as [ManagedObject]: result.formUnion(objects.map(\.objectID))
        default: break
        }
      }
      return result
    }
    let saved = SavedObjectIDs(
      inserted: ids(.insertedObjectIDs, .insertedObjects), updated: ids(.updatedObjectIDs, .updatedObjects),
      deleted: ids(.deletedObjectIDs, .deletedObjects))
    for context in contexts {
      context.performAndWait { context.mergeChanges(fromContextDidSave: saved) }
    }
  }
}
