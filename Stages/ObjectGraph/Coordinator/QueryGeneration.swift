import Foundation

/// A query generation: the coordinator's stores as they were at one moment, which pinned contexts read
/// until they move on (see "Query generations" in Docs/ObjectGraph.md).
///
/// It holds, for each store the coordinator had when it was made, that store's ``StoreSnapshot`` (a SQLite
/// file in WAL mode) or none (any other store, read as it is at the time of each read). Stores added later are
/// not part of it, as in Core Data ("A generation doesn't include stores added to the store coordinator after
/// the generation's creation"); a store removed since is skipped.
///
/// Contexts pinned to it keep it alive (through their ``QueryGenerationPin``); a token does not. When the last
/// context moves on, the generation ends: its snapshots close and the write-ahead log can be checkpointed
/// again. ``NSQueryGenerationToken`` names a generation by ``number``, looked up in ``live``.
final class QueryGeneration: Sendable {
  /// The generation's number in this process, which its tokens carry.
  let number: UInt64
  /// The coordinator whose stores it covers (weak: a generation does not keep its coordinator alive).
  weak let coordinator: NSPersistentStoreCoordinator?
  /// Per store it covers (by identity), the store and its snapshot (`nil`: a store without snapshots).
  private let parts: Locked<[ObjectIdentifier: (store: NSPersistentStore, snapshot: StoreSnapshot?)]>
  /// The identifiers of the stores it covers, in the coordinator's order (for its tokens).
  let storeIdentifiers: [String]

  /// Makes a generation of `coordinator`'s stores as they are now. Call it with the coordinator's lock held.
  init(coordinator: NSPersistentStoreCoordinator, stores: [NSPersistentStore]) throws {
    var parts: [ObjectIdentifier: (store: NSPersistentStore, snapshot: StoreSnapshot?)] = [:]
    for store in stores { parts[ObjectIdentifier(store)] = (store, try store.makeSnapshot()) }
    self.parts = Locked(parts)
    self.coordinator = coordinator
    storeIdentifiers = stores.map(\.identifier)
    number = Self.live.withLock { table -> UInt64 in
      table.last += 1
      return table.last
    }
    Self.live.withLock { $0.generations[number] = Weak(self) }
  }

  deinit {
    Self.live.withLock { _ = $0.generations.removeValue(forKey: number) }
    for part in parts.withLock({ $0.values }) { part.snapshot?.close() }
  }

  /// Whether `store` is one of the stores the generation covers.
  func covers(_ store: NSPersistentStore) -> Bool {
    parts.withLock { $0[ObjectIdentifier(store)] != nil }
  }

  /// The snapshot to read `store` in (`nil`: read the store as it is now).
  func snapshot(of store: NSPersistentStore) -> StoreSnapshot? {
    parts.withLock { $0[ObjectIdentifier(store)]?.snapshot }
  }

  /// Whether any store of the generation is read from a snapshot (a SQLite file in WAL mode).
  var hasSnapshots: Bool { parts.withLock { $0.values.contains { $0.snapshot != nil } } }

  /// Closes the snapshot of a store leaving the coordinator, so its file is not held open by a generation
  /// that can no longer read it.
  func storeRemoved(_ store: NSPersistentStore) {
    let removed = parts.withLock { $0.removeValue(forKey: ObjectIdentifier(store)) }
    removed?.snapshot?.close()
  }

  // MARK: - The live generations

  /// A reference that does not keep its generation alive.
  struct Weak: Sendable {
    weak var generation: QueryGeneration?
    init(_ generation: QueryGeneration) { self.generation = generation }
  }

  /// The generations alive in this process, by number, and the last number given.
  static let live = Locked<(last: UInt64, generations: [UInt64: Weak])>((0, [:]))

  /// The live generation numbered `number`, or `nil` when it has ended.
  static func alive(_ number: UInt64) -> QueryGeneration? {
    live.withLock { $0.generations[number]?.generation }
  }

  /// Every live generation of `coordinator`.
  static func alive(of coordinator: NSPersistentStoreCoordinator) -> [QueryGeneration] {
    live.withLock { $0.generations.values.compactMap(\.generation) }.filter { $0.coordinator === coordinator }
  }
}
