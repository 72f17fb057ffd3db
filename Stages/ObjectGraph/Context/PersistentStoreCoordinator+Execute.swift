import Foundation

/// What ``NSPersistentStoreCoordinator/execute(_:with:)`` needs of a fetch request of any result type.
protocol UntypedFetching {
  /// The request's results in `context`, as `fetch(_:) -> [Any]` returns them.
  func untypedResults(in context: NSManagedObjectContext) throws -> [Any]
}

extension NSFetchRequest: UntypedFetching {
  func untypedResults(in context: NSManagedObjectContext) throws -> [Any] {
    try context.isolated("execute(_:with:)") { confined in
      switch try context.fetchResults(self, confined) {
      case .objects(let objects): return objects
      case .objectIDs(let ids): return ids
      case .count(let count): return [count]
      case .dictionaries(let rows): return rows.bridgedDictionaries()
      }
    }
  }
}

extension NSPersistentStoreCoordinator {
  /// Runs `request` against the coordinator's stores for `context` (Core Data's `execute(_:with:)`), on the
  /// context's queue.
  ///
  /// - A fetch request returns what the context's `fetch(_:)` returns for it: an array of managed objects (in
  ///   `context`), object IDs, dictionaries, or one count.
  /// - An ``NSSaveChangesRequest`` saves `context` and returns an empty array. The engine saves a context's
  ///   changes whole, so the request must name every object the context has inserted, updated and deleted, and
  ///   only objects of `context`; one that names a part of them is refused, and nothing is saved.
  /// - A batch request, a history request or an asynchronous fetch returns its ``NSPersistentStoreResult``,
  ///   as the context's `execute(_:)` does.
  ///
  /// - Throws: what the context's fetch, save or execute throws; ``ObjectGraphError`` with
  ///   ``NSPersistentStoreOperationError`` when `context` uses another coordinator, or a save request does not
  ///   name the context's changes exactly; ``NSPersistentStoreUnsupportedRequestTypeError`` for a request of
  ///   another kind.
  public func execute(_ request: any NSPersistentStoreRequest, with context: NSManagedObjectContext) throws -> Any {
    guard context.persistentStoreCoordinator === self else {
      throw ObjectGraphError(
        .persistentStoreOperation,
        "execute(_:with:) was given a context of another coordinator (or of none). Pass a context whose persistentStoreCoordinator is this coordinator."
      )
    }
    switch request {
    case let save as NSSaveChangesRequest:
      try saveChanges(save, in: context)
      return [Any]()
    case let fetch as any UntypedFetching:
      return try fetch.untypedResults(in: context)
    case is NSBatchInsertRequest, is NSBatchUpdateRequest, is NSBatchDeleteRequest, is NSPersistentHistoryChangeRequest,
      is any AsynchronousFetchStarting:
      return try context.execute(request)
    default:
      throw ObjectGraphError(
        .persistentStoreUnsupportedRequestType,
        "execute(_:with:) runs fetch, save-changes, batch, history and asynchronous fetch requests; \(type(of: request)) is none of them.")
    }
  }

  /// Saves `context` when `request` names exactly its changes.
  private func saveChanges(_ request: NSSaveChangesRequest, in context: NSManagedObjectContext) throws {
    try context.performAndWait {
      let named = (request.insertedObjects ?? []).union(request.updatedObjects ?? []).union(request.deletedObjects ?? [])
      let pending = context.insertedObjects.union(context.updatedObjects).union(context.deletedObjects)
      guard named == pending else {
        throw ObjectGraphError(
          .persistentStoreOperation,
          "The NSSaveChangesRequest names \(named.count) object(s), but the context has \(pending.count) change(s) (\(named.subtracting(pending).count) named are not among them, \(pending.subtracting(named).count) are not named). ObjectGraph saves a context's changes whole: name them all (insertedObjects, updatedObjects, deletedObjects), or call the context's save(). Nothing was saved."
        )
      }
      for object in request.lockedObjects ?? [] { context.detectConflicts(for: object) }
      try context.save()
    }
  }
}
