import Foundation

/// The state of a model description: freely changed until the model is frozen (when a coordinator first
/// uses it), read-only after, as Core Data's descriptions are.
///
/// It is `Sendable` because all access goes through its `Locked` storage; after freezing, writes are refused, so
/// the state that coordinators and contexts read from many threads never changes again.
final class Frozen<State>: @unchecked Sendable {
  private let storage: Locked<(state: State, isFrozen: Bool)>

  init(_ state: State) {
    storage = Locked((state, false))
  }

  func read<T>(_ keyPath: KeyPath<State, T>) -> T {
    read { $0[keyPath: keyPath] }
  }

  /// What `body` reads of the state, under the lock (for reads that must see several fields together).
  func read<T>(_ body: (State) -> T) -> T {
    storage.withLock { body($0.state) }
  }

  var value: State { storage.withLock { $0.state } }

  func write<T>(_ keyPath: WritableKeyPath<State, T>, _ newValue: T, what: @autoclosure () -> String) {
    mutate(what: what()) { $0[keyPath: keyPath] = newValue }
  }

  func mutate(what: @autoclosure () -> String, _ body: (inout State) -> Void) {
    let refused = storage.withLock { box -> Bool in
      guard !box.isFrozen else { return true }
      body(&box.state)
      return false
    }
    // The message is built outside the lock: it reads other descriptions' state. Changing a description
    // of a model in use is a programmer error Core Data also refuses ("Can't modify an immutable model"):
    // the store's tables were built from it.
    requireCorrectUse(
      !refused,
      "ObjectGraph: cannot change \(what()): its model is in use by a persistent store coordinator and is now immutable. Change descriptions before creating the coordinator."
    )
  }

  func freeze() { storage.withLock { $0.isFrozen = true } }
  var isFrozen: Bool { storage.withLock { $0.isFrozen } }
}
