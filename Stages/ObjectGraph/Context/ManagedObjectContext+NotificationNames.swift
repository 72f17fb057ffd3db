import Foundation

extension Notification.Name {
  /// Core Data's name of ``NSManagedObjectContext/willSaveObjectsNotification``.
  public static let NSManagedObjectContextWillSave = NSManagedObjectContext.willSaveObjectsNotification
  /// Core Data's name of ``NSManagedObjectContext/didSaveObjectsNotification``.
  public static let NSManagedObjectContextDidSave = NSManagedObjectContext.didSaveObjectsNotification
  /// Core Data's name of ``NSManagedObjectContext/didSaveObjectIDsNotification``.
  public static let NSManagedObjectContextDidSaveObjectIDs = NSManagedObjectContext.didSaveObjectIDsNotification
  /// Core Data's name of ``NSManagedObjectContext/didChangeObjectsNotification``.
  public static let NSManagedObjectContextObjectsDidChange = NSManagedObjectContext.didChangeObjectsNotification
  /// Core Data's name of ``NSManagedObjectContext/didMergeChangesObjectIDsNotification``.
  public static let NSManagedObjectContextDidMergeChangesObjectIDs = NSManagedObjectContext.didMergeChangesObjectIDsNotification
}

/// The user-info key of the inserted objects of a context's did-save and did-change notifications (Core
/// Data's `NSInsertedObjectsKey`), the same as ``NSManagedObjectContext/NotificationKey/insertedObjects``.
public let NSInsertedObjectsKey = NSManagedObjectContext.NotificationKey.insertedObjects.rawValue
/// The user-info key of the updated objects (Core Data's `NSUpdatedObjectsKey`).
public let NSUpdatedObjectsKey = NSManagedObjectContext.NotificationKey.updatedObjects.rawValue
/// The user-info key of the deleted objects (Core Data's `NSDeletedObjectsKey`).
public let NSDeletedObjectsKey = NSManagedObjectContext.NotificationKey.deletedObjects.rawValue
/// The user-info key of the refreshed objects (Core Data's `NSRefreshedObjectsKey`).
public let NSRefreshedObjectsKey = NSManagedObjectContext.NotificationKey.refreshedObjects.rawValue
/// The user-info key of the objects invalidated by their store's removal (Core Data's
/// `NSInvalidatedObjectsKey`, `"invalidated"`), on an objects-did-change notification: see
/// ``NSPersistentStoreCoordinator/remove(_:)``.
public let NSInvalidatedObjectsKey = NSManagedObjectContext.NotificationKey.invalidatedObjects.rawValue
/// The user-info key that says every object was invalidated, by a reset (Core Data's
/// `NSInvalidatedAllObjectsKey`).
public let NSInvalidatedAllObjectsKey = NSManagedObjectContext.NotificationKey.invalidatedAllObjects.rawValue
/// The user-info key of the inserted objects' IDs (`Set<NSManagedObjectID>`, safe to pass to any queue) of a
/// did-save or did-save-object-IDs notification, and of the changes `mergeChanges(fromRemoteContextSave:into:)`
/// takes (Core Data's `NSInsertedObjectIDsKey`), the same as ``NSManagedObjectContext/NotificationKey/insertedObjectIDs``.
public let NSInsertedObjectIDsKey = NSManagedObjectContext.NotificationKey.insertedObjectIDs.rawValue
/// The user-info key of the updated objects' IDs (Core Data's `NSUpdatedObjectIDsKey`).
public let NSUpdatedObjectIDsKey = NSManagedObjectContext.NotificationKey.updatedObjectIDs.rawValue
/// The user-info key of the deleted objects' IDs (Core Data's `NSDeletedObjectIDsKey`).
public let NSDeletedObjectIDsKey = NSManagedObjectContext.NotificationKey.deletedObjectIDs.rawValue
/// The user-info key of the query generation token of a pinned context's did-save notifications (Core Data's
/// `NSManagedObjectContextQueryGenerationKey`), the same as
/// ``NSManagedObjectContext/NotificationKey/queryGeneration``.
public let NSManagedObjectContextQueryGenerationKey = NSManagedObjectContext.NotificationKey.queryGeneration.rawValue
/// The user-info key of the IDs of the objects a merge refreshed, on a did-merge-changes-object-IDs
/// notification (Core Data's `NSRefreshedObjectIDsKey`), the same as
/// ``NSManagedObjectContext/NotificationKey/refreshedObjectIDs``.
public let NSRefreshedObjectIDsKey = NSManagedObjectContext.NotificationKey.refreshedObjectIDs.rawValue
/// The user-info key of the IDs of objects invalidated by their store's removal (Core Data's
/// `NSInvalidatedObjectIDsKey`), the same as ``NSManagedObjectContext/NotificationKey/invalidatedObjectIDs``;
/// the engine reports a removal with the objects under ``NSInvalidatedObjectsKey`` and posts none under this
/// key.
public let NSInvalidatedObjectIDsKey = NSManagedObjectContext.NotificationKey.invalidatedObjectIDs.rawValue
