import Foundation
internal import Synchronization

/// A context's bookkeeping: which objects it knows and which of them changed. Touched only on the
/// context's queue (see `NSManagedObjectContext.isolated`), so it needs no lock.
///
/// The tables touched for every object are `@exclusivity(unchecked)`: only the context's queue touches
/// them, one access at a time, and the run-time exclusivity check costs more than the access itself.
final class Confined {
  /// One object per ID (uniquing).
  ///
  /// Core Data holds unchanged objects weakly: an object nobody references leaves its context. Swift weak
  /// references would put every object on the slow reference-counting path, so the registry holds them
  /// strongly and purges, from time to time, every unchanged object it alone references: as inserts and
  /// lookups by ID grow it (`register(_:)`), before each fetch registers its objects (`fetchWillRegister()`:
  /// the previous fetches' objects each time, everything as the registry grows), and when
  /// `registeredObjects` is read. Changed objects are kept by the change sets below until they are
  /// saved or rolled back. `retainsRegisteredObjects` turns purging off.
  @exclusivity(unchecked) var registry = ObjectRegistry()
  @exclusivity(unchecked) var inserted = InsertedObjects()
  var updated: Set<NSManagedObject> = []
  var deleted: Set<NSManagedObject> = []
  /// Objects `detectConflicts(for:)` marked: the next save checks their row versions even if unchanged.
  var conflictChecked: Set<NSManagedObject> = []
  /// How many objects-did-change notifications the context has posted: the current event's number, for
  /// `changedValuesForCurrentEvent()`.
  var eventNumber: UInt64 = 0
  /// Deleted objects whose delete rules have already been applied.
  var propagated: Set<ObjectIdentifier> = []
  /// Rows read ahead (prefetching) for objects not yet realised; a fault takes its row from here first,
  /// unless it is older than the context's staleness interval.
  var rowCache: [NSManagedObjectID: CachedRow] = [:]
  /// Temporary IDs this context has replaced with permanent ones at a save, for children that still use them.
  var aliases: [NSManagedObjectID: NSManagedObjectID] = [:]
  /// The same pairs, permanent to temporary.
  var reverseAliases: [NSManagedObjectID: NSManagedObjectID] = [:]
  /// What changed since the last objects-did-change notification: inserts from this position of
  /// `inserted` on, and these updated and deleted objects.
  var noticedInsertions = 0
  /// A main-queue context has asked the main queue to process pending changes after the current block.
  var processingScheduled = false
  var unnoticedUpdates: Set<NSManagedObject> = []
  var unnoticedDeletes: Set<NSManagedObject> = []
  /// Every inserted object objects-did-change has announced since the inserted list was last cleared (and
  /// any of them since deleted): a save reuses it as its did-save set when it holds exactly the objects
  /// still inserted, instead of building a second set of them (a parent announces a child's 100,000
  /// inserts during the child's save, and announces nothing new at its own).
  var announcedInserts: Set<NSManagedObject> = []
  /// A save is running `willSave()` hooks (see `NSManagedObjectContext.runWillSave`): every object changed
  /// meanwhile is noted in `changedDuringWillSave`, so that its hook runs (again) before the save writes.
  var runsWillSave = false
  var changedDuringWillSave: Set<NSManagedObject> = []
  /// Above zero while a merge or a child's save changes objects: nothing is recorded for undo.
  var undoSuppression = 0
  /// The registry size at which the next purge runs (doubling keeps purging linear overall).
  private var purgeThreshold = 4096
  /// The registry size at which a fetch purges before it registers its objects. Unlike `purgeThreshold`,
  /// fetches do not move it: it follows only what the last purge left, so a context that only fetches
  /// (and drops what it fetched) is purged as it grows.
  private var fetchPurgeThreshold = 4096
  /// `retainsRegisteredObjects`: when set, nothing is purged. Atomic, so the context's setter (callable from
  /// any queue, as Core Data's) needs no hop onto the queue.
  let retainsAll = Atomic<Bool>(false)
  /// The value of ``StoreRegistrationObservers/generation`` when the context last looked for stores that observe
  /// registrations (see `NSManagedObjectContext.syncStoreRegistrations(_:)`).
  var registrationGeneration = 0

  deinit {
    // The context is going away: the stores that were told of its objects hear that it lets go of them.
    registry.log?.noteAllUnregistered()
  }

  func register(_ object: NSManagedObject) {
    registry[object.objectID] = object
    // Changed objects are never purged, so only the unchanged ones count towards the next purge (a big
    // import registers 100,000 inserted objects and has nothing to purge).
    if unchangedCount >= purgeThreshold { purge() }
  }

  /// Registers an object a fetch is about to return, without purging: the fetch's caller holds its objects,
  /// so a purge in the middle of it would scan them all and free none. Call ``fetchDidRegister()`` after.
  func registerFetched(_ object: NSManagedObject, as identity: FetchedRow.Identity) {
    switch identity {
    case .id(let id): registry[id] = object
    case .row(let source, let primaryKey): registry[source, primaryKey] = object
    }
  }

  func registered(_ identity: FetchedRow.Identity) -> NSManagedObject? {
    switch identity {
    case .id(let id): registry[id]
    case .row(let source, let primaryKey): registry[source, primaryKey]
    }
  }

  /// Called before a fetch registers its objects. Purges the whole registry when it has grown past what
  /// the last purge left (twice that, at least 4096); otherwise looks only at the registry pages the
  /// fetches since the last look opened, and lets go of the objects there that their callers dropped. Paging through a
  /// large result, dropping each page, so holds the current page and no more, as Core Data's weak registry
  /// does, for a cost proportional to what those fetches registered (already paid once). The objects this
  /// fetch is about to return are not registered yet, so neither purge scans them.
  func fetchWillRegister() {
    if unchangedCount >= fetchPurgeThreshold {
      purge()
    } else if retainsAll.load(ordering: .relaxed) {
      registry.forgetRecordedPages()
    } else if registry.removeAll(inRecordedPagesWhere: { !$0.hasChanges }) > 0, !rowCache.isEmpty {
      rowCache = rowCache.filter { registry[$0.key] != nil }
    }
    registry.beginRecordingPages()
    registry.log?.beginBatch()
  }

  /// Moves the next purge of an insert or a lookup by ID past the objects a fetch just registered (see
  /// `registerFetched(_:as:)`): its caller holds them. The next fetch looks at them first (see
  /// ``fetchWillRegister()``) and still purges everything on its own threshold.
  func fetchDidRegister() {
    registry.endRecordingPages()
    registry.log?.endBatch()
    purgeThreshold = max(purgeThreshold, unchangedCount * 2)
  }

  /// How many objects are registered, without purging (for tests).
  var registeredCount: Int { registry.count }

  private var unchangedCount: Int { registry.count - inserted.count - updated.count - deleted.count }

  func registered(_ id: NSManagedObjectID) -> NSManagedObject? { registry[id] }

  /// Drops unchanged objects that only the registry still references.
  func purge() {
    registry.forgetRecordedPages()
    if !retainsAll.load(ordering: .relaxed) {
      registry.removeAll(unreferencedWhere: { object in !object.hasChanges })
      // Rows prefetched for faults that just left would otherwise wait for them forever.
      if !rowCache.isEmpty { rowCache = rowCache.filter { registry[$0.key] != nil } }
    }
    purgeThreshold = max(4096, unchangedCount * 2)
    fetchPurgeThreshold = purgeThreshold
  }

  var hasChanges: Bool { !inserted.isEmpty || !updated.isEmpty || !deleted.isEmpty }

  /// Forgets every inserted object (after a save, a rollback or a reset).
  func clearInserted() {
    inserted = InsertedObjects()
    noticedInsertions = 0
    announcedInserts = []
  }
}

/// A prefetched row waiting for its object's fault, with when it was read (for the staleness interval).
struct CachedRow {
  let snapshot: RowSnapshot
  /// `DispatchTime` uptime, in nanoseconds, when the store read the row.
  let readAt: UInt64
}
