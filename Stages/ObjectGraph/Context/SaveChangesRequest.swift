import Foundation

/// A request to save changes (Core Data's `NSSaveChangesRequest`): the objects a save inserts, updates,
/// deletes and locks (checks for conflicts without changing).
///
/// Core Data makes one when a context saves and hands it to its coordinator's stores; here you may send one
/// with ``NSPersistentStoreCoordinator/execute(_:with:)``, which saves the context's changes (see there).
public final class NSSaveChangesRequest: NSPersistentStoreRequest {
  /// The objects the save inserts (`nil`: none named).
  public let insertedObjects: Set<NSManagedObject>?
  /// The objects the save updates.
  public let updatedObjects: Set<NSManagedObject>?
  /// The objects the save deletes.
  public let deletedObjects: Set<NSManagedObject>?
  /// The objects whose stored versions the save checks without changing them (optimistic locking).
  public let lockedObjects: Set<NSManagedObject>?

  /// The kind of request: `.saveRequestType`.
  public var requestType: NSPersistentStoreRequestType { .saveRequestType }

  /// Makes a save request for the objects named (Core Data's `init(insertedObjects:updatedObjects:deletedObjects:lockedObjects:)`).
  public init(
    insertedObjects: Set<NSManagedObject>?, updatedObjects: Set<NSManagedObject>?, deletedObjects: Set<NSManagedObject>?,
    lockedObjects: Set<NSManagedObject>?
  ) {
    self.insertedObjects = insertedObjects
    self.updatedObjects = updatedObjects
    self.deletedObjects = deletedObjects
    self.lockedObjects = lockedObjects
  }

  /// The same, under Core Data's shorter Swift spelling (`init(inserted:updated:deleted:locked:)`).
  public convenience init(
    inserted insertedObjects: Set<NSManagedObject>?, updated updatedObjects: Set<NSManagedObject>?,
    deleted deletedObjects: Set<NSManagedObject>?, locked lockedObjects: Set<NSManagedObject>?
  ) {
    self.init(
      insertedObjects: insertedObjects, updatedObjects: updatedObjects, deletedObjects: deletedObjects, lockedObjects: lockedObjects)
  }
}
