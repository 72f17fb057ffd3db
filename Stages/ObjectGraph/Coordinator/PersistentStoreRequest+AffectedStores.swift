import Foundation

extension NSPersistentStoreRequest {
  /// The stores the request goes to (Core Data's `affectedStores`): `nil`, the default, for every store of the
  /// coordinator that holds the request's entity (that tracks history, for a history request; an asynchronous
  /// fetch's are its fetch request's). A batch insert goes to the first store named that holds the entity.
  /// Naming a store that is not the coordinator's is refused (134070) when the request runs.
  public var affectedStores: [NSPersistentStore]? {
    get { (self as? any StoreSelecting)?.storeSelection?.compactMap { $0 as? NSPersistentStore } }
    set { (self as? any StoreSelecting)?.storeSelection = newValue }
  }
}

extension NSFetchRequest {
  /// The stores the fetch reads (Core Data's `affectedStores`); `nil`, the default, for every store of the
  /// coordinator that holds the entity. Objects inserted and not yet saved count as in the first store that
  /// holds their entity, where a save puts them. Naming a store that is not the coordinator's is refused
  /// (134070) when the fetch runs.
  public var affectedStores: [NSPersistentStore]? {
    get { storeSelection?.compactMap { $0 as? NSPersistentStore } }
    set { storeSelection = newValue }
  }
}
