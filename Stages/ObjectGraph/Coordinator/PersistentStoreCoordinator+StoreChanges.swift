import Foundation

extension NSNotification.Name {
  /// Posted after stores are added to or removed from a coordinator (Core Data's
  /// `NSPersistentStoreCoordinatorStoresDidChange`). The `object` is the coordinator; the `userInfo` holds
  /// the stores added (``NSAddedPersistentStoresKey``) or removed (``NSRemovedPersistentStoresKey``), each an
  /// `[NSPersistentStore]`. The engine posts it on the thread that added or removed the store, once the
  /// change is made (Core Data posts it on an internal thread: in either case, move to your context's queue
  /// before touching a context).
  public static let NSPersistentStoreCoordinatorStoresDidChange = NSNotification.Name(
    "NSPersistentStoreCoordinatorStoresDidChangeNotification")
  /// Posted before stores are removed from a coordinator, with the stores under ``NSRemovedPersistentStoresKey``
  /// (Core Data's `NSPersistentStoreCoordinatorStoresWillChange`, which Core Data also posts before iCloud
  /// changes the stores; the engine posts it before a removal only, as a store being added does not exist
  /// before it is opened).
  public static let NSPersistentStoreCoordinatorStoresWillChange = NSNotification.Name(
    "NSPersistentStoreCoordinatorStoresWillChangeNotification")
  /// Posted before a store is removed from a coordinator; the `object` is the store (Core Data's
  /// `NSPersistentStoreCoordinatorWillRemoveStore`).
  public static let NSPersistentStoreCoordinatorWillRemoveStore = NSNotification.Name(
    "NSPersistentStoreCoordinatorWillRemoveStoreNotification")
}

/// The key of a stores-did-change notification's user info for the stores added, an `[NSPersistentStore]`
/// (Core Data's `NSAddedPersistentStoresKey`).
public let NSAddedPersistentStoresKey = "added"
/// The key of a stores-did-change notification's user info for the stores removed, an `[NSPersistentStore]`
/// (Core Data's `NSRemovedPersistentStoresKey`).
public let NSRemovedPersistentStoresKey = "removed"
/// The key of a stores-did-change notification's user info for a store whose identifier changed, with the
/// old and the new store (Core Data's `NSUUIDChangedPersistentStoresKey`). The engine never changes a store's
/// identifier, so it never posts this key.
public let NSUUIDChangedPersistentStoresKey = "changedUUID"

extension NSPersistentStoreCoordinator {
  /// Says that `store` was added.
  func postStoreAdded(_ store: NSPersistentStore) {
    NotificationCenter.default.post(
      name: .NSPersistentStoreCoordinatorStoresDidChange, object: self, userInfo: [NSAddedPersistentStoresKey: [store]])
  }

  /// Says that `store` is about to be removed.
  func postStoreWillBeRemoved(_ store: NSPersistentStore) {
    NotificationCenter.default.post(name: .NSPersistentStoreCoordinatorWillRemoveStore, object: store)
    NotificationCenter.default.post(
      name: .NSPersistentStoreCoordinatorStoresWillChange, object: self, userInfo: [NSRemovedPersistentStoresKey: [store]])
  }

  /// Says that `new` took `old`'s place (a store migrated or moved): one did-change with both.
  func postStoreReplaced(_ old: NSPersistentStore, by new: NSPersistentStore) {
    NotificationCenter.default.post(
      name: .NSPersistentStoreCoordinatorStoresDidChange, object: self,
      userInfo: [NSAddedPersistentStoresKey: [new], NSRemovedPersistentStoresKey: [old]])
  }

  /// Says that `store` was removed.
  func postStoreRemoved(_ store: NSPersistentStore) {
    NotificationCenter.default.post(
      name: .NSPersistentStoreCoordinatorStoresDidChange, object: self, userInfo: [NSRemovedPersistentStoresKey: [store]])
  }
}
