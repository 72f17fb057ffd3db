import Foundation

/// A request a context hands straight to the persistent store with
/// ``NSManagedObjectContext/execute(_:)``: the batch requests, which
/// change rows in SQL without making objects, history requests and asynchronous fetches.
///
/// Its `affectedStores` (Core Data's) is declared where stores are known, in the coordinator's layer.
public protocol NSPersistentStoreRequest: AnyObject {
  /// The kind of request (Core Data's `requestType`).
  var requestType: NSPersistentStoreRequestType { get }
}

/// A request that can be sent to some of the coordinator's stores only: it keeps the stores its
/// `affectedStores` names, as objects (this layer sits below the stores'; `affectedStores` is typed above).
protocol StoreSelecting: AnyObject {
  /// The stores named, `nil` for all.
  var storeSelection: [AnyObject]? { get set }
}

extension StoreSelecting {
  /// The identities of the stores named, as a plan carries them to the coordinator.
  var storeIdentities: [ObjectIdentifier]? { storeSelection?.map(ObjectIdentifier.init) }
}
