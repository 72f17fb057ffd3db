import Foundation

extension NSManagedObjectContext {
  /// Notification posted at the start of a save that has changes to save (Core Data's
  /// `NSManagedObjectContextWillSave`), on the saving context's queue, before `willSave()` is called on
  /// the changed objects. Its object is the context; it has no user info. Not posted when ``save()`` has
  /// nothing to do.
  public static let willSaveObjectsNotification = Notification.Name("NSManagedObjectContextWillSaveNotification")
  /// Notification posted after a save, on the saving context's queue. Its user info holds the saved
  /// objects under `inserted`, `updated`, `deleted` (for observers on that same queue) and their IDs under
  /// `insertedObjectIDs`, `updatedObjectIDs`, `deletedObjectIDs` (safe to pass anywhere).
  public static let didSaveObjectsNotification = Notification.Name("NSManagedObjectContextDidSaveNotification")
  /// Notification posted after a save with only the object IDs (Core Data's did-save-object-IDs).
  public static let didSaveObjectIDsNotification = Notification.Name("NSManagedObjectContextDidSaveObjectIDsNotification")
  /// Notification posted when pending changes are processed and objects changed.
  public static let didChangeObjectsNotification = Notification.Name("NSManagedObjectContextObjectsDidChangeNotification")
  /// Notification posted on the context's queue after the context has merged changes
  /// (`mergeChanges(fromContextDidSave:)`, `mergeChanges(fromRemoteContextSave:into:)`, automatic merges): the
  /// merged changes' IDs under `insertedObjectIDs`, `updatedObjectIDs`, `deletedObjectIDs`, and the IDs of the
  /// objects the merge refreshed under `refreshedObjectIDs` (Core Data's `didMergeChangesObjectIDsNotification`).
  public static let didMergeChangesObjectIDsNotification = Notification.Name(
    "NSManagedObjectContextDidMergeChangesObjectIDsNotification")

  /// Saves every pending change to the store in one transaction: all of it or nothing.
  ///
  /// In order: ``willSaveObjectsNotification`` is posted, delete rules are applied (`prepareForDeletion()` first),
  /// `willSave()` runs on each changed object, every changed object is validated
  /// (`validateForInsert()`, `validateForUpdate()`, `validateForDelete()`; nothing is written if one
  /// fails), inserted objects get permanent IDs, uniqueness constraints are checked (a save to a store),
  /// rows are written with their versions checked, `didSave()` runs on each saved object, and
  /// ``didSaveObjectsNotification`` is posted. Does nothing when there are no changes.
  ///
  /// - Throws: validation errors (1570 missing required value, 1580/1590 relationship counts, 1600
  ///   denied delete, 1610–1680 the model's minimums, maximums and patterns, 1550 a rule of your own,
  ///   1560 for several), 133020 merge conflicts, 133021 uniqueness constraint conflicts,
  ///   store errors. A failed save leaves the context's changes in place and the store as it was.
  public func save() throws {
    try isolated("save()") { confined in try saveOnQueue(confined) }
  }

  /// Applies delete rules (cascade, nullify) to objects deleted since the last processing, and posts
  /// ``didChangeObjectsNotification`` for what changed since then. Runs at the end of every `perform`
  /// block and at the start of `save()`, as Core Data's does at the end of each event.
  public func processPendingChanges() {
    isolated("processPendingChanges()") { _ in processPendingChangesQuietly() }
  }

  func processPendingChangesQuietly() {
    if propagatesDeletesAtEndOfEvent { propagateDeletes(confined) }
    if Self.someContextRecordsUndo { endUndoEventGroup() }
    postObjectsDidChange(confined)
  }

  /// Posts what was inserted, updated and deleted since the last notification, if anything; returns the
  /// inserted objects it announced.
  @discardableResult
  func postObjectsDidChange(_ confined: Confined) -> Set<NSManagedObject> {
    let inserted = confined.inserted.insertedSet(from: confined.noticedInsertions)
    guard !inserted.isEmpty || !confined.unnoticedUpdates.isEmpty || !confined.unnoticedDeletes.isEmpty else { return [] }
    let info: [AnyHashable: Any] = [
      NotificationKey.insertedObjects.rawValue: inserted, NotificationKey.updatedObjects.rawValue: confined.unnoticedUpdates,
      NotificationKey.deletedObjects.rawValue: confined.unnoticedDeletes,
    ]
    for object in inserted { object.state.wasAnnounced = true }
    if confined.announcedInserts.isEmpty {
      confined.announcedInserts = inserted
    } else {
      confined.announcedInserts.formUnion(inserted)
    }
    confined.noticedInsertions = confined.inserted.endPosition
    confined.unnoticedUpdates = []
    confined.unnoticedDeletes = []
    NotificationCenter.default.post(name: Self.didChangeObjectsNotification, object: self, userInfo: info)
    // After the post: its observers still read the event's old values with changedValuesForCurrentEvent().
    confined.eventNumber &+= 1
    return inserted
  }

  private func saveOnQueue(_ confined: Confined) throws {
    guard confined.hasChanges else { return }
    NotificationCenter.default.post(name: Self.willSaveObjectsNotification, object: self, userInfo: nil)
    var inserted = try prepareForSave(confined)
    let store = try parentStore()
    // A coordinator with a store that builds its own records from the saved objects (an NSAtomicStore
    // subclass) gets them, with permanent IDs first, as Core Data's atomic stores see them.
    let needsObjects = store.savesNeedObjects
    if needsObjects { try obtainPermanentIDs(for: inserted.objects) }
    var updated: [NSManagedObject] = []
    // An object deleted here that still has a temporary ID was saved to a parent context earlier (objects
    // never saved anywhere left `deleted` in propagateDeletes): the parent holds it, under that ID or the
    // permanent one it has since given it, and must delete it too.
    // An object whose row is already gone (a merged deletion, a fault that found no row) has nothing left
    // to delete: it only leaves the context.
    var deleted = Array(confined.deleted).filter { !$0.state.isInserted && !$0.state.isInaccessible }
    // A custom merge policy may change, insert or delete objects between tries: a retry gathers them again.
    let request: StoreSaveRequest
    let result: StoreSaveResult
    do {
      (request, result) = try sendSave(to: store) { retry in
        if retry {
          propagateDeletes(confined)
          inserted.objects = confined.inserted.inOrder
          inserted.announced.formIntersection(inserted.objects)
          deleted = Array(confined.deleted).filter { !$0.state.isInserted && !$0.state.isInaccessible }
        }
        updated = Array(confined.updated).filter { !$0.state.isDeleted }
        if !confined.conflictChecked.isEmpty {
          // Marked by detectConflicts(for:): saved as updates without changes, so the row version is checked.
          updated += confined.conflictChecked.subtracting(confined.updated).filter {
            !$0.state.isDeleted && !$0.state.isInserted && $0.managedObjectContext === self
          }
        }
        // Objects a custom merge policy inserted between tries get their permanent IDs too (a store that needs
        // them refuses the save, naming the object, when one could not be had).
        if retry && needsObjects { try? obtainPermanentIDs(for: inserted.objects) }
        var request = saveRequest(inserted: inserted.objects, updated: updated, deleted: deleted)
        if needsObjects {
          request.savedObjects = SavedObjects(inserted: inserted.objects, updated: updated, deleted: deleted, context: self)
        }
        return request
      }
    } catch let error as ObjectGraphError {
      throw withConflictObjects(error, store: store)
    }
    // The objects the save renumbers or lets go of are reported to the stores that observe registrations
    // in one call each.
    confined.registry.log?.beginBatch()
    let merged = apply(result, of: request, inserted: inserted.objects, updated: updated, confined)
    let deletedObjects = forgetDeleted(keeping: result, confined)
    confined.registry.log?.endBatch()
    confined.clearInserted()
    confined.updated = []
    confined.deleted = []
    confined.conflictChecked = []
    confined.propagated = []
    guard !result.constraintMerges.isEmpty else {
      postDidSave(inserted: inserted.announced, insertedIDs: Set(result.insertedIDs), updated: Set(updated), deleted: deletedObjects)
      return
    }
    // Objects a uniqueness constraint merged into a stored row are that row's object now: updated, not
    // inserted; the duplicates that left the context are neither.
    let notInserted = Set(merged.leaving).union(merged.rowObjects)
    let insertedIDs = result.insertedIDs.indices.filter { result.constraintMerges[$0] == nil }.map { result.insertedIDs[$0] }
    postDidSave(
      inserted: inserted.announced.subtracting(notInserted), insertedIDs: Set(insertedIDs),
      updated: Set(updated).union(merged.rowObjects), deleted: deletedObjects)
    // An object a uniqueness constraint merged a row into changed during the save (its values are the
    // merged row's now): as Core Data calls `willSave()` again on objects that change during a save, it
    // gets `willSave()` once more, so a value it keeps from others (a count of a to-many) takes the merge
    // into account. What that changes is saved at once, in a transaction of its own (Core Data's is the
    // same save; "Uniqueness constraints" in Docs/ObjectGraph.md).
    let survivors = merged.rowObjects.filter { $0.managedObjectContext === self && !$0.state.isDeleted }
    guard !survivors.isEmpty else { return }
    for object in survivors { object.willSave() }
    if confined.hasChanges { try saveOnQueue(confined) }
  }

  /// Step 1 of a save: delete rules, `willSave()`, validation. Returns the inserted objects in order, and
  /// the same as a set for the did-save notification.
  private func prepareForSave(_ confined: Confined) throws -> (objects: [NSManagedObject], announced: Set<NSManagedObject>) {
    propagateDeletes(confined)
    postObjectsDidChange(confined)
    // Every inserted object has been announced now, in this notification or earlier ones.
    let announced = confined.announcedInserts
    let insertsBefore = (end: confined.inserted.endPosition, count: confined.inserted.count)
    let insertedBefore = confined.inserted.inOrder
    try runWillSave(confined, inserted: insertedBefore)
    try computeDerivedAttributes(confined)
    // The list walked above, unless `willSave()` or a delete rule inserted or removed an object since.
    let insertsUnchanged = insertsBefore == (confined.inserted.endPosition, confined.inserted.count)
    let inserted = insertsUnchanged ? insertedBefore : confined.inserted.inOrder
    // The objects announced are the inserted objects when they are as many (announced objects deleted
    // since stay among them, so the counts differ then) and none came or went since (a big import saves
    // building a second set of 100,000 objects).
    let insertedSet =
      announced.count == insertsBefore.count && insertsUnchanged ? announced : Set(inserted)
    try validate(confined, inserted: inserted)
    return (inserted, insertedSet)
  }

  /// How many rounds of `willSave()` a save runs before it gives up on hooks that keep changing objects
  /// (Core Data gives up after as many attempts, with an exception saying the context is still dirty).
  static let willSaveRoundLimit = 1000

  /// Step 1's hooks, to a fixed point: `willSave()` on every inserted, updated and deleted object; then
  /// delete rules for what the hooks deleted; then `willSave()` again on every object that changed since
  /// its hook ran (a hook's own changes, the inverse relationships they updated) or joined the save
  /// (inserted, updated, deleted by a hook), until a round changes nothing.
  ///
  /// - Throws: 134060 (``NSCoreDataError``) when the hooks still change objects after
  ///   ``willSaveRoundLimit`` rounds, naming them; nothing is written.
  private func runWillSave(_ confined: Confined, inserted: [NSManagedObject]) throws {
    Self.contextsRunningWillSave.add(1, ordering: .relaxed)
    confined.runsWillSave = true
    defer {
      confined.runsWillSave = false
      confined.changedDuringWillSave = []
      Self.contextsRunningWillSave.subtract(1, ordering: .relaxed)
    }
    func hook(_ object: NSManagedObject) {
      // Changed before its own hook in this round: the hook sees the change, no second call needed.
      if !confined.changedDuringWillSave.isEmpty { confined.changedDuringWillSave.remove(object) }
      object.willSave()
    }
    var insertedEnd = confined.inserted.endPosition
    var hookedDeleted = confined.deleted
    for object in inserted { hook(object) }
    for object in confined.updated { hook(object) }
    for object in hookedDeleted { hook(object) }
    for round in 1...Self.willSaveRoundLimit {
      propagateDeletes(confined)
      let previousEnd = insertedEnd
      let newInserts = confined.inserted.inserted(from: previousEnd)
      insertedEnd = confined.inserted.endPosition
      let newDeletes = confined.deleted.count == hookedDeleted.count ? [] : confined.deleted.subtracting(hookedDeleted)
      hookedDeleted.formUnion(newDeletes)
      // Objects changed since their hook ran, still in this context, and not hooked below as new ones.
      let changed = confined.changedDuringWillSave.filter { object in
        object.managedObjectContext === self && !newDeletes.contains(object)
          && !(object.state.isInserted && object.insertionPosition >= previousEnd)
      }
      confined.changedDuringWillSave = []
      if newInserts.isEmpty && newDeletes.isEmpty && changed.isEmpty { return }
      guard round < Self.willSaveRoundLimit else {
        let named = (newInserts + changed + newDeletes).prefix(5).map { "\($0.entity.entityName) \($0.objectID)" }
        throw ObjectGraphError(
          .coreData,
          "The save was stopped: willSave() still changed objects after \(Self.willSaveRoundLimit) rounds (\(named.joined(separator: ", "))). A change made in willSave() calls willSave() again on the object it changed, until a round changes nothing: set a value only when it differs from the current one, or set it with setPrimitiveValue(_:forKey:), which does not call willSave() again. Nothing was written; the context keeps its changes."
        )
      }
      for object in newInserts { hook(object) }
      for object in changed { hook(object) }
      for object in newDeletes { hook(object) }
    }
  }

  /// Step 2: everything the store writes, gathered before its transaction starts, so the store never calls
  /// back into the context.
  private func saveRequest(inserted: [NSManagedObject], updated: [NSManagedObject], deleted: [NSManagedObject]) -> StoreSaveRequest {
    var request = StoreSaveRequest()
    (request.author, request.contextName) = settings.withLock { ($0.transactionAuthor, $0.name) }
    request.inserts.reserveCapacity(inserted.count)
    request.updates.reserveCapacity(updated.count)
    request.deletes.reserveCapacity(deleted.count)
    for object in inserted {
      // The object's own array, shared (not copied) unless a to-many slot still needs its member set
      // written out: a copy per object, and freeing it after, was a large part of a big child save.
      var values = object.values
      for index in object.layout.toManyIndexes where values[index]?.isLoadedToMany != true {
        let slot = object.layout.slots[index]
        values[index] = slot.toManyValue(object.relatedIDList(slot))
      }
      request.inserts.append(.init(temporaryID: object.objectID, entity: object.entity, values: values))
    }
    for object in updated {
      var changed: [Int: StoredValue] = [:]
      var original: [Int: StoredValue] = [:]
      for index in object.changedSlots where object.layout.slots[index].isPersistent {
        changed[index] = object.values[index]
        original[index] = object.snapshot?.values[index]
      }
      request.updates.append(
        .init(
          id: object.objectID, entity: object.entity, expectedVersion: object.snapshot?.version ?? 0, changed: changed,
          original: original, allValues: object.values))
    }
    for object in deleted {
      request.deletes.append(.init(id: object.objectID, entity: object.entity, expectedVersion: object.snapshot?.version ?? 0))
    }
    return request
  }

  /// Step 3: the store has it all; bring the context in line: permanent IDs replace temporary ones (a
  /// parent remembers the pairs for its children), saved objects take their new row versions, or the
  /// stored values a merge policy chose.
  ///
  /// Returns what uniqueness constraints did: the inserted objects that left the context (merged into an
  /// object that represents their row), and the objects that now represent a stored row they were merged
  /// into.
  private func apply(
    _ result: StoreSaveResult, of request: StoreSaveRequest, inserted: [NSManagedObject], updated: [NSManagedObject], _ confined: Confined
  ) -> (leaving: [NSManagedObject], rowObjects: [NSManagedObject]) {
    var versions: [ObjectIdentifier: Int64] = [:]
    for object in updated {
      versions[ObjectIdentifier(object)] = result.versions[object.objectID]
    }
    // Only a parent needs the old temporary IDs (its children may still use them); remembering 100,000
    // of them after a big import in a context with no children would be pure cost.
    let remembersTemporaryIDs = settings.withLock { $0.hasHadChildren }
    var replacedCount = 0
    // Whether an inserted object's ID changed at all (never in a save into a parent context), and whether
    // one that changed was not temporary (an obtained permanent ID a uniqueness constraint merged away).
    var anyReplaced = false
    var replacedPermanent = false
    let merges = result.constraintMerges
    var leaving: [NSManagedObject] = []
    var rowObjects: [NSManagedObject] = []
    // A parent context kept every ID: nothing to walk.
    let renumbered = result.keepsInsertedIDs ? [] : inserted
    for (index, (object, permanent)) in zip(renumbered, result.insertedIDs).enumerated() {
      let temporary = object.objectID
      guard permanent != temporary else { continue }
      anyReplaced = true
      if !temporary.isTemporaryID { replacedPermanent = true }
      if remembersTemporaryIDs {
        confined.aliases[temporary] = permanent
        if merges.isEmpty || merges[index] == nil { confined.reverseAliases[permanent] = temporary }
      }
      if !merges.isEmpty, let merge = merges[index] {
        // One object per row: a duplicate, or an object whose row this context already holds another
        // object for, leaves the context; its ID still names the row.
        let holder = confined.registry[permanent]
        if merge == .duplicate || (holder != nil && holder !== object) {
          if merge == .intoStoredRow, let holder {
            Self.take(result.refreshed[permanent], into: holder)
            rowObjects.append(holder)
          }
          leaving.append(object)
          object.setObjectID(permanent)
          if temporary.isTemporaryID { replacedCount += 1 }
          continue
        }
        rowObjects.append(object)
      }
      confined.registry[permanent] = object
      object.setObjectID(permanent)
      if temporary.isTemporaryID { replacedCount += 1 }
    }
    // Children may still name the replaced objects by their temporary IDs: say so once, where they can see it.
    if anyReplaced && remembersTemporaryIDs { hasReplacedTemporaryIDs.withLock { $0 = true } }
    // The replaced temporary IDs leave the registry: in one step when they are all it holds (the usual
    // case), else one by one.
    if replacedCount > 0 && replacedCount == confined.registry.temporaryCount {
      confined.registry.removeAllTemporary()
    } else if replacedCount > 0 {
      for (insert, permanent) in zip(request.inserts, result.insertedIDs) where insert.temporaryID != permanent {
        confined.registry[insert.temporaryID] = nil
      }
    }
    for object in leaving {
      object.state.isInserted = false
      object.changedSlots = []
      object.managedObjectContext = nil
    }
    let saved: [NSManagedObject]
    if leaving.isEmpty {
      saved = updated.isEmpty ? inserted : inserted + updated
    } else {
      let left = Set(leaving.map(ObjectIdentifier.init))
      saved = inserted.filter { !left.contains(ObjectIdentifier($0)) } + updated
    }
    // Relationship values still naming the temporary IDs of objects this save inserted. The map of
    // replaced IDs is built only when some relationship value could name one of them.
    if anyReplaced && (replacedPermanent || saved.contains(where: Self.namesTemporaryID)) {
      let replaced = request.replacedIDs(by: result)
      if !replaced.isEmpty {
        for object in saved { Self.replaceIDs(in: object, replaced) }
      }
    }
    for object in saved {
      if !result.refreshed.isEmpty, let refreshed = result.refreshed[object.objectID] {
        object.values = refreshed.values
        object.snapshot = refreshed
      } else {
        // A store reports each saved row's new version; a parent context keeps versions as they were.
        let version =
          object.state.isInserted ? result.insertedVersion : versions[ObjectIdentifier(object)] ?? object.snapshot?.version ?? 0
        object.snapshot = RowSnapshot(version: version, values: object.values)
      }
      object.changedSlots = []
      object.state.isInserted = false
      object.state.isUpdated = false
    }
    return (leaving, rowObjects)
  }

  /// An unchanged object of this context takes a row's values as the save left them (a uniqueness
  /// constraint merged another object into its row). An object with changes of its own takes them with
  /// the rest of the save.
  private static func take(_ snapshot: RowSnapshot?, into object: NSManagedObject) {
    guard let snapshot, !object.hasChanges else { return }
    object.snapshot = snapshot
    object.values = snapshot.values
    object.batch = nil
    object.state.needsLoad = false
  }

  /// Step 4: deleted objects leave the context, unless a merge policy kept their row (it changed
  /// elsewhere). Returns the objects really deleted, for the did-save notification.
  private func forgetDeleted(keeping result: StoreSaveResult, _ confined: Confined) -> Set<NSManagedObject> {
    var deleted = confined.deleted
    for object in confined.deleted {
      if let kept = result.refreshed[object.objectID] {
        // A merge policy kept the row (it changed elsewhere): the delete is undone.
        object.snapshot = kept
        object.values = kept.values
        object.changedSlots = []
        object.state.isDeleted = false
        deleted.remove(object)
        continue
      }
      confined.registry[object.objectID] = nil
      object.state.isDeleted = false
      object.managedObjectContext = nil
    }
    return deleted
  }

  private func postDidSave(
    inserted: Set<NSManagedObject>, insertedIDs: Set<NSManagedObjectID>, updated: Set<NSManagedObject>, deleted: Set<NSManagedObject>
  ) {
    var ids: [AnyHashable: Any] = [
      NotificationKey.insertedObjectIDs.rawValue: insertedIDs,
      NotificationKey.updatedObjectIDs.rawValue: Set(updated.map(\.objectID)),
      NotificationKey.deletedObjectIDs.rawValue: Set(deleted.map(\.objectID)),
    ]
    // A pinned context's save moved it to the generation right after the save: its token goes with the news.
    if let generation = queryGenerationToken { ids[NotificationKey.queryGeneration.rawValue] = generation }
    for object in inserted { object.didSave() }
    for object in updated { object.didSave() }
    for object in deleted { object.didSave() }
    var full = ids
    full[NotificationKey.insertedObjects.rawValue] = inserted
    full[NotificationKey.updatedObjects.rawValue] = updated
    full[NotificationKey.deletedObjects.rawValue] = deleted
    NotificationCenter.default.post(name: Self.didSaveObjectIDsNotification, object: self, userInfo: ids)
    NotificationCenter.default.post(name: Self.didSaveObjectsNotification, object: self, userInfo: full)
  }

  /// Whether one of the object's relationship values names a temporary ID.
  private static func namesTemporaryID(_ object: NSManagedObject) -> Bool {
    object.layout.relationshipIndexes.contains { index in
      if let id = object.values[index].objectID { return id.isTemporaryID }
      return object.values[index]?.containsMember(where: \.isTemporaryID) ?? false
    }
  }

  /// Rewrites relationship values that still name temporary IDs.
  static func replaceIDs(in object: NSManagedObject, _ map: [NSManagedObjectID: NSManagedObjectID]) {
    for index in object.layout.relationshipIndexes {
      if let id = object.values[index].objectID, let permanent = map[id] {
        object.values[index] = .objectID(permanent)
      } else if let members = object.values[index], members.containsMember(where: { map[$0] != nil }) {
        object.values[index] = members.mappingMembers { map[$0] ?? $0 }
      }
    }
  }

  // MARK: - Delete rules

  func propagateDeletes(_ confined: Confined) {
    var queue = confined.deleted.filter { !confined.propagated.contains(ObjectIdentifier($0)) }
    while let object = queue.popFirst() {
      confined.propagated.insert(ObjectIdentifier(object))
      if object.state.needsLoad { try? fulfill(object) }
      // Before the delete rules change its relationships, while it can still read them (Core Data's order).
      object.prepareForDeletion()
      for slot in object.layout.slots where slot.isRelationship {
        guard let relationship = slot.relationship else { continue }
        let related: [NSManagedObject]
        if slot.isToMany {
          related = object.relatedIDs(slot).map { materializeFault($0, confined) }
        } else {
          related = object.values[slot.index].objectID.map { [materializeFault($0, confined)] } ?? []
        }
        switch relationship.deleteRule {
        case .cascadeDeleteRule:
          for target in related where !target.state.isDeleted {
            if Self.someContextRecordsUndo { recordMembership(of: target, confined) }
            target.state.isDeleted = true
            if target.state.isInserted {
              confined.inserted.remove(target)
              target.state.isInserted = false
            }
            confined.updated.remove(target)
            confined.deleted.insert(target)
            queue.insert(target)
          }
          fallthrough
        case .nullifyDeleteRule:
          guard let inverse = relationship.inverseRelationship else { continue }
          for target in related where !target.state.isDeleted {
            target.primitiveRemove(object, inverse: inverse)
          }
        case .denyDeleteRule, .noActionDeleteRule:
          continue
        }
      }
      if object.snapshot == nil && !object.state.isInserted {
        // Never saved: with its relationships undone, it simply leaves the context (Core Data's rule);
        // there is no row to delete.
        if Self.someContextRecordsUndo { recordMembership(of: object, confined) }
        confined.deleted.remove(object)
        confined.registry[object.objectID] = nil
        object.managedObjectContext = nil
      }
    }
  }

  // MARK: - Validation

  /// Step 1's last part: each inserted object's ``NSManagedObject/validateForInsert()``, each updated one's
  /// ``NSManagedObject/validateForUpdate()``, each deleted one's ``NSManagedObject/validateForDelete()``, with
  /// every error gathered: one is thrown as it is, several as 1560 listing them.
  func validate(_ confined: Confined, inserted: [NSManagedObject]) throws {
    var errors: [ObjectGraphError] = []
    func run(_ object: NSManagedObject, _ check: () throws -> Void) {
      NSManagedObject.collect(&errors, "\(object.entity.entityName) \(object.objectID)", check)
    }
    for object in inserted { run(object) { try object.validateForInsert() } }
    for object in confined.updated where !object.state.isDeleted && !object.state.isInserted {
      run(object) { try object.validateForUpdate() }
    }
    for object in confined.deleted { run(object) { try object.validateForDelete() } }
    if errors.count == 1, let only = errors.first { throw only }
    if errors.count > 1 {
      throw ObjectGraphError(
        .validationMultipleErrors, "The save was refused: \(errors.count) validation errors. Nothing was written.",
        detailedErrors: errors)
    }
  }

  /// Whether the object with `id` is deleted in this context (the Deny rule lets a delete through when the
  /// related objects go too).
  func isDeletedHere(_ id: NSManagedObjectID) -> Bool {
    isolated("validateForDelete()") { confined in confined.registered(id)?.state.isDeleted ?? false }
  }
}
