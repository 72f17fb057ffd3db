import Foundation

/// The IDs of one batched fetch: when one of its faults fires, the values of its whole batch are read in
/// one query (``NSFetchRequest/fetchBatchSize``).
final class FaultBatch {
  let ids: [NSManagedObjectID]
  let size: Int
  /// The fetch's `relationshipKeyPathsForPrefetching`: when a batch is read, its objects' relationships
  /// along these paths are read with it, as Core Data does for batched fetches.
  let prefetchKeyPaths: [String]
  private let positions: [NSManagedObjectID: Int]

  init(ids: [NSManagedObjectID], size: Int, prefetchKeyPaths: [String] = []) {
    self.ids = ids
    self.size = max(1, size)
    self.prefetchKeyPaths = prefetchKeyPaths
    positions = Dictionary(ids.enumerated().map { ($1, $0) }, uniquingKeysWith: { a, _ in a })
  }

  func ids(around id: NSManagedObjectID) -> [NSManagedObjectID] {
    guard let position = positions[id] else { return [id] }
    let start = position / size * size
    return Array(ids[start..<min(start + size, ids.count)])
  }
}
