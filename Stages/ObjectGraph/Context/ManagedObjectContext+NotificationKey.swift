import Foundation

extension ManagedObjectContext {
  /// The keys of the user info of a context's notifications, as Core Data's
  /// `NSManagedObjectContext.NotificationKey`.
  ///
  /// ```swift
  /// let ids = notification.userInfo?[ManagedObjectContext.NotificationKey.insertedObjectIDs.rawValue]
  ///   as? Set<ManagedObjectID> ?? []
  /// ```
  ///
  /// The case names are Core Data's. The raw strings of the object-ID keys differ from Core Data's
  /// (`"insertedObjectIDs"` here, `"inserted_objectIDs"` there): use the constants, never the strings, and
  /// code ports either way.
  public enum NotificationKey: String, Sendable, CaseIterable {
    /// The inserted objects (`Set<ManagedObject>`), for observers on the posting context's queue:
    /// ``ManagedObjectContext/didSaveNotification`` and ``ManagedObjectContext/objectsDidChangeNotification``.
    case insertedObjects = "inserted"
    /// The updated objects (`Set<ManagedObject>`), on the same two notifications.
    case updatedObjects = "updated"
    /// The deleted objects (`Set<ManagedObject>`), on the same two notifications.
    case deletedObjects = "deleted"
    /// The objects turned back into faults or given new values by a refresh or a merge
    /// (`Set<ManagedObject>`), on ``ManagedObjectContext/objectsDidChangeNotification``.
    case refreshedObjects = "refreshed"
    /// `true` when ``ManagedObjectContext/reset()`` dropped every object, on
    /// ``ManagedObjectContext/objectsDidChangeNotification``.
    case invalidatedAllObjects = "invalidatedAll"
    /// The IDs of the inserted objects (`Set<ManagedObjectID>`), safe to pass to any queue: on
    /// ``ManagedObjectContext/didSaveNotification`` and ``ManagedObjectContext/didSaveObjectIDsNotification``.
    case insertedObjectIDs = "insertedObjectIDs"
    /// The IDs of the updated objects (`Set<ManagedObjectID>`), on the same two notifications.
    case updatedObjectIDs = "updatedObjectIDs"
    /// The IDs of the deleted objects (`Set<ManagedObjectID>`), on the same two notifications.
    case deletedObjectIDs = "deletedObjectIDs"
  }
}
