import Foundation
internal import Synchronization

extension NSManagedObjectContext {
  /// Keeps the registry's ``StoreRegistrationLog`` in line with the stores of the context's coordinator: made
  /// when it gains a store that observes registrations (an `NSIncrementalStore`), told of the objects the
  /// context already holds, and dropped when no such store is left. Costs one atomic read when no store was
  /// added or removed since the last call (and nothing more in a process that never added one). Called where
  /// objects of a store are registered: before a fetch, `object(with:)`, `existingObject(with:)` and
  /// `obtainPermanentIDs(for:)`.
  func syncStoreRegistrations(_ confined: Confined) {
    let generation = StoreRegistrationObservers.generation.load(ordering: .relaxed)
    guard generation != confined.registrationGeneration else { return }
    confined.registrationGeneration = generation
    let stores = (persistentStoreCoordinator?.persistentStores ?? []).compactMap { $0 as? any StoreRegistrationObserver }
    guard !stores.isEmpty else {
      confined.registry.log = nil
      return
    }
    if let log = confined.registry.log {
      log.update(stores: stores)
    } else {
      confined.registry.log = StoreRegistrationLog(stores: stores)
    }
    guard let log = confined.registry.log else { return }
    // Objects registered before the store was there (or before this context looked) are reported now, so
    // that each one let go of later was reported registered first.
    log.batch {
      for object in confined.registry.objects { log.noteRegistered(object.objectID) }
    }
  }
}
