import Foundation

/// A context's bookkeeping: which objects it knows and which of them changed. Touched only on the
/// context's queue (see `ManagedObjectContext.isolated`), so it needs no lock.
final class Confined {
  /// One object per ID (uniquing). Unchanged objects are held weakly, as in Core Data: an object nobody
  /// references any more leaves the context; changed objects are also held strongly by the sets below.
  var registry: [ManagedObjectID: WeakObject] = [:]
  var inserted: [ObjectIdentifier: (order: Int, object: ManagedObject)] = [:]
  var insertionCounter = 0
  var updated: Set<ManagedObject> = []
  var deleted: Set<ManagedObject> = []
  /// Deleted objects whose delete rules have already been applied.
  var propagated: Set<ObjectIdentifier> = []
  /// Rows read ahead (prefetching) for objects not yet realised; a fault takes its row from here first.
  var rowCache: [ManagedObjectID: RowSnapshot] = [:]
  private var registrationsSinceSweep = 0

  struct WeakObject {
    weak var object: ManagedObject?
  }

  func register(_ object: ManagedObject) {
    registry[object.objectID] = WeakObject(object: object)
    registrationsSinceSweep += 1
    if registrationsSinceSweep > 4096 && registrationsSinceSweep > registry.count {
      registry = registry.filter { $0.value.object != nil }
      registrationsSinceSweep = 0
    }
  }

  func registered(_ id: ManagedObjectID) -> ManagedObject? { registry[id]?.object }

  var insertedInOrder: [ManagedObject] { inserted.values.sorted { $0.order < $1.order }.map(\.object) }

  var hasChanges: Bool { !inserted.isEmpty || !updated.isEmpty || !deleted.isEmpty }
}
