import Foundation
internal import Synchronization

extension NSManagedObjectContext {
  // MARK: - Change sets

  /// Whether the context has inserted, updated or deleted objects not yet saved.
  public var hasChanges: Bool { isolated("hasChanges") { $0.hasChanges } }

  /// Objects inserted and not yet saved.
  public var insertedObjects: Set<NSManagedObject> { isolated("insertedObjects") { Set($0.inserted.inOrder) } }

  /// Objects with unsaved changes to their properties.
  public var updatedObjects: Set<NSManagedObject> { isolated("updatedObjects") { $0.updated } }

  /// Objects deleted and not yet saved.
  public var deletedObjects: Set<NSManagedObject> { isolated("deletedObjects") { $0.deleted } }

  /// Every object the context currently holds (fetched, inserted, or looked up by ID and still referenced).
  public var registeredObjects: Set<NSManagedObject> {
    isolated("registeredObjects") { confined in
      confined.purge()
      return Set(confined.registry.objects)
    }
  }

  /// The object with `objectID` if the context holds it now, else `nil` (Core Data's
  /// `registeredObject(for:)`): unlike ``object(with:)``, it never makes a fault, and unlike
  /// ``existingObject(with:)``, it never reads the store.
  public func registeredObject(for objectID: NSManagedObjectID) -> NSManagedObject? {
    isolated("registeredObject(for:)") { $0.registered(objectID) }
  }

  // MARK: - Inserting and deleting

  /// Inserts an object made without a context. `NSManagedObject(entity:insertInto:)` and
  /// `init(context:)` call this for you.
  public func insert(_ object: NSManagedObject) {
    isolated("insert(_:)") { confined in
      if let owner = object.managedObjectContext, owner !== self {
        ConcurrencyDebug.objectsFromTwoContexts(object, object, key: "(insert)")
      }
      if Self.someContextRecordsUndo, !object.state.isInserted || object.state.isDeleted {
        recordMembership(of: object, confined)
      }
      if object.state.isDeleted && object.managedObjectContext === self {
        // Re-inserting a deleted object undoes the delete; a never-saved one is inserted again.
        object.state.isDeleted = false
        confined.deleted.remove(object)
        confined.propagated.remove(ObjectIdentifier(object))
        guard object.snapshot == nil else { return }
      }
      guard !object.state.isInserted else { return }
      object.managedObjectContext = self
      object.state.isDeleted = false
      object.state.isInserted = true
      confined.inserted.append(object)
      confined.register(object)
      scheduleProcessing(confined)
      if !object.state.awokeFromInsert {
        object.state.awokeFromInsert = true
        object.awakeFromInsert()
      }
    }
  }

  /// Marks an object for deletion. Its delete rules (cascade, nullify, deny) apply when the context
  /// processes pending changes (at save, or ``processPendingChanges()``); the row leaves the store at save.
  public func delete(_ object: NSManagedObject) {
    isolated("delete(_:)") { confined in
      guard object.managedObjectContext === self else {
        // An object of another context is a programmer error (rule 5); one in no context any more (its
        // deletion already saved, or the context reset) has nothing left to delete here.
        if object.managedObjectContext != nil { ConcurrencyDebug.objectsFromTwoContexts(object, object, key: "(delete)") }
        return
      }
      guard !object.state.isDeleted else { return }
      if Self.someContextRecordsUndo { recordMembership(of: object, confined) }
      object.state.isDeleted = true
      confined.unnoticedDeletes.insert(object)
      scheduleProcessing(confined)
      confined.rowCache[object.objectID] = nil
      if object.state.isInserted {
        // Never saved: it simply stops being inserted, and its relationships are nullified at processing.
        confined.inserted.remove(object)
        object.state.isInserted = false
        confined.deleted.insert(object)
      } else {
        confined.updated.remove(object)
        confined.deleted.insert(object)
      }
    }
  }

  // MARK: - Looking objects up by ID

  /// The object for `objectID`: the registered one, or a fault that loads its values on first access.
  ///
  /// It never touches the store, so it is fast, but the fault fails when first touched if the object no
  /// longer exists. Use ``existingObject(with:)`` when the object may be gone.
  public func object(with objectID: NSManagedObjectID) -> NSManagedObject {
    isolated("object(with:)") { confined in
      syncStoreRegistrations(confined)
      return materializeFault(objectID, confined)
    }
  }

  /// The object for `objectID`, loaded from the store if needed.
  /// - Throws: ``ObjectGraphObjectNotFoundError`` when no such object exists (it was deleted, the
  ///   ID is temporary and belongs to another context, or it names a store this context's coordinator
  ///   does not have; the message says which).
  public func existingObject(with objectID: NSManagedObjectID) throws -> NSManagedObject {
    try isolated("existingObject(with:)") { confined in
      syncStoreRegistrations(confined)
      if let object = confined.registered(objectID), !object.state.needsLoad { return object }
      let temporaryMessage =
        "No object with temporary ID \(objectID) exists in context \(displayName) or its ancestors. A temporary ID names an object only in the context that inserted it (and its descendants); call obtainPermanentIDs(for:) before handing the ID to another context."
      // A temporary ID can still name an object an ancestor context holds; a coordinator has none.
      guard !objectID.isTemporaryID || settings.withLock({ $0.parent }) != nil else {
        throw ObjectGraphError(.objectNotFound, temporaryMessage)
      }
      let object = materializeFault(objectID, confined)
      do {
        try fulfill(object)
      } catch let error as ObjectGraphError where error.code == .objectNotFound {
        if object.state.needsLoad { confined.registry[objectID] = nil }
        if objectID.isTemporaryID { throw ObjectGraphError(.objectNotFound, temporaryMessage) }
        if let store = objectID.storeIdentifier, let stores = persistentStoreCoordinator?.persistentStores,
          !stores.contains(where: { $0.identifier == store })
        {
          throw ObjectGraphError(
            .objectNotFound,
            "\(objectID) belongs to store \(store), which context \(displayName)'s coordinator does not have: the ID comes from another stack (another coordinator or file). Hand IDs only between contexts of one coordinator; to find the same row through another, use persistentStoreCoordinator.managedObjectID(forURIRepresentation:) on a coordinator that has that store."
          )
        }
        throw error
      }
      return object
    }
  }

  /// In a child context: the object this context inserted under a temporary ID that its parent has since
  /// saved as `id`. The child's object keeps its temporary ID (Core Data's behaviour) but stays unique.
  func twinInChild(of id: NSManagedObjectID, _ confined: Confined) -> NSManagedObject? {
    // A twin is an object registered here under a temporary ID that the parent has replaced. With none
    // registered so (the usual case once objects have permanent IDs), or a parent that never replaced one,
    // there is no twin, and no need to wait for the parent's queue, which may be busy writing to disk: a
    // merge of 1,000 inserted IDs into a main context, or a child's batched fetch, used to wait there once
    // per object.
    guard !id.isTemporaryID, confined.registry.temporaryCount > 0, let parent = settings.withLock({ $0.parent }),
      parent.hasReplacedTemporaryIDs.withLock({ $0 }), let temporary = parent.temporaryID(replacedBy: id)
    else { return nil }
    return confined.registered(temporary)
  }

  /// The same for a fetched row. A row still without an ID came straight from a store, so this context
  /// has no parent and no twin.
  func twinInChild(of row: FetchedRow, _ confined: Confined) -> NSManagedObject? {
    guard case .id(let id) = row.identity else { return nil }
    return twinInChild(of: id, confined)
  }

  /// A main-queue context processes pending changes (delete rules, objects-did-change) when the main
  /// queue finishes the block that made them, as Core Data does at the end of each run-loop event.
  /// Private contexts do it at the end of each `perform` block.
  func scheduleProcessing(_ confined: Confined) {
    guard concurrencyType == .mainQueueConcurrencyType, !confined.processingScheduled else { return }
    confined.processingScheduled = true
    DispatchQueue.main.async { [weak self] in
      guard let self else { return }
      self.confined.processingScheduled = false
      self.processPendingChangesQuietly()
    }
  }

  /// How many prefetched rows wait for their objects (for tests).
  var rowCacheCount: Int { isolated("rowCache") { $0.rowCache.count } }

  /// How many objects the context holds, counted without purging, unlike ``registeredObjects`` (for tests).
  var registeredCount: Int { isolated("registeredCount") { $0.registeredCount } }

  func materializeFault(_ id: NSManagedObjectID, _ confined: Confined) -> NSManagedObject {
    if let object = confined.registered(id) ?? twinInChild(of: id, confined) { return object }
    let object = id.entity.managedObjectClass.init(entity: id.entity, insertInto: nil)
    object.setObjectID(id)
    object.managedObjectContext = self
    object.state.isFault = true
    object.state.needsLoad = true
    confined.register(object)
    return object
  }

  /// Makes a registered object (or a new one) from a fetched row. For an object realised from the row (not
  /// left a fault) `awake` is set: the caller calls its `awakeFromFetch()` once the read is over.
  func materialize(
    _ row: FetchedRow, asFault: Bool, _ confined: Confined, classes: inout [ObjectIdentifier: NSManagedObject.Type],
    lastClass: inout (entity: NSEntityDescription, type: NSManagedObject.Type)?, registryWasEmpty: Bool = false,
    refetch: inout RefetchRules, awake: inout Bool
  ) -> NSManagedObject {
    // Rows of one fetch are distinct, so a context that held nothing before the fetch has nothing to unique.
    if !registryWasEmpty {
      // A prefetched row waiting for this object is older than the one just read.
      if !confined.rowCache.isEmpty { confined.rowCache[row.id] = nil }
      if let object = confined.registered(row.identity) ?? twinInChild(of: row, confined) {
        awake = refetched(object, row, asFault: asFault, &refetch)
        return object
      }
    }
    let entity = row.entity
    let type: NSManagedObject.Type
    if let last = lastClass, last.entity === entity {
      type = last.type
    } else if let known = classes[ObjectIdentifier(entity)] {
      type = known
      lastClass = (entity, known)
    } else {
      type = entity.managedObjectClass
      classes[ObjectIdentifier(entity)] = type
      lastClass = (entity, type)
    }
    let object = type.init(entity: entity, insertInto: nil)
    switch row.identity {
    case .id(let id): object.setObjectID(id)
    case .row(let source, let primaryKey): object.setRow(source, primaryKey: primaryKey)
    }
    object.managedObjectContext = self
    if row.snapshot.values.isEmpty {
      object.state.isFault = true
      object.state.needsLoad = true
    } else {
      object.snapshot = row.snapshot
      object.values = row.snapshot.values
      object.readAt = refetch.readAt
      object.state.isFault = asFault
      awake = !asFault
    }
    confined.registerFetched(object, as: row.identity)
    return object
  }

  /// What a fetch does with a row of an object the context already holds.
  struct RefetchRules {
    /// ``NSFetchRequest/shouldRefreshRefetchedObjects``.
    var refreshesObjects = false
    /// The rows come from a parent context, whose unsaved changes do not change a row's version: compare
    /// values, not only versions.
    var comparesValues = false
    /// When the rows were read (`DispatchTime` uptime nanoseconds).
    var readAt: UInt64 = 0
    /// Objects whose values the fetch replaced (for the objects-did-change notification).
    var refreshed: [NSManagedObject] = []
  }

  /// Brings an object the context already holds in line with the row a fetch just read, as Core Data's row
  /// cache does:
  /// - a fault not loaded yet takes the row;
  /// - a fault holding values it has not shown yet (never fired) takes the row, so firing it shows what
  ///   the store holds now;
  /// - an object in use (fired) keeps its values; without unsaved changes its snapshot (what a save checks
  ///   the row against) becomes the row, so saving a later change does not conflict with a row this context
  ///   has already read; with ``NSFetchRequest/shouldRefreshRefetchedObjects`` it takes the row's values too,
  ///   with its unsaved changes kept on top;
  /// - inserted and deleted objects are left alone.
  ///
  /// With a batch size the rows carry no values (only versions): a fault whose row changed is emptied, to
  /// be read with its batch; with ``NSFetchRequest/shouldRefreshRefetchedObjects``, so is an unchanged object
  /// in use whose row changed.
  ///
  /// Returns whether the object was realised from the row here (its `awakeFromFetch()` is then due).
  private func refetched(_ object: NSManagedObject, _ row: FetchedRow, asFault: Bool, _ refetch: inout RefetchRules) -> Bool {
    let fresh = row.snapshot
    let state = object.state
    if state.needsLoad {
      guard !fresh.values.isEmpty else { return false }
      object.snapshot = fresh
      object.values = fresh.values
      object.readAt = refetch.readAt
      object.state.needsLoad = false
      object.state.isFault = asFault
      return !asFault
    }
    guard !state.isInserted, !state.isDeleted, let known = object.snapshot else { return false }
    let changed =
      known.version != fresh.version
      || (refetch.comparesValues && !fresh.values.isEmpty
        && !zip(known.values, fresh.values).allSatisfy { StoredValueComparison.isEqual($0, $1) })
    if fresh.values.isEmpty {
      // Only the version was read: values that differ from the row are dropped, to be read with the batch.
      if changed && !state.isUpdated && (state.isFault || refetch.refreshesObjects) {
        object.releaseValues()
        if !state.isFault { refetch.refreshed.append(object) }
      }
      return false
    }
    if state.isFault {
      // A fault can hold unsaved changes (a child's save applied to it before it fired): those stay.
      if changed && !state.isUpdated {
        object.snapshot = fresh
        object.values = fresh.values
      }
      object.readAt = refetch.readAt
      if !asFault {
        object.state.isFault = false
        return true
      }
      return false
    }
    guard changed else { return false }
    if refetch.refreshesObjects {
      object.takeRowKeepingChanges(fresh)
      refetch.refreshed.append(object)
    } else if !state.isUpdated {
      // The values stay; to-many members they have loaded stay in the snapshot beside them.
      var snapshot = fresh
      for index in object.layout.toManyIndexes where snapshot.values[index].isUnloadedToMany {
        snapshot.values[index] = known.values[index]
      }
      object.snapshot = snapshot
    }
    return false
  }

  // MARK: - Faults

  /// Loads a fault's values from the store.
  /// - Throws: ``ObjectGraphObjectNotFoundError`` when its row is gone.
  func fulfill(_ object: NSManagedObject) throws {
    if !object.state.needsLoad && object.state.isFault && Self.someContextLimitsStaleness && isStale(object.readAt) {
      object.values = object.layout.initialValues
      object.state.needsLoad = true
    }
    guard object.state.needsLoad else {
      if object.state.isFault {
        object.state.isFault = false
        object.awakeFromFetch()
      }
      return
    }
    if let cached = isolated("fault", { $0.rowCache.removeValue(forKey: object.objectID) }),
      !(Self.someContextLimitsStaleness && isStale(cached.readAt))
    {
      object.snapshot = cached.snapshot
      object.values = cached.snapshot.values
      object.batch = nil
      object.state.needsLoad = false
      object.state.isFault = false
      object.awakeFromFetch()
      return
    }
    let store = try parentStore()
    var ids = [object.objectID]
    if let batch = object.batch {
      ids = batch.ids(around: object.objectID)
    }
    let rows = try store.snapshots(for: ids)
    let readAt = DispatchTime.now().uptimeNanoseconds
    let batch = object.batch
    let batchObjects = isolated("fault") { confined -> [NSManagedObject] in
      var loaded: [NSManagedObject] = []
      for id in ids where id != object.objectID {
        guard let other = confined.registered(id), other.state.needsLoad, let snapshot = rows[id] else { continue }
        other.snapshot = snapshot
        other.values = snapshot.values
        other.readAt = readAt
        other.state.needsLoad = false
        other.batch = nil
        loaded.append(other)
      }
      return loaded
    }
    guard let snapshot = rows[object.objectID] else {
      object.state.isInaccessible = true
      throw ObjectGraphError(
        .objectNotFound,
        "\(object.entity.entityName) \(object.objectID) no longer exists in the store (it was deleted, or never saved). Use existingObject(with:) to check before touching an object that may be gone."
      )
    }
    object.snapshot = snapshot
    object.values = snapshot.values
    object.batch = nil
    object.state.needsLoad = false
    object.state.isFault = false
    if let batch, !batch.prefetchKeyPaths.isEmpty {
      // The key paths were checked at the fetch; a store error here only leaves the related objects to
      // load one by one when touched.
      try? isolated("fault") { confined in try prefetch(batch.prefetchKeyPaths, of: [object] + batchObjects, confined) }
    }
    object.awakeFromFetch()
  }

  /// Reads the members of a to-many relationship from the store.
  func loadToMany(_ object: NSManagedObject, slot: EntityLayout.Slot) throws {
    let members: SlotValue
    if object.objectID.isTemporaryID {
      members = slot.emptyToMany
    } else {
      members = slot.toManyValue(
        try parentStore().relatedIDs(of: [object.objectID], slot: slot, entity: object.entity)[object.objectID] ?? [])
    }
    object.values[slot.index] = members
    if object.snapshot != nil, object.snapshot?.values[slot.index].isUnloadedToMany == true {
      object.snapshot?.values[slot.index] = members
    }
  }

  /// Marks an object changed after one of its properties was set.
  func didChange(_ object: NSManagedObject, slot index: Int) {
    if Self.someContextRunsWillSave { noteChangeDuringWillSave(object) }
    // A new object is saved whole: nothing to track (and no queue hop on this hot path). Once an
    // objects-did-change notification has announced it, a change to it is announced as an update in the
    // next one, as Core Data does (a fetched results controller follows unsaved objects this way).
    if object.state.isInserted {
      guard object.state.wasAnnounced else { return }
      let record = { [self] (confined: Confined) in
        confined.unnoticedUpdates.insert(object)
        scheduleProcessing(confined)
      }
      if isOnQueue { return record(confined) }
      return performAndWait { record(confined) }
    }
    let record = { [self] (confined: Confined) in
      object.changedSlots.insert(index)
      guard !object.state.isInserted, !object.state.isDeleted else { return }
      object.state.isUpdated = true
      confined.updated.insert(object)
      confined.unnoticedUpdates.insert(object)
      scheduleProcessing(confined)
    }
    if isOnQueue { return record(confined) }
    // Reported by the property that changed, not as a call the app never wrote: the change is often the
    // inverse of a relationship set on another object.
    ConcurrencyDebug.objectChangedOffQueue(object, slot: index)
    performAndWait { record(confined) }
  }

  /// How many contexts are running `willSave()` hooks in a save right now, over the process: while none
  /// is, a change costs one relaxed load more, and nothing is noted.
  static let contextsRunningWillSave = Atomic<Int>(0)

  static var someContextRunsWillSave: Bool { contextsRunningWillSave.load(ordering: .relaxed) > 0 }

  /// Notes that `object` changed while this context's save runs `willSave()` hooks (a change by key, of a
  /// relationship or of its inverse), so that the save calls the object's `willSave()` again.
  func noteChangeDuringWillSave(_ object: NSManagedObject) {
    guard isOnQueue, confined.runsWillSave else { return }
    confined.changedDuringWillSave.insert(object)
  }
}
