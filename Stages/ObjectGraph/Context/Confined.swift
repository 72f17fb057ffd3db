import Foundation

/// A context's bookkeeping: which objects it knows and which of them changed. Touched only on the
/// context's queue (see `ManagedObjectContext.isolated`), so it needs no lock.
final class Confined {
  /// One object per ID (uniquing).
  ///
  /// Core Data holds unchanged objects weakly: an object nobody references leaves its context. Swift weak
  /// references would put every object on the slow reference-counting path, so the registry holds them
  /// strongly and purges, from time to time, every unchanged object it alone references. Changed objects
  /// are kept by the change sets below until they are saved or rolled back.
  var registry: [ManagedObjectID: ManagedObject] = [:]
  var inserted: [ObjectIdentifier: (order: Int, object: ManagedObject)] = [:]
  var insertionCounter = 0
  var updated: Set<ManagedObject> = []
  var deleted: Set<ManagedObject> = []
  /// Deleted objects whose delete rules have already been applied.
  var propagated: Set<ObjectIdentifier> = []
  /// Rows read ahead (prefetching) for objects not yet realised; a fault takes its row from here first.
  var rowCache: [ManagedObjectID: RowSnapshot] = [:]
  /// Temporary IDs this context has replaced with permanent ones at a save, for children that still use them.
  var aliases: [ManagedObjectID: ManagedObjectID] = [:]
  /// The same pairs, permanent to temporary.
  var reverseAliases: [ManagedObjectID: ManagedObjectID] = [:]
  /// What changed since the last objects-did-change notification: inserts after this insertion number,
  /// and these updated and deleted objects.
  var noticedInsertions = 0
  /// A main-queue context has asked the main queue to process pending changes after the current block.
  var processingScheduled = false
  var unnoticedUpdates: Set<ManagedObject> = []
  var unnoticedDeletes: Set<ManagedObject> = []
  /// The registry size at which the next purge runs (doubling keeps purging linear overall).
  private var purgeThreshold = 4096

  func register(_ object: ManagedObject) {
    registry[object.objectID] = object
    if registry.count >= purgeThreshold { purge() }
  }

  func registered(_ id: ManagedObjectID) -> ManagedObject? { registry[id] }

  /// Drops unchanged objects that only the registry still references.
  func purge() {
    var unreferenced: [ManagedObjectID] = []
    for index in registry.indices {
      guard isKnownUniquelyReferenced(&registry.values[index]) else { continue }
      let object = registry.values[index]
      if !object.hasChanges { unreferenced.append(registry.keys[index]) }
    }
    for id in unreferenced { registry[id] = nil }
    purgeThreshold = max(4096, registry.count * 2)
  }

  var insertedInOrder: [ManagedObject] { inserted.values.sorted { $0.order < $1.order }.map(\.object) }

  var hasChanges: Bool { !inserted.isEmpty || !updated.isEmpty || !deleted.isEmpty }
}
