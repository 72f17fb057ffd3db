import Foundation

/// What a context tells the stores that observe registrations (``StoreRegistrationObserver``: an
/// `NSIncrementalStore`) about their objects: which it registers and which it lets go of, in the manner of
/// reference counting, as Core Data's `managedObjectContextDidRegisterObjects(with:)` and
/// `managedObjectContextDidUnregisterObjects(with:)` do.
///
/// The context's ``ObjectRegistry`` holds one only while the context's coordinator has such a store, and
/// notes every permanent ID it gains or loses. Each ID is reported registered once and unregistered once
/// (``reported``), however often the registry sets it; temporary IDs are not reported (an inserted object is,
/// once it has its permanent ID). Notes are sent at once, or, inside ``batch(_:)`` (a fetch, a purge, a
/// reset), in one call per store at its end. Touched only on the context's queue.
final class StoreRegistrationLog {
  /// The observing stores of the context's coordinator, by the store number their IDs carry.
  private(set) var stores: [Int: any StoreRegistrationObserver]
  /// The IDs reported registered and not yet unregistered.
  private var reported: Set<NSManagedObjectID> = []
  private var registered: [NSManagedObjectID] = []
  private var unregistered: [NSManagedObjectID] = []
  /// Above zero inside ``batch(_:)``.
  private var deferring = 0

  init(stores: [any StoreRegistrationObserver]) {
    self.stores = Self.byNumber(stores)
  }

  private static func byNumber(_ stores: [any StoreRegistrationObserver]) -> [Int: any StoreRegistrationObserver] {
    Dictionary(stores.map { ($0.registrationStoreNumber, $0) }, uniquingKeysWith: { first, _ in first })
  }

  /// Replaces the observing stores (one was added or removed); IDs of a store no longer there are forgotten.
  func update(stores list: [any StoreRegistrationObserver]) {
    stores = Self.byNumber(list)
    reported = reported.filter(observes)
  }

  /// Whether `id` belongs to an observing store.
  func observes(_ id: NSManagedObjectID) -> Bool {
    guard case .permanent(let store, _, _) = id.key else { return false }
    return stores[store] != nil
  }

  /// Whether rows of store number `store` belong to an observing store.
  func observes(store: Int) -> Bool { stores[store] != nil }

  /// The registry gained (or set again) the object of `id`.
  func noteRegistered(_ id: NSManagedObjectID) {
    guard observes(id), reported.insert(id).inserted else { return }
    registered.append(id)
    if deferring == 0 { flush() }
  }

  /// The registry lost the object of `id`.
  func noteUnregistered(_ id: NSManagedObjectID) {
    guard !reported.isEmpty, reported.remove(id) != nil else { return }
    unregistered.append(id)
    if deferring == 0 { flush() }
  }

  /// Every reported ID is let go of (the registry was emptied, or the context is going away).
  func noteAllUnregistered() {
    guard !reported.isEmpty else { return }
    unregistered.append(contentsOf: reported)
    reported = []
    if deferring == 0 { flush() }
  }

  /// Runs `body`, sending what it notes at its end, one call per store and kind.
  func batch<T>(_ body: () throws -> T) rethrows -> T {
    beginBatch()
    defer { endBatch() }
    return try body()
  }

  /// Holds the notes from now on until the matching ``endBatch()`` (a fetch registers its objects between the two).
  func beginBatch() { deferring += 1 }

  /// Ends what ``beginBatch()`` began; the outermost end sends the notes.
  func endBatch() {
    guard deferring > 0 else { return }  // the log was made inside the batch
    deferring -= 1
    if deferring == 0 { flush() }
  }

  /// Sends the notes waiting: registrations first, so that a store never sees an ID let go of before it was
  /// registered.
  private func flush() {
    if !registered.isEmpty {
      let ids = registered
      registered = []
      send(ids) { $0.contextDidRegister($1) }
    }
    if !unregistered.isEmpty {
      let ids = unregistered
      unregistered = []
      send(ids) { $0.contextDidUnregister($1) }
    }
  }

  private func send(_ ids: [NSManagedObjectID], _ call: (any StoreRegistrationObserver, [NSManagedObjectID]) -> Void) {
    if stores.count == 1, let only = stores.first?.value {
      call(only, ids)
      return
    }
    var byStore: [Int: [NSManagedObjectID]] = [:]
    for id in ids {
      guard case .permanent(let store, _, _) = id.key else { continue }
      byStore[store, default: []].append(id)
    }
    for (number, group) in byStore.sorted(by: { $0.key < $1.key }) {
      if let store = stores[number] { call(store, group) }
    }
  }
}
