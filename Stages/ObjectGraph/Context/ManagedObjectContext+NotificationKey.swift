import Foundation

extension NSManagedObjectContext {
  /// The keys of the user info of a context's notifications, as Core Data's
  /// `NSManagedObjectContext.NotificationKey`.
  ///
  /// ```swift
  /// let ids = notification.userInfo?[NSManagedObjectContext.NotificationKey.insertedObjectIDs.rawValue]
  ///   as? Set<NSManagedObjectID> ?? []
  /// ```
  ///
  /// The case names are Core Data's. The raw strings of the object-ID keys differ from Core Data's
  /// (`"insertedObjectIDs"` here, `"inserted_objectIDs"` there): use the constants, never the strings, and
  /// code ports either way.
  public enum NotificationKey: String, Sendable, CaseIterable {
    /// The inserted objects (`Set<NSManagedObject>`), for observers on the posting context's queue:
    /// ``NSManagedObjectContext/didSaveObjectsNotification`` and ``NSManagedObjectContext/didChangeObjectsNotification``.
    case insertedObjects = "inserted"
    /// The updated objects (`Set<NSManagedObject>`), on the same two notifications.
    case updatedObjects = "updated"
    /// The deleted objects (`Set<NSManagedObject>`), on the same two notifications.
    case deletedObjects = "deleted"
    /// The objects turned back into faults or given new values by a refresh or a merge
    /// (`Set<NSManagedObject>`), on ``NSManagedObjectContext/didChangeObjectsNotification``.
    case refreshedObjects = "refreshed"
    /// `true` when ``NSManagedObjectContext/reset()`` dropped every object, on
    /// ``NSManagedObjectContext/didChangeObjectsNotification``.
    case invalidatedAllObjects = "invalidatedAll"
    /// The IDs of the inserted objects (`Set<NSManagedObjectID>`), safe to pass to any queue: on
    /// ``NSManagedObjectContext/didSaveObjectsNotification`` and ``NSManagedObjectContext/didSaveObjectIDsNotification``.
    case insertedObjectIDs = "insertedObjectIDs"
    /// The IDs of the updated objects (`Set<NSManagedObjectID>`), on the same two notifications.
    case updatedObjectIDs = "updatedObjectIDs"
    /// The IDs of the deleted objects (`Set<NSManagedObjectID>`), on the same two notifications.
    case deletedObjectIDs = "deletedObjectIDs"
    /// The IDs of the objects a merge refreshed (`Set<NSManagedObjectID>`), on
    /// ``NSManagedObjectContext/didMergeChangesObjectIDsNotification``.
    case refreshedObjectIDs = "refreshedObjectIDs"
    /// The IDs of objects invalidated by their store's removal (`Set<NSManagedObjectID>`), a key of Core Data's
    /// object-ID notifications. The engine reports a removal on ``NSManagedObjectContext/didChangeObjectsNotification``
    /// only, with the objects under ``invalidatedObjects``, so it posts none under this key.
    case invalidatedObjectIDs = "invalidatedObjectIDs"
    /// The objects invalidated by their store's removal (`Set<NSManagedObject>`, `NSInvalidatedObjectsKey`), on
    /// ``NSManagedObjectContext/didChangeObjectsNotification``: see
    /// ``NSPersistentStoreCoordinator/remove(_:)``.
    case invalidatedObjects = "invalidated"
    /// The ``NSQueryGenerationToken`` of the generation a pinned context moved to with its save, on the same
    /// two notifications (absent when the saving context is not pinned). See "Query generations".
    case queryGeneration = "queryGeneration"
  }
}
