import Foundation

/// What a store reports back after a save.
struct StoreSaveResult {
  /// The ID each inserted object now has, in the order of the request's inserts: a permanent one from a
  /// store, the same temporary one from a parent context. (An array, not a map from temporary IDs: a big
  /// import would otherwise hash 100,000 IDs once more.)
  var insertedIDs: [NSManagedObjectID] = []
  /// Every inserted object keeps the ID it was sent with (a parent context's answer): the saving context
  /// has no ID to replace, and need not compare 100,000 of them to find that out.
  var keepsInsertedIDs = false
  /// New row version per updated object.
  var versions: [NSManagedObjectID: Int64] = [:]
  /// The version inserted objects now have: 1 for rows written to a store, 0 when pushed to a parent.
  var insertedVersion: Int64 = 1
  /// Rows whose stored values won a conflict: the object must take these values (and version).
  var refreshed: [NSManagedObjectID: RowSnapshot] = [:]
  /// Inserts that a uniqueness constraint merged into another object's row, by position in the request's
  /// inserts; their `insertedIDs` entry is that row's ID. Empty unless the model has constraints.
  var constraintMerges: [Int: ConstraintMerge] = [:]

  /// How a uniqueness constraint merged an inserted object.
  enum ConstraintMerge {
    /// Another object of the same save holds the same values and represents the row; this one is dropped.
    case duplicate
    /// A stored row holds the values: the object represents that row now (written with its values, or
    /// taking the row's, as the merge policy says), unless the context already holds the row's object.
    case intoStoredRow
  }
}

extension StoreSaveRequest {
  /// Temporary ID -> the ID it became, for the inserted objects whose ID changed.
  func replacedIDs(by result: StoreSaveResult) -> [NSManagedObjectID: NSManagedObjectID] {
    var map: [NSManagedObjectID: NSManagedObjectID] = [:]
    map.reserveCapacity(inserts.count)
    for (insert, id) in zip(inserts, result.insertedIDs) where insert.temporaryID != id { map[insert.temporaryID] = id }
    return map
  }
}
