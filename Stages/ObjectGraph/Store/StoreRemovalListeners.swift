/// What hears that a store left its coordinator: the contexts reading through the coordinator, which then
/// invalidate the objects they hold from that store (Core Data's `NSInvalidatedObjectsKey`).
protocol StoreRemovalListening: AnyObject, Sendable {
  /// `store` was removed from the coordinator. Called on the thread that removed it: do the work on your own
  /// queue.
  func persistentStoreWasRemoved(_ store: NSPersistentStore)
}

/// A coordinator's listeners, held weakly: a context that goes away stops listening without a word.
final class StoreRemovalListeners: Sendable {
  private struct Entry: Sendable {
    weak var listener: (any StoreRemovalListening)?
  }

  private let entries = Locked<[Entry]>([])

  /// Adds `listener`, once however often it is added, and forgets the listeners that have gone away.
  func add(_ listener: any StoreRemovalListening) {
    entries.withLock { entries in
      entries.removeAll { $0.listener == nil }
      guard !entries.contains(where: { $0.listener === listener }) else { return }
      entries.append(Entry(listener: listener))
    }
  }

  /// Tells every listener still there that `store` was removed, outside the lock.
  func tellRemoved(_ store: NSPersistentStore) {
    let listeners = entries.withLock { $0.compactMap(\.listener) }
    for listener in listeners { listener.persistentStoreWasRemoved(store) }
  }
}
