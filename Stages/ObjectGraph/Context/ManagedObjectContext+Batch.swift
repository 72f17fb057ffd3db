import Foundation

extension NSManagedObjectContext {
  /// Runs a request straight against the persistent store(s): an ``NSBatchInsertRequest``,
  /// ``NSBatchUpdateRequest``, ``NSBatchDeleteRequest`` or ``NSPersistentHistoryChangeRequest`` (Core Data's
  /// `execute(_:)`), or starts an ``NSAsynchronousFetchRequest``, returning its ``NSAsynchronousFetchResult``
  /// at once (the fetch runs on the context's queue after the work queued there; see the request).
  ///
  /// The rows change in SQL; no object is made, and no context (this one included) sees the change until
  /// it fetches again or merges the IDs with ``mergeChanges(fromRemoteContextSave:into:)``. A child
  /// context's request goes to its coordinator too, past its parents.
  ///
  /// - Returns: an ``NSBatchInsertResult``, ``NSBatchUpdateResult``, ``NSBatchDeleteResult``,
  ///   ``NSPersistentHistoryResult`` or ``NSAsynchronousFetchResult``.
  /// - Throws: ``ObjectGraphUnknownKeyError`` for an unknown entity or key,
  ///   ``ObjectGraphInvalidValueError`` for a value of the wrong type or a relationship given as a
  ///   value, ``NSValidationMissingMandatoryPropertyError`` for a required attribute left
  ///   without a value, 133021 for a uniqueness constraint broken by an insert, 1600 when a Deny rule
  ///   refuses a delete, ``ObjectGraphUnsupportedFeatureError`` for another kind of request. Nothing
  ///   is changed when it throws.
  @discardableResult
  public func execute(_ request: any NSPersistentStoreRequest) throws -> any NSPersistentStoreResult {
    try isolated("execute(_:)") { _ in
      guard let coordinator = persistentStoreCoordinator, coordinator.canServeRequests else {
        throw ObjectGraphError(
          .noPersistentStore,
          "Context \(displayName) has no coordinator with a store, so a batch request has nowhere to go. Add a store first.")
      }
      switch request {
      case let insert as NSBatchInsertRequest: return try executeInsert(insert, coordinator)
      case let update as NSBatchUpdateRequest: return try executeUpdate(update, coordinator)
      case let delete as NSBatchDeleteRequest: return try executeDelete(delete, coordinator)
      case let history as NSPersistentHistoryChangeRequest: return try executeHistory(history, coordinator)
      case let asynchronous as any AsynchronousFetchStarting: return asynchronous.start(in: self)
      default:
        throw ObjectGraphError(
          .unsupportedFeature,
          "execute(_:) runs NSBatchInsertRequest, NSBatchUpdateRequest, NSBatchDeleteRequest, NSPersistentHistoryChangeRequest and NSAsynchronousFetchRequest; \(type(of: request)) is not one. Fetch requests go to fetch(_:)."
        )
      }
    }
  }

  private func executeInsert(_ request: NSBatchInsertRequest, _ coordinator: NSPersistentStoreCoordinator) throws
    -> NSBatchInsertResult
  {
    let entity = try entity(named: request.entityName)
    guard !entity.isAbstract else {
      throw ObjectGraphError(
        .invalidValue, "Entity \(entity.entityName) is abstract: rows of it cannot be inserted. Insert rows of a subentity.")
    }
    let reader = BatchRowReader(entity: entity)
    var rows: [[StoredValue]] = []
    if let objects = request.objectsToInsert {
      rows.reserveCapacity(objects.count)
      for dictionary in objects { rows.append(try reader.row(dictionary, number: rows.count)) }
    } else if let handler = request.dictionaryHandler {
      while true {
        let dictionary = NSMutableDictionary()
        if handler(dictionary) { break }
        var row: [String: Any] = [:]
        for (key, value) in dictionary {
          guard let name = key as? String else {
            throw ObjectGraphError(
              .invalidValue,
              "Row \(rows.count) of the batch insert into \(entity.entityName) has the key \(key) (\(type(of: key))): "
                + "keys are attribute names, strings.")
          }
          row[name] = value
        }
        rows.append(try reader.row(row, number: rows.count))
      }
    } else if let handler = request.managedObjectHandler {
      while true {
        let object = entity.managedObjectClass.init(entity: entity, insertInto: nil)
        if handler(object) { break }
        rows.append(try reader.row(try Self.batchRow(of: object, number: rows.count), number: rows.count))
      }
    }
    var ids: [NSManagedObjectID] = []
    if !rows.isEmpty {
      let (author, contextName) = settings.withLock { ($0.transactionAuthor, $0.name) }
      if let inserted = try coordinator.batchInsert(
        entity, rows: rows, makeIDs: request.resultType == .objectIDs, author: author, contextName: contextName,
        affectedStores: request.storeIdentities)
      {
        ids = inserted
      } else {
        // Uniqueness constraints: the rows go the way a save's inserts go, which checks them.
        var save = StoreSaveRequest(mergePolicy: .errorMergePolicyType)
        (save.author, save.contextName) = (author, contextName)
        save.inserts = rows.map { .init(temporaryID: .temporary(for: entity), entity: entity, values: $0) }
        ids = try coordinator.save(save).insertedIDs
      }
    }
    switch request.resultType {
    case .statusOnly: return NSBatchInsertResult(resultType: .statusOnly, result: true)
    case .count: return NSBatchInsertResult(resultType: .count, result: rows.count)
    case .objectIDs: return NSBatchInsertResult(resultType: .objectIDs, result: ids)
    }
  }

  /// The attribute values a batch insert's managed-object handler set, as the dictionary of a row.
  private static func batchRow(of object: NSManagedObject, number: Int) throws -> [String: Any] {
    var row: [String: Any] = [:]
    for slot in object.layout.slots where slot.compositeOwner == nil && !slot.isTransient {
      switch slot.kind {
      case .attribute:
        if let value = object.value(forKey: slot.name) { row[slot.name] = value }
      case .toOne, .toMany:
        let stored = object.values[slot.index]
        guard slot.isToMany ? stored?.memberCount ?? 0 == 0 : stored.objectID == nil else {
          throw ObjectGraphError(
            .invalidValue,
            "Row \(number) of the batch insert into \(object.entity.entityName) sets relationship \(slot.name): a batch insert sets attributes only. Nothing was inserted. Set the relationship on the objects after fetching them."
          )
        }
      }
    }
    return row
  }

  private func executeUpdate(_ request: NSBatchUpdateRequest, _ coordinator: NSPersistentStoreCoordinator) throws
    -> NSBatchUpdateResult
  {
    let entity = try entity(named: request.entityName)
    guard let properties = request.propertiesToUpdate, !properties.isEmpty else {
      throw ObjectGraphError(
        .invalidValue, "The batch update of \(entity.entityName) has no propertiesToUpdate: say which attributes to set.")
    }
    // Values are set as they are; an expression (`rating + 1`, another attribute's key path) is computed for
    // each row in SQL, from the row's values before the update, as Core Data's SQLite store computes it.
    var constants: [String: Any] = [:]
    var computed: [Int: (expression: PredicateExpression, type: NSAttributeType)] = [:]
    let reader = BatchRowReader(entity: entity)
    for (key, value) in properties {
      guard let expression = value as? NSExpression else {
        constants[key] = value
        continue
      }
      if expression.expressionType == .constantValue {
        constants[key] = expression.constantValue ?? NSNull()
        continue
      }
      let slot = try reader.computedSlot(key)
      computed[slot.index] = (try expression.predicateExpression(objects: PredicateObjectCapture()), slot.type)
    }
    let changes = constants.isEmpty ? [:] : try reader.changes(constants)
    var batch = StoreBatchRequest(
      entity: entity, predicate: try request.predicate.map { try FetchPredicate($0) }?.resolvedNode, ids: nil,
      includesSubentities: request.includesSubentities,
      action: .update(changes))
    batch.computed = computed.mapValues(\.expression)
    batch.needsIDs = request.resultType == .updatedObjectIDsResultType
    batch.affectedStores = request.storeIdentities
    (batch.author, batch.contextName) = settings.withLock { ($0.transactionAuthor, $0.name) }
    let result = try coordinator.executeBatch(batch)
    switch request.resultType {
    case .statusOnlyResultType: return NSBatchUpdateResult(resultType: .statusOnlyResultType, result: true)
    case .updatedObjectIDsResultType: return NSBatchUpdateResult(resultType: .updatedObjectIDsResultType, result: result.ids)
    case .updatedObjectsCountResultType: return NSBatchUpdateResult(resultType: .updatedObjectsCountResultType, result: result.count)
    }
  }

  private func executeDelete(_ request: NSBatchDeleteRequest, _ coordinator: NSPersistentStoreCoordinator) throws
    -> NSBatchDeleteResult
  {
    if let ids = request.objectIDs, ids.isEmpty {
      return NSBatchDeleteResult(resultType: request.resultType, result: Self.emptyResult(request.resultType))
    }
    let entity = try entity(named: request.entityName)
    if let ids = request.objectIDs {
      if let temporary = ids.first(where: \.isTemporaryID) {
        throw ObjectGraphError(
          .invalidValue,
          "A batch delete was given the temporary ID \(temporary): that object is not in the store yet. Delete it with delete(_:) instead.")
      }
      if let other = ids.first(where: { $0.entity.rootEntity !== entity.rootEntity }) {
        throw ObjectGraphError(
          .invalidValue,
          "A batch delete's IDs must be of one entity; \(other) is a \(other.entityName), the first is a \(entity.entityName). Make one request per entity."
        )
      }
    }
    var batch = StoreBatchRequest(
      entity: request.objectIDs == nil ? entity : entity.rootEntity, predicate: try request.predicateResult.get()?.resolvedNode,
      ids: request.objectIDs,
      includesSubentities: request.includesSubentities, action: .delete)
    batch.needsIDs = request.resultType == .resultTypeObjectIDs
    batch.affectedStores = request.storeIdentities
    (batch.author, batch.contextName) = settings.withLock { ($0.transactionAuthor, $0.name) }
    let result = try coordinator.executeBatch(batch)
    switch request.resultType {
    case .resultTypeStatusOnly: return NSBatchDeleteResult(resultType: .resultTypeStatusOnly, result: true)
    case .resultTypeObjectIDs: return NSBatchDeleteResult(resultType: .resultTypeObjectIDs, result: result.ids)
    case .resultTypeCount: return NSBatchDeleteResult(resultType: .resultTypeCount, result: result.count)
    }
  }

  private static func emptyResult(_ type: NSBatchDeleteRequestResultType) -> Any {
    switch type {
    case .resultTypeStatusOnly: true
    case .resultTypeObjectIDs: [NSManagedObjectID]()
    case .resultTypeCount: 0
    }
  }

  /// Merges changes made elsewhere (a batch request's IDs, another process's, a did-save notification's
  /// user info) into each context, as if they had been saved by a context of their coordinator (Core
  /// Data's `mergeChanges(fromRemoteContextSave:into:)`).
  ///
  /// `changes` holds sets or arrays of ``NSManagedObjectID``s (or of objects) under the keys of
  /// ``NotificationKey``: `insertedObjectIDs`/`insertedObjects`, `updatedObjectIDs`/`updatedObjects`,
  /// `deletedObjectIDs`/`deletedObjects`. Each context merges on its own queue; the call returns when all
  /// have.
  public static func mergeChanges(
    fromRemoteContextSave changes: [AnyHashable: Any], into contexts: [NSManagedObjectContext]
  ) {
    var byName: [String: Any] = [:]
    for (key, value) in changes { if let key = key as? String { byName[key] = value } }
    let saved = SavedObjectIDs(userInfo: byName)
    for context in contexts {
      context.performAndWait { context.mergeChanges(fromContextDidSave: saved) }
    }
  }

}
