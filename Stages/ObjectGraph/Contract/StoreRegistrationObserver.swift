import Foundation
internal import Synchronization

/// A store that wants to hear which of its objects contexts register and let go of (an `NSIncrementalStore`:
/// Core Data's `managedObjectContextDidRegisterObjects(with:)` and `…DidUnregisterObjects(with:)`).
///
/// A context tells it through ``StoreRegistrationLog``, which it keeps only while its coordinator holds such
/// a store: every other context pays one test of a `nil` reference per registration.
protocol StoreRegistrationObserver: AnyObject, Sendable {
  /// The store number its objects' permanent IDs carry (`NSManagedObjectID.Key.permanent(store:…)`).
  var registrationStoreNumber: Int { get }
  /// A context registered these objects of the store (each once until it lets go of it).
  func contextDidRegister(_ ids: [NSManagedObjectID])
  /// A context let go of these objects of the store, each registered before.
  func contextDidUnregister(_ ids: [NSManagedObjectID])
}

/// How often stores that observe registrations were added to or removed from a coordinator, in this process.
/// A context compares it with the value it last saw to know when to look at its coordinator's stores again;
/// while it stays 0 (no such store was ever added), nothing else is done.
enum StoreRegistrationObservers {
  static let generation = Atomic<Int>(0)

  /// Records that a store observing registrations was added or removed.
  static func storesChanged() { generation.add(1, ordering: .relaxed) }
}
