import Foundation

/// What a context reads from and saves into: the coordinator (for a root context) or its parent context
/// (for a nested one). A child context sees its parent exactly as a root context sees the store: rows
/// with IDs and values, and a save that takes a batch of inserts, updates and deletes.
protocol ObjectStore: AnyObject, Sendable {
  /// Whether anything can be read or saved (a coordinator with no store cannot).
  var canServeRequests: Bool { get }
  /// Whether results come from several stores (then the context orders and cuts them itself).
  var spansSeveralStores: Bool { get }
  func fetch(_ plan: StoreFetchPlan) throws -> [FetchedRow]
  /// The same rows, handed to `body` one by one as they are read, where the store can (a coordinator
  /// with one store holding the entity); others hand over the whole array's rows.
  ///
  /// `body` runs while the store is being read, with the coordinator's lock held: it must not call back
  /// into the context's public API, the coordinator or the store.
  func fetch(_ plan: StoreFetchPlan, each body: (FetchedRow) -> Void) throws
  func count(_ plan: StoreFetchPlan) throws -> Int
  /// The rows of a dictionary fetch, as the persistent store holds them (no context's unsaved changes).
  func fetchDictionaries(_ plan: StoreDictionaryPlan) throws -> StoreDictionaryRows
  func snapshots(for ids: [NSManagedObjectID]) throws -> [NSManagedObjectID: RowSnapshot]
  func relatedIDs(of ids: [NSManagedObjectID], slot: EntityLayout.Slot, entity: NSEntityDescription) throws
    -> [NSManagedObjectID: [NSManagedObjectID]]
  /// Permanent IDs for objects known by temporary IDs, in the same order: the ID a store already gave an
  /// object (a parent context that has saved it), or a newly reserved one.
  func obtainPermanentIDs(for objects: [(id: NSManagedObjectID, entity: NSEntityDescription)]) throws -> [NSManagedObjectID]
  func save(_ request: StoreSaveRequest) throws -> StoreSaveResult
  /// Whether a save must come with the saved objects (``StoreSaveRequest/savedObjects``) and with permanent
  /// IDs for its inserted objects obtained first: a coordinator with an `NSAtomicStore` subclass added.
  var savesNeedObjects: Bool { get }
  /// Whether a save's optimistic-locking conflicts must be settled in memory, by the merge policy's
  /// `resolve(optimisticLockingConflicts:)`, before the save is tried again: a coordinator with a store that
  /// checks versions without SQL (an `NSIncrementalStore` subclass). The other stores settle a built-in
  /// policy in their transaction.
  var settlesConflictsInMemory: Bool { get }
}

extension ObjectStore {
  var savesNeedObjects: Bool { false }
  var settlesConflictsInMemory: Bool { false }

  func fetch(_ plan: StoreFetchPlan, each body: (FetchedRow) -> Void) throws {
    for row in try fetch(plan) { body(row) }
  }
}
