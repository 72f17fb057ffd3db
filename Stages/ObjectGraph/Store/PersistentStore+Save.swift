import Foundation
internal import GRDB

extension NSPersistentStore {
  /// Writes one save in one transaction: all of it or (on any error or unresolved conflict) none of it.
  ///
  /// Inserted objects get primary keys from `Z_PRIMARYKEY` and `Z_OPT = 1`; updates and deletes check
  /// the row version they read (`Z_OPT`): a mismatch is a conflict, which the merge policy resolves or
  /// reports (error 133020, listing every conflicting object and key).
  func save(_ request: StoreSaveRequest) throws -> StoreSaveResult {
    try refuseWritesIfReadOnly("it cannot be saved to")
    // A store of a class of the app's own (an NSAtomicStore subclass) adds its hooks; the built-in stores
    // only test this flag.
    guard isCustom else { return try write(request, token: nil) }
    if let answered = try answeredSave(request) { return answered }
    let token = try customSaveWillBegin(request)
    do {
      return try write(request, token: token)
    } catch {
      if let token { customSaveDidFail(token) }
      throw error
    }
  }

  /// Writes the save's rows in one transaction, calling a custom store's hook before it commits (`token`).
  private func write(_ request: StoreSaveRequest, token: AnyObject?) throws -> StoreSaveResult {
    do {
      let metadata = pendingMetadata.withLock { $0 }
      let result = try database.write { db in
        try refuseWritesIfModelChanged(db)
        let result = try SaveTransaction(store: self, request: request, db: db).run()
        if let metadata { try StoreMetadata.update(in: db, with: metadata.set, removing: metadata.removed, url: url) }
        try writeArchiveIfAtomic(db)
        if let token { try customSaveWillCommit(request, result: result, token: token) }
        return result
      }
      if let metadata { clearPendingMetadata(written: metadata) }
      return result
    } catch let error as ObjectGraphError {
      throw error
    } catch let error as DatabaseError where error.extendedResultCode == .SQLITE_CONSTRAINT_UNIQUE {
      // The unique index of a uniqueness constraint refused a row the save's own check let through (two
      // saved objects swapping their values, say).
      throw ObjectGraphError.database(
        .managedObjectConstraintMerge, "Saving to the store at \(url.storePath) failed and nothing was written", error,
        advice:
          "A row would repeat the values of a uniqueness constraint: give the objects different values, or save the change in two steps.",
        url: url)
    } catch let error as DatabaseError {
      throw ObjectGraphError.database(
        .persistentStoreSave, "Saving to the store at \(url.storePath) failed and nothing was written", error, url: url)
    }
  }
}
