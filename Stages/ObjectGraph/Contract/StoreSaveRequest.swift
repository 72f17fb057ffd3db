import Foundation

/// Everything one save writes, prepared by the context before the store's transaction starts, so the
/// transaction never calls back into the context.
struct StoreSaveRequest {
  struct Insert {
    let temporaryID: ManagedObjectID
    let entity: EntityDescription
    /// One value per layout slot; to-one slots hold a `ManagedObjectID?`, to-many slots a `Set<ManagedObjectID>`.
    let values: [StoredValue]
  }

  struct Update {
    let id: ManagedObjectID
    let entity: EntityDescription
    let expectedVersion: Int64
    /// The slots changed, with their new values.
    let changed: [Int: StoredValue]
    /// The same slots' values as last read (for merge policies that compare with the store).
    let original: [Int: StoredValue]
    /// All current values (for the overwrite policy).
    let allValues: [StoredValue]
  }

  struct Delete {
    let id: ManagedObjectID
    let entity: EntityDescription
    let expectedVersion: Int64
  }

  var inserts: [Insert] = []
  var updates: [Update] = []
  var deletes: [Delete] = []
  /// How the store settles optimistic-locking conflicts.
  var mergePolicy: MergePolicyType = .errorMergePolicyType
  /// How the store settles uniqueness-constraint conflicts (the same as `mergePolicy`, except while a custom
  /// ``MergePolicy`` has one kind resolved and not yet the other).
  var constraintMergePolicy: MergePolicyType = .errorMergePolicyType
  /// Who saves, for persistent history: the context's transaction author and name.
  var author: String?
  var contextName: String?

  /// Nothing to write: the store is not asked at all.
  var isEmpty: Bool { inserts.isEmpty && updates.isEmpty && deletes.isEmpty }
}
