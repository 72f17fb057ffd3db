import Foundation

extension NSManagedObjectContext {
  /// Fetches what a request describes: objects, IDs, dictionaries or a count, by its
  /// ``NSFetchRequest/resultType``.
  ///
  /// For objects (the usual case): the predicate and sort run in SQLite. With
  /// ``NSFetchRequest/includesPendingChanges`` (the default), the context's unsaved changes count too:
  /// matching inserted objects are added, deleted ones removed, and changed ones re-checked against their
  /// current values (in memory, with the same semantics).
  /// Each object is unique in the context: fetching one you already hold returns the same instance, with
  /// its unsaved changes intact.
  ///
  /// - Throws: ``ObjectGraphUnknownKeyError`` for an unknown entity or key (naming both),
  ///   ``ObjectGraphNoPersistentStoreError`` without a coordinator or store,
  ///   ``ObjectGraphInvalidValueError`` when the entity's objects (or the result type's values) are
  ///   not `Result`s.
  ///
  /// IDs (``NSFetchRequestResultType/managedObjectIDResultType``) honour pending changes as objects do and
  /// make no object when nothing is pending; a count is ``count(for:)``'s; dictionaries are read from the
  /// store as it is (see ``NSFetchRequestResultType/dictionaryResultType``).
  public func fetch<Result: NSFetchRequestResult>(_ request: NSFetchRequest<Result>) throws -> [Result] {
    try isolated("fetch(_:)") { confined in
      switch try fetchResults(request, confined) {
      case .objects(let objects): return try typedObjects(objects, of: request)
      case .objectIDs(let ids): return try results(ids, of: request)
      case .count(let count): return try results([count], of: request)
      case .dictionaries(let rows):
        if Result.self == NSDictionary.self { return try results(rows.bridgedDictionaries(), of: request) }
        return try results(rows.dictionaries(), of: request)
      }
    }
  }

  /// Fetches what a request of `NSFetchRequest<NSFetchRequestResult>` describes, by its
  /// ``NSFetchRequest/resultType`` (managed objects unless it is set otherwise), as Core Data's
  /// `fetch(_:) -> [Any]` does: managed objects, ``NSManagedObjectID``s, `NSDictionary`s (which cast
  /// `as? [[String: Any]]` too) or one `NSNumber`, the count. It works as the typed `fetch(_:)`
  /// does for the typed requests.
  ///
  /// - Throws: what the typed `fetch(_:)` throws.
  public func fetch(_ request: NSFetchRequest<any NSFetchRequestResult>) throws -> [Any] {
    try isolated("fetch(_:)") { confined in
      switch try fetchResults(request, confined) {
      case .objects(let objects): return objects
      case .objectIDs(let ids): return ids
      case .count(let count): return [count]
      case .dictionaries(let rows): return rows.bridgedDictionaries()
      }
    }
  }

  /// What a fetch returns, by the request's result type, before it is handed out as the request's type.
  enum FetchResults {
    case objects([NSManagedObject])
    case objectIDs([NSManagedObjectID])
    /// The count, as the one `NSNumber` Core Data returns for it.
    case count(NSNumber)
    case dictionaries(StoreDictionaryRows)
  }

  /// Runs a request for what its ``NSFetchRequest/resultType`` asks (the one place it is decided).
  func fetchResults<Result>(_ request: NSFetchRequest<Result>, _ confined: Confined) throws -> FetchResults {
    switch request.resultType {
    case .managedObjectResultType: .objects(try fetchObjects(request, confined))
    case .managedObjectIDResultType: .objectIDs(try fetchObjectIDs(request, confined))
    case .countResultType: .count(NSNumber(value: try countObjects(request, confined)))
    case .dictionaryResultType: .dictionaries(try fetchDictionaries(request))
    default: throw unknownResultType(request)
    }
  }

  /// The objects of a managed-object fetch, as `Result`s.
  private func typedObjects<Result: NSFetchRequestResult>(_ objects: [NSManagedObject], of request: NSFetchRequest<Result>)
    throws -> [Result]
  {
    guard Result.self is NSManagedObject.Type else {
      throw resultTypeMismatch(request, returns: "managed objects")
    }
    // A request for plain managed objects needs no per-object cast (the types are the same).
    if Result.self == NSManagedObject.self { return unsafeBitCast(objects, to: [Result].self) }
    // A fetch makes objects of a few classes: each class is checked once. When every object is a
    // `Result`, the array itself is handed out as `[Result]` (a class reference is the same whatever its
    // static type): no second array, and no retain and release of each object.
    // The class checked last, and those checked before it (usually none: no array is made).
    var last: ObjectIdentifier?
    var checked: [ObjectIdentifier] = []
    for object in objects {
      let objectClass = ObjectIdentifier(type(of: object))
      if objectClass == last || checked.contains(objectClass) { continue }
      guard object is Result else {
        throw ObjectGraphError(
          .invalidValue,
          "NSFetchRequest<\(Result.self)> fetched a \(object.entity.entityName) made as \(type(of: object)), which is not a \(Result.self). Give entity \(object.entity.entityName) the class \(Result.self) (managedObjectClass, or NSManagedObjectModel.register), or fetch NSFetchRequest<NSManagedObject>."
        )
      }
      if let last { checked.append(last) }
      last = objectClass
    }
    return unsafeBitCast(objects, to: [Result].self)
  }

  /// Counts the objects a request would fetch, without making them (whatever its result type).
  ///
  /// - Throws: what `fetch(_:)` throws, ``ObjectGraphNoPersistentStoreError`` included when the
  ///   coordinator has no store yet (a count of 0 would look like an empty store).
  public func count<Result>(for request: NSFetchRequest<Result>) throws -> Int {
    try isolated("count(for:)") { confined in try countObjects(request, confined) }
  }

  func countObjects<Result>(_ request: NSFetchRequest<Result>, _ confined: Confined) throws -> Int {
    let entity = try entity(named: request.entityName)
    let plan = try plan(for: request, entity: entity, unbounded: false)
    if request.includesPendingChanges && hasPendingChanges(for: entity, confined) {
      let store = try readableStore()
      if store.spansSeveralStores { return try fetchObjects(request, confined).count }
      // A COUNT in the store, adjusted for the changes here; no object is made.
      if propagatesDeletesAtEndOfEvent { propagateDeletes(confined) }
      return try pendingOverlay(for: plan, confined).count(in: store, plan: plan)
    }
    // Refused without a store, as a fetch is: a 0 would read as an empty store.
    return try readableStore().count(plan)
  }

  func entity(named name: String) throws -> NSEntityDescription {
    guard let model = model else {
      throw ObjectGraphError(
        .noPersistentStore,
        "Context \(displayName) has no persistent store coordinator, so it has no model to find entity '\(name)' in. Set context.persistentStoreCoordinator first."
      )
    }
    guard let entity = model.entitiesByName[name] else {
      throw ObjectGraphError(
        .unknownKey,
        "The model has no entity named '\(name)'. Its entities: \(model.entities.map(\.entityName).sorted().joined(separator: ", ")).")
    }
    return entity
  }

  func plan<Result>(for request: NSFetchRequest<Result>, entity: NSEntityDescription, unbounded: Bool) throws -> StoreFetchPlan {
    var plan = StoreFetchPlan(
      entity: entity, predicate: try request.fetchPredicate()?.resolvedNode, sortDescriptors: try request.fetchSortDescriptors(),
      fetchLimit: unbounded ? 0 : request.fetchLimit, fetchOffset: unbounded ? 0 : request.fetchOffset,
      idsOnly: request.fetchBatchSize > 0 || !request.includesPropertyValues)
    plan.includesSubentities = request.includesSubentities
    plan.affectedStores = request.storeIdentities
    plan.request = request
    plan.context = self
    return plan
  }

  /// What the context reads from, refusing at once when there is no store yet (instead of waiting for a
  /// store being added, or answering nothing).
  func readableStore() throws -> any ObjectStore {
    let store = try parentStore()
    if !store.canServeRequests {
      throw ObjectGraphError(
        .noPersistentStore,
        "The coordinator of context \(displayName) has no store. Add one with addPersistentStore(type:at:) before fetching.")
    }
    return store
  }

  func hasPendingChanges(for entity: NSEntityDescription, _ confined: Confined) -> Bool {
    confined.inserted.contains { $0.entity.isKind(of: entity) }
      || confined.updated.contains { $0.entity.isKind(of: entity) }
      || confined.deleted.contains { $0.entity.isKind(of: entity) }
  }

  func fetchObjects<Result>(_ request: NSFetchRequest<Result>, _ confined: Confined) throws -> [NSManagedObject] {
    let entity = try entity(named: request.entityName)
    let coordinator = try readableStore()
    propagateDeletes(confined)
    syncStoreRegistrations(confined)
    let multiStore = coordinator.spansSeveralStores
    var plan = try plan(for: request, entity: entity, unbounded: multiStore)
    // Changes that touch nothing this fetch reads (an insert that does not match) leave it to the store.
    let overlay =
      request.includesPendingChanges && hasPendingChanges(for: entity, confined)
      ? try pendingOverlay(for: plan, confined).nonEmpty : nil
    let pending = overlay != nil
    // With changes here, the store is still asked with the limit, widened by what they can displace.
    if let overlay, !multiStore { plan = overlay.storePlan(for: plan) }
    var objects: [NSManagedObject] = []
    var batchIDs: [NSManagedObjectID] = []
    // Whether each of `objects` is to be awoken: a flag per object, not a second array of them (that
    // would retain and release every object of a 100,000-row fetch once more).
    var awaken: [Bool] = []
    var classes: [ObjectIdentifier: NSManagedObject.Type] = [:]
    var lastClass: (entity: NSEntityDescription, type: NSManagedObject.Type)?
    confined.fetchWillRegister()
    let registryWasEmpty = confined.registry.isEmpty
    var refetch = RefetchRules(
      refreshesObjects: request.shouldRefreshRefetchedObjects, comparesValues: !registryWasEmpty && coordinator is NSManagedObjectContext,
      readAt: DispatchTime.now().uptimeNanoseconds)
    // Each row becomes an object as the store reads it: no array of 100,000 rows in between, and each
    // row's values are still in the cache when its object takes them. `awakeFromFetch()` (app code)
    // runs after the read, when no lock is held.
    do {
      // Also when a row fails midway: the objects made before it stay registered, complete, and are
      // awoken all the same.
      defer {
        confined.fetchDidRegister()
        for (object, awake) in zip(objects, awaken) where awake { object.awakeFromFetch() }
      }
      try coordinator.fetch(plan) { row in
        if plan.idsOnly { batchIDs.append(row.id) }
        var awake = false
        objects.append(
          materialize(
            row, asFault: request.returnsObjectsAsFaults, confined, classes: &classes, lastClass: &lastClass,
            registryWasEmpty: registryWasEmpty, refetch: &refetch, awake: &awake))
        awaken.append(awake)
      }
    }
    if plan.idsOnly && request.fetchBatchSize > 0 {
      let batch = FaultBatch(ids: batchIDs, size: request.fetchBatchSize, prefetchKeyPaths: request.relationshipKeyPathsForPrefetching)
      for object in objects where object.state.needsLoad { object.batch = batch }
    }
    if !refetch.refreshed.isEmpty {
      NotificationCenter.default.post(
        name: Self.didChangeObjectsNotification, object: self,
        userInfo: [NotificationKey.refreshedObjects.rawValue: Set(refetch.refreshed)])
    }

    guard pending || multiStore else {
      try prefetch(request.relationshipKeyPathsForPrefetching, of: objects, confined)
      return objects
    }
    if let overlay {
      let stored = objects.filter { !$0.state.isDeleted && !overlay.displaced.contains(ObjectIdentifier($0)) }
      if multiStore {
        // Rows of several stores come unordered: order everything here.
        objects = try InMemorySort.sort(stored + overlay.candidates, by: request.fetchSortDescriptors())
      } else {
        let below = settings.withLock({ $0.parent }) == nil ? [:] : idsBelow(stored.lazy.map(\.objectID))
        objects = try overlay.merge(
          stored,
          key: { object in
            PendingOverlay.Key(
              values: try sortKey(of: object, request.fetchSortDescriptors(), coordinator),
              id: PendingOverlay.IDOrder(below[object.objectID] ?? object.objectID))
          }, row: { $0 })
      }
    } else if !(request.sortDescriptors ?? []).isEmpty {
      objects = try InMemorySort.sort(objects, by: request.fetchSortDescriptors())
    }
    objects = PendingOverlay.window(objects, offset: request.fetchOffset, limit: request.fetchLimit)
    try prefetch(request.relationshipKeyPathsForPrefetching, of: objects, confined)
    return objects
  }

  /// An object's sort values, for placing unsaved objects among fetched ones. A batch fault is not fired
  /// for it (that would read its whole batch): its row alone is read.
  private func sortKey(of object: NSManagedObject, _ descriptors: [FetchSortDescriptor], _ store: any ObjectStore) throws
    -> [PredicateValue]
  {
    guard !descriptors.isEmpty else { return [] }
    if object.state.needsLoad, let row = try store.snapshots(for: [object.objectID])[object.objectID] {
      let values = StoredRowValues(id: object.objectID, values: row.values, context: self)
      return try descriptors.map { try InMemorySort.sortValue(values, $0.keyPath) }
    }
    return try descriptors.map { try InMemorySort.sortValue(object, $0.keyPath) }
  }

  /// Reads the destinations of the given relationship key paths for all `objects` at once. Objects not
  /// loaded yet (batch faults) are checked against the key paths but skipped: their batch prefetches
  /// for them when it is read.
  func prefetch(_ keyPaths: [String], of objects: [NSManagedObject], _ confined: Confined) throws {
    guard !keyPaths.isEmpty, !objects.isEmpty else { return }
    let coordinator = try parentStore()
    for keyPath in keyPaths {
      var level = objects
      for key in keyPath.split(separator: ".").map(String.init) {
        var next: [NSManagedObject] = []
        let byEntity = Dictionary(grouping: level, by: { ObjectIdentifier($0.entity) })
        for everyObject in byEntity.values {
          guard let first = everyObject.first, let index = first.layout.indexByName[key] else {
            throw ObjectGraphError(
              .unknownKey, "Cannot prefetch '\(keyPath)': entity \(level.first?.entity.entityName ?? "?") has no relationship '\(key)'.")
          }
          let slot = first.layout.slots[index]
          guard slot.isRelationship else {
            throw ObjectGraphError(.unknownKey, "Cannot prefetch '\(keyPath)': \(first.entity.entityName).\(key) is an attribute.")
          }
          let group = everyObject.filter { !$0.state.needsLoad }
          if slot.isToMany {
            let unloaded = group.filter { $0.values[index].isUnloadedToMany }
            let members = try coordinator.relatedIDs(of: unloaded.map(\.objectID), slot: slot, entity: first.entity)
            for object in unloaded {
              let ids = slot.toManyValue(members[object.objectID] ?? [])
              object.values[index] = ids
              if object.snapshot?.values[index].isUnloadedToMany == true { object.snapshot?.values[index] = ids }
            }
            for object in group {
              next += (object.values[index].memberList ?? []).map { materializeFault($0, confined) }
            }
          } else {
            next += group.compactMap { $0.values[index].objectID.map { materializeFault($0, confined) } }
          }
        }
        let faults = next.filter { $0.state.needsLoad && confined.rowCache[$0.objectID] == nil }
        if !faults.isEmpty {
          // Rows go to the row cache: the fault objects may be released before they are touched.
          let rows = try coordinator.snapshots(for: faults.map(\.objectID))
          let readAt = DispatchTime.now().uptimeNanoseconds
          for (id, snapshot) in rows { confined.rowCache[id] = CachedRow(snapshot: snapshot, readAt: readAt) }
        }
        level = next
      }
    }
  }
}
