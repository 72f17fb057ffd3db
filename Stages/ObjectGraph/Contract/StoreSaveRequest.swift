import Foundation

/// Everything one save writes, prepared by the context before the store's transaction starts, so the
/// transaction never calls back into the context.
struct StoreSaveRequest {
  struct Insert {
    let temporaryID: NSManagedObjectID
    let entity: NSEntityDescription
    /// One value per layout slot; to-one slots hold an `NSManagedObjectID?`, to-many slots a `Set<NSManagedObjectID>`.
    let values: [StoredValue]
  }

  struct Update {
    let id: NSManagedObjectID
    let entity: NSEntityDescription
    let expectedVersion: Int64
    /// The slots changed, with their new values.
    let changed: [Int: StoredValue]
    /// The same slots' values as last read (for merge policies that compare with the store).
    let original: [Int: StoredValue]
    /// All current values (for the overwrite policy).
    let allValues: [StoredValue]
  }

  struct Delete {
    let id: NSManagedObjectID
    let entity: NSEntityDescription
    let expectedVersion: Int64
  }

  var inserts: [Insert] = []
  var updates: [Update] = []
  var deletes: [Delete] = []
  /// How the store settles optimistic-locking conflicts.
  var mergePolicy: NSMergePolicyType = .errorMergePolicyType
  /// How the store settles uniqueness-constraint conflicts (the same as `mergePolicy`, except while a custom
  /// ``NSMergePolicy`` has one kind resolved and not yet the other).
  var constraintMergePolicy: NSMergePolicyType = .errorMergePolicyType
  /// Who saves, for persistent history: the context's transaction author and name.
  var author: String?
  var contextName: String?
  /// The saved objects themselves, for a store that needs them (``ObjectStore/savesNeedObjects``); `nil`
  /// otherwise.
  var savedObjects: SavedObjects?

  /// Nothing to write: the store is not asked at all.
  var isEmpty: Bool { inserts.isEmpty && updates.isEmpty && deletes.isEmpty }
}
