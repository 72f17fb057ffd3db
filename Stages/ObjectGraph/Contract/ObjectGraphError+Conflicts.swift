import Foundation

extension ObjectGraphError {
  /// Makes error 133020 of a save that met rows changed elsewhere, with the store's records under
  /// `NSPersistentStoreSaveConflictsErrorKey` (`"conflictList"`); the saving context puts ``NSMergeConflict``s
  /// in their place before the error reaches the app.
  convenience init(_ code: Code, _ message: String, conflicts: [StoreMergeConflict]) {
    self.init(code, message, userInfo: [NSPersistentStoreSaveConflictsErrorKey: conflicts])
  }

  /// Makes error 133021 of a save that would break uniqueness constraints, with the store's records under
  /// `NSPersistentStoreSaveConflictsErrorKey`; the saving context puts ``NSConstraintConflict``s in their place.
  convenience init(_ code: Code, _ message: String, constraintConflicts: [StoreConstraintConflict]) {
    self.init(code, message, userInfo: [NSPersistentStoreSaveConflictsErrorKey: constraintConflicts])
  }

  /// Error 133020 of a save under the `error` merge policy that met rows changed elsewhere since the context
  /// read them: nothing was written. What every store reports (a SQLite store's transaction, an incremental
  /// store's version check), so the context turns it into the same error with ``NSMergeConflict``s.
  static func optimisticLockingFailure(_ conflicts: [StoreMergeConflict]) -> ObjectGraphError {
    ObjectGraphError(
      .managedObjectMerge,
      "Could not save: \(conflicts.count) object(s) changed in the store since this context read them (merge policy: error). Nothing was written. Refresh the objects and try again, or choose another merge policy.\n"
        + conflicts.map { "  - \($0)" }.joined(separator: "\n"),
      conflicts: conflicts)
  }

  /// The optimistic-locking conflicts of a 133020 error, as the store reported them (by object ID).
  var storeMergeConflicts: [StoreMergeConflict] {
    userInfo[NSPersistentStoreSaveConflictsErrorKey] as? [StoreMergeConflict] ?? []
  }

  /// The uniqueness-constraint conflicts of a 133021 error, as the store reported them (by object ID).
  var storeConstraintConflicts: [StoreConstraintConflict] {
    userInfo[NSPersistentStoreSaveConflictsErrorKey] as? [StoreConstraintConflict] ?? []
  }
}
