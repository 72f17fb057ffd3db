import Foundation

extension NSManagedObjectContext {
  /// Sends a save to the store under the context's merge policy. A built-in policy is settled in the
  /// store's transaction (one try), except by a store that settles conflicts in memory. A subclass of ``NSMergePolicy`` gets the conflicts first: the save is tried
  /// with conflicts reported, each kind found is handed to its `resolve` method, and the save is tried again
  /// with the policy's type settling what is left; `makeRequest(true)` gathers the objects again (the
  /// override may have changed, inserted or deleted some).
  func sendSave(to store: any ObjectStore, _ makeRequest: (_ retry: Bool) -> StoreSaveRequest) throws -> (StoreSaveRequest, StoreSaveResult)
  {
    var request = makeRequest(false)
    guard !request.isEmpty else { return (request, StoreSaveResult()) }
    let policy = try savingMergePolicy()
    // A store that compares versions itself (an NSIncrementalStore) cannot merge rows in a transaction: a
    // built-in policy other than `error` then goes the way a subclass does, its conflicts merged in memory
    // by `resolve(optimisticLockingConflicts:)` before the save is tried again.
    let inMemory = !policy.isBuiltIn || (policy.mergeType != .errorMergePolicyType && store.settlesConflictsInMemory)
    guard inMemory else {
      request.mergePolicy = policy.mergeType
      request.constraintMergePolicy = policy.mergeType
      return (request, try store.save(request))
    }
    // After an override returned, its kind is settled by the type; an error type then writes the objects.
    let settled: NSMergePolicyType =
      policy.mergeType == .errorMergePolicyType ? .mergeByPropertyObjectTrumpMergePolicyType : policy.mergeType
    var locking = NSMergePolicyType.errorMergePolicyType
    var constraints = NSMergePolicyType.errorMergePolicyType
    for attempt in 1...4 {
      request.mergePolicy = locking
      request.constraintMergePolicy = constraints
      do {
        return (request, try store.save(request))
      } catch let error as ObjectGraphError where attempt < 4 {
        if error.code == .managedObjectMerge, !error.storeMergeConflicts.isEmpty, locking == .errorMergePolicyType {
          try policy.resolve(optimisticLockingConflicts: mergeConflicts(error.storeMergeConflicts, store: store))
          locking = settled
        } else if error.code == .managedObjectConstraintMerge, !error.storeConstraintConflicts.isEmpty,
          constraints == .errorMergePolicyType
        {
          try policy.resolve(constraintConflicts: error.storeConstraintConflicts.map { NSConstraintConflict($0, in: self) })
          constraints = settled
        } else {
          throw error
        }
      }
      request = makeRequest(true)
      if request.isEmpty { return (request, StoreSaveResult()) }
    }
    return (request, try store.save(request))
  }

  /// The ``mergePolicy`` a save uses.
  /// - Throws: ``NSCoreDataError`` when it was set to something that is not an ``NSMergePolicy``.
  private func savingMergePolicy() throws -> NSMergePolicy {
    let value = mergePolicy
    if let policy = value as? NSMergePolicy { return policy }
    throw ObjectGraphError(
      .coreData,
      "Could not save: the context's mergePolicy is \(value) (\(type(of: value))), not an NSMergePolicy. Nothing was written. Set it to one of Core Data's policies (NSMergeByPropertyObjectTrumpMergePolicy, NSMergePolicy.rollback, NSMergePolicy(merge: .overwriteMergePolicyType), …) or an NSMergePolicy subclass."
    )
  }

  /// The conflicts a policy's override reads, for the records a store reported: each object with its
  /// current, last-read and stored values (no stored values when the store cannot be read now).
  private func mergeConflicts(_ records: [StoreMergeConflict], store: any ObjectStore) -> [NSMergeConflict] {
    let rows = (try? store.snapshots(for: records.map(\.objectID))) ?? [:]
    return records.map { record in
      let object = object(with: record.objectID)
      let row = rows[record.objectID]
      return NSMergeConflict(
        source: object, newVersion: Int(record.newVersion), oldVersion: Int(record.oldVersion),
        cachedSnapshot: object.snapshot.map { object.snapshotDictionary($0.values) },
        persistedSnapshot: row.map { object.snapshotDictionary($0.values) }, record: record, persistedRow: row)
    }
  }

  /// A save's error as the app gets it: a store's conflict records (object IDs) become ``NSMergeConflict``s and
  /// ``NSConstraintConflict``s holding this context's objects, under `NSPersistentStoreSaveConflictsErrorKey`,
  /// as Core Data's errors hold them. Call on the context's queue.
  func withConflictObjects(_ error: ObjectGraphError, store: any ObjectStore) -> ObjectGraphError {
    if !error.storeMergeConflicts.isEmpty {
      return error.replacingUserInfo([NSPersistentStoreSaveConflictsErrorKey: mergeConflicts(error.storeMergeConflicts, store: store)])
    }
    if !error.storeConstraintConflicts.isEmpty {
      return error.replacingUserInfo([
        NSPersistentStoreSaveConflictsErrorKey: error.storeConstraintConflicts.map { NSConstraintConflict($0, in: self) }
      ])
    }
    return error
  }
}

extension NSManagedObject {
  /// Slot values as a merge conflict's snapshot: attributes as `value(forKey:)` reads them, to-ones as
  /// object IDs, no to-manys (Core Data's snapshots hold the same).
  func snapshotDictionary(_ values: [StoredValue]) -> [String: Any] {
    var result: [String: Any] = [:]
    for slot in layout.slots where slot.index < values.count && slot.isPersistent {
      let stored = values[slot.index]
      switch slot.kind {
      case .attribute:
        let value = layout.transformableIndexes.contains(slot.index) ? transformableValue(stored, at: slot.index) : stored?.anyValue
        if let value { result[slot.name] = value }
      case .toOne:
        if let id = stored.objectID { result[slot.name] = id }
      case .toMany:
        continue
      }
    }
    return result
  }
}
