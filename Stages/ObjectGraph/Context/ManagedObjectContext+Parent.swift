import Foundation

/// A context as the parent of nested contexts.
///
/// Core Data's rules, which the stages teach:
/// - a child's save pushes its inserts, updates and deletes into its parent, and no further: nothing reaches
///   the store until the context holding the coordinator saves;
/// - a child's fetch sees its parent's unsaved state (the parent answers from its own objects);
/// - a parent's save does not flow down, and siblings do not see each other's saves;
/// - objects inserted in a child keep their temporary IDs in the child, even after the parent has saved
///   them to the store and given them permanent IDs (the parent remembers the pairing, so the child can
///   still save changes to them; hand IDs to other contexts only after `obtainPermanentIDs(for:)`).
///
/// Every request runs on the parent's queue through `performAndWait`, which runs inline when a parent and
/// child call each other on one thread, so nesting does not deadlock.
extension NSManagedObjectContext: ObjectStore {
  var canServeRequests: Bool { (try? parentStore().canServeRequests) ?? false }
  var spansSeveralStores: Bool { (try? parentStore().spansSeveralStores) ?? false }

  /// A child's fetch: the plan goes on to this context's own store (predicate, sort and limit included),
  /// and this context's unsaved changes are laid over the rows that come back (``PendingOverlay``). No
  /// object is made here for a row this context does not hold; an IDs-only plan (a batched fetch) gets
  /// IDs only, and the child reads values batch by batch through ``snapshots(for:)``.
  func fetch(_ plan: StoreFetchPlan) throws -> [FetchedRow] {
    try performAndWait {
      let plan = translated(plan)
      let store = try readableStore()
      if store.spansSeveralStores {
        // Rows of several stores come unordered: this context orders and cuts them itself.
        return try fetchObjects(request(for: plan), confined).compactMap { try currentRow(of: $0) }
      }
      propagateDeletes(confined)
      let overlay = try pendingOverlay(for: plan, confined)
      let fetched = try store.fetch(overlay.isEmpty ? plan : overlay.storePlan(for: plan))
      // Rows of objects this context's parent saved for it under new IDs: this context's IDs for them.
      let twins = temporaryIDsInParent(of: fetched)
      var rows: [(row: FetchedRow, stored: RowSnapshot, source: NSManagedObjectID)] = []
      rows.reserveCapacity(fetched.count)
      for row in fetched {
        // A row this context's parent saved for it goes up under the temporary ID the children know, even
        // when this context has also come to hold it under the permanent one.
        var object: NSManagedObject?
        var id: NSManagedObjectID?
        if !twins.isEmpty, let twin = twins[row.id] {
          id = twin
          object = confined.registered(twin) ?? confined.registered(row.identity)
        } else {
          object = confined.registered(row.identity)
        }
        guard let object else {
          let source = row.id
          rows.append((FetchedRow(id: id ?? source, snapshot: stripped(row.snapshot, plan)), row.snapshot, source))
          continue
        }
        if object.state.isDeleted || overlay.displaced.contains(ObjectIdentifier(object)) { continue }
        // An object held here answers with its values here, as a fetch of this context would.
        let snapshot =
          object.state.needsLoad ? row.snapshot : RowSnapshot(version: object.snapshot?.version ?? 0, values: object.values)
        rows.append((FetchedRow(id: id ?? object.objectID, snapshot: stripped(snapshot, plan)), row.snapshot, row.id))
      }
      guard !overlay.isEmpty else { return rows.map(\.row) }
      let below = idsBelow(rows.lazy.map(\.row.id))
      let merged = try overlay.merge(
        rows,
        key: { row in
          var stored = row.stored.values
          if stored.isEmpty && !plan.sortDescriptors.isEmpty {
            // An IDs-only read (a batched fetch): this row's values alone, from the store.
            stored = try store.snapshots(for: [row.source])[row.source]?.values ?? []
          }
          let values = StoredRowValues(id: row.row.id, values: stored, context: self)
          return PendingOverlay.Key(
            values: try plan.sortDescriptors.map { try InMemorySort.sortValue(values, $0.keyPath) },
            id: PendingOverlay.IDOrder(below[row.row.id] ?? row.row.id))
        },
        row: { object in
          try currentRow(of: object).map { (FetchedRow(id: $0.id, snapshot: stripped($0.snapshot, plan)), $0.snapshot, $0.id) }
        })
      return PendingOverlay.window(merged, offset: plan.fetchOffset, limit: plan.fetchLimit).map(\.row)
    }
  }

  /// A child's count: a `COUNT` in this context's store, adjusted for this context's unsaved changes.
  func count(_ plan: StoreFetchPlan) throws -> Int {
    try performAndWait {
      let plan = translated(plan)
      let store = try readableStore()
      if store.spansSeveralStores { return try fetch(plan).count }
      propagateDeletes(confined)
      let overlay = try pendingOverlay(for: plan, confined)
      return overlay.isEmpty ? try store.count(plan) : try overlay.count(in: store, plan: plan)
    }
  }

  /// The plan with the object IDs of its predicate as this context names them. A child names objects by
  /// its own IDs, which may be temporary IDs this context has since replaced with permanent ones:
  /// translated, as a child's save is.
  private func translated(_ plan: StoreFetchPlan) -> StoreFetchPlan {
    guard let predicate = plan.predicate, !confined.aliases.isEmpty else { return plan }
    return plan.with(predicate: predicate.mappingObjectIDs(resolve))
  }

  /// A child's dictionary fetch: what the persistent store holds, as for a root context (Core Data's
  /// dictionaries never include unsaved changes, this context's included). Object IDs the child names in
  /// its predicate are translated as for its other fetches.
  func fetchDictionaries(_ plan: StoreDictionaryPlan) throws -> StoreDictionaryRows {
    try performAndWait {
      var plan = plan
      plan.rows = translated(plan.rows)
      return try parentStore().fetchDictionaries(plan)
    }
  }

  /// The request a plan stands for, for the slow path across several stores.
  private func request(for plan: StoreFetchPlan) -> NSFetchRequest<NSManagedObject> {
    let request = NSFetchRequest<NSManagedObject>(entityName: plan.entity.entityName)
    request.predicate = plan.predicate.map { FormatPredicate(FetchPredicate(node: $0)) }
    request.sortDescriptors = plan.sortDescriptors.map { KeySortDescriptor($0) }
    request.fetchLimit = plan.fetchLimit
    request.fetchOffset = plan.fetchOffset
    request.includesSubentities = plan.includesSubentities
    request.storeIdentities = plan.affectedStores
    return request
  }

  /// A row's values dropped for an IDs-only plan (the child reads them batch by batch).
  private func stripped(_ snapshot: RowSnapshot, _ plan: StoreFetchPlan) -> RowSnapshot {
    plan.idsOnly ? RowSnapshot(version: snapshot.version, values: []) : snapshot
  }

  /// For rows read from this context's parent: the temporary IDs this context still uses for those of
  /// them that the parent has since saved under permanent IDs. One request to the parent for all rows,
  /// and none when the parent has replaced no IDs.
  private func temporaryIDsInParent(of rows: [FetchedRow]) -> [NSManagedObjectID: NSManagedObjectID] {
    guard !rows.isEmpty, let parent = settings.withLock({ $0.parent }) else { return [:] }
    return parent.performAndWait {
      guard !parent.confined.reverseAliases.isEmpty else { return [:] }
      var found: [NSManagedObjectID: NSManagedObjectID] = [:]
      for row in rows {
        let id = row.id
        if let temporary = parent.confined.reverseAliases[id] { found[id] = temporary }
      }
      return found
    }
  }

  func snapshots(for ids: [NSManagedObjectID]) throws -> [NSManagedObjectID: RowSnapshot] {
    try performAndWait {
      var result: [NSManagedObjectID: RowSnapshot] = [:]
      var unknown: [NSManagedObjectID] = []
      for id in ids {
        if let object = confined.registered(resolve(id)) {
          if let row = try currentRow(of: object) { result[id] = row.snapshot }
        } else {
          unknown.append(id)
        }
      }
      if !unknown.isEmpty {
        // Objects this context never touched (or no longer holds): its own parent has them as they are. A
        // temporary ID may name an object inserted further up; a coordinator answers nothing for one.
        result.merge(try parentStore().snapshots(for: unknown)) { mine, _ in mine }
      }
      return result
    }
  }

  func relatedIDs(of ids: [NSManagedObjectID], slot: EntityLayout.Slot, entity: NSEntityDescription) throws
    -> [NSManagedObjectID: [NSManagedObjectID]]
  {
    try performAndWait {
      var result: [NSManagedObjectID: [NSManagedObjectID]] = [:]
      var unknown: [NSManagedObjectID] = []
      for id in ids {
        if let object = confined.registered(resolve(id)), !object.state.isDeleted {
          if object.state.needsLoad { try fulfill(object) }
          result[id] = object.relatedIDList(slot)
        } else {
          unknown.append(id)
        }
      }
      if !unknown.isEmpty { result.merge(try parentStore().relatedIDs(of: unknown, slot: slot, entity: entity)) { a, _ in a } }
      return result
    }
  }

  /// Permanent IDs for a child's objects. An object this context has already saved to the store (the
  /// child still knows it by its temporary ID) gets the permanent ID it was saved under, so the child's
  /// ID names the row that exists; the others get new ones from further up.
  func obtainPermanentIDs(for objects: [(id: NSManagedObjectID, entity: NSEntityDescription)]) throws -> [NSManagedObjectID] {
    var ids = performAndWait { objects.map { resolve($0.id) } }
    let pending = ids.indices.filter { ids[$0].isTemporaryID }
    guard !pending.isEmpty else { return ids }
    let obtained = try parentStore().obtainPermanentIDs(for: pending.map { (ids[$0], objects[$0].entity) })
    for (index, id) in zip(pending, obtained) { ids[index] = id }
    return ids
  }

  /// A child's save: its changes become this context's unsaved changes.
  func save(_ request: StoreSaveRequest) throws -> StoreSaveResult {
    try performAndWait {
      // A child's save is not this context's user's change: it is not recorded in this context's undo manager.
      confined.undoSuppression += 1
      defer { confined.undoSuppression -= 1 }
      var result = StoreSaveResult()
      result.insertedVersion = 0
      // The parent keeps the child's temporary IDs (as Core Data's does).
      result.insertedIDs = request.inserts.map(\.temporaryID)
      result.keepsInsertedIDs = true
      var classes = EntityClasses()
      // The inserts' IDs are distinct (one per object of the child), so one of them can only be registered
      // here already if it is a permanent ID or if this context holds objects under temporary IDs.
      let mayHoldTemporaryIDs = confined.registry.temporaryCount > 0
      confined.inserted.reserveCapacity(request.inserts.count)
      for insert in request.inserts {
        let known = mayHoldTemporaryIDs || !insert.temporaryID.isTemporaryID ? confined.registered(insert.temporaryID) : nil
        let object = known ?? newObject(insert.entity, id: insert.temporaryID, classes: &classes)
        // The child's value array itself (copied only when a value changes) unless IDs need translating.
        object.values = confined.aliases.isEmpty ? insert.values : insert.values.map(resolveIDs)
        object.state.isDeleted = false
        if !object.state.isInserted {
          object.state.isInserted = true
          confined.inserted.append(object)
        }
      }
      for update in request.updates {
        let object = materializeFault(resolve(update.id), confined)
        if object.state.needsLoad { try fulfill(object) }
        for (index, value) in update.changed {
          object.values[index] = resolveIDs(value)
          object.changedSlots.insert(index)
        }
        if object.state.isInserted {
          // Announced as inserted already: this change is announced as an update, as an edit here would be.
          if object.state.wasAnnounced { confined.unnoticedUpdates.insert(object) }
        } else if !object.state.isDeleted {
          object.state.isUpdated = true
          confined.updated.insert(object)
          confined.unnoticedUpdates.insert(object)
        }
        result.versions[update.id] = update.expectedVersion
      }
      for delete in request.deletes {
        guard let object = confined.registered(resolve(delete.id)) ?? (try? existingObject(with: resolve(delete.id))) else {
          continue
        }
        self.delete(object)
      }
      // Core Data's parent announces what a child's save brought during that save, on its own queue (this
      // block runs there): objects-did-change reaches its observers (a fetched results controller on the
      // main context, a list) before the child's save returns, without waiting for anything else to
      // process this context's pending changes.
      processPendingChangesQuietly()
      return result
    }
  }

  // MARK: - Helpers

  /// The ID this context now uses for `id` (a child may still use the temporary ID of an object this
  /// context has since saved under a permanent one).
  func resolve(_ id: NSManagedObjectID) -> NSManagedObjectID {
    confined.aliases[id] ?? id
  }

  /// A relationship value with every ID this context has since renumbered replaced by its permanent one.
  private func resolveIDs(_ value: StoredValue) -> StoredValue {
    guard !confined.aliases.isEmpty else { return value }
    if let id = value.objectID { return .objectID(resolve(id)) }
    if let members = value, members.isLoadedToMany { return members.mappingMembers(resolve) }
    return value
  }

  /// The temporary ID a child may still use for the object this context now knows as `id`.
  func temporaryID(replacedBy id: NSManagedObjectID) -> NSManagedObjectID? {
    performAndWait { confined.reverseAliases[id] }
  }

  /// An object's current values as a row for a child, or `nil` when it is deleted here or gone.
  private func currentRow(of object: NSManagedObject) throws -> FetchedRow? {
    guard !object.state.isDeleted else { return nil }
    if object.state.needsLoad {
      do {
        try fulfill(object)
      } catch let error as ObjectGraphError where error.code == .objectNotFound {
        return nil
      }
    }
    return FetchedRow(id: object.objectID, snapshot: RowSnapshot(version: object.snapshot?.version ?? 0, values: object.values))
  }

  /// The class of each entity a child's save inserts, with the last one asked at hand (a big save
  /// inserts objects of one entity after another).
  private struct EntityClasses {
    var all: [ObjectIdentifier: NSManagedObject.Type] = [:]
    var last: (entity: NSEntityDescription, type: NSManagedObject.Type)?
  }

  private func newObject(
    _ entity: NSEntityDescription, id: NSManagedObjectID, classes: inout EntityClasses
  ) -> NSManagedObject {
    let type: NSManagedObject.Type
    if let last = classes.last, last.entity === entity {
      type = last.type
    } else if let known = classes.all[ObjectIdentifier(entity)] {
      type = known
    } else {
      type = entity.managedObjectClass
      classes.all[ObjectIdentifier(entity)] = type
    }
    classes.last = (entity, type)
    let object = type.init(entity: entity, insertInto: nil)
    object.setObjectID(id)
    object.managedObjectContext = self
    object.state.awokeFromInsert = true
    confined.register(object)
    return object
  }
}
