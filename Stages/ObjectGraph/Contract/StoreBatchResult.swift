import Foundation

/// What a batch update or delete did: how many rows it changed or deleted, and their IDs when the
/// request needs them.
struct StoreBatchResult {
  var count: Int
  var ids: [NSManagedObjectID]

  init(count: Int, ids: [NSManagedObjectID]) {
    self.count = count
    self.ids = ids
  }

  init(ids: [NSManagedObjectID]) { self.init(count: ids.count, ids: ids) }

  /// The results of several stores, one after the other.
  mutating func append(_ other: StoreBatchResult) {
    count += other.count
    ids += other.ids
  }
}
