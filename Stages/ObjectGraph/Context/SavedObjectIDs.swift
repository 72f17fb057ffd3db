import Foundation

/// The object IDs a save reported, taken out of a did-save notification so they can cross queues
/// (`Notification` and its objects cannot; these sets of IDs can).
public struct SavedObjectIDs: Sendable {
  /// IDs of the objects the save inserted.
  public let inserted: Set<NSManagedObjectID>
  /// IDs of the objects the save updated.
  public let updated: Set<NSManagedObjectID>
  /// IDs of the objects the save deleted.
  public let deleted: Set<NSManagedObjectID>

  /// Reads the IDs from a did-save or did-save-object-IDs notification.
  public init(_ notification: Notification) {
    self.init(userInfo: notification.userInfo ?? [:])
  }

  /// Reads the IDs from a did-save notification's user info, or a dictionary of the same shape: sets or
  /// arrays of IDs (or of objects) under the ID keys and the object keys of
  /// ``NSManagedObjectContext/NotificationKey``.
  init(userInfo: [AnyHashable: Any]) {
    typealias Key = NSManagedObjectContext.NotificationKey
    // The IDs when they are there (a did-save notification holds both), else the objects' IDs.
    func ids(_ idKey: Key, _ objectKey: Key) -> Set<NSManagedObjectID> {
      switch userInfo[idKey.rawValue] ?? userInfo[objectKey.rawValue] {
      case let set as Set<NSManagedObjectID>: set
      case let array as [NSManagedObjectID]: Set(array)
      case let objects as Set<NSManagedObject>: Set(objects.map(\.objectID))
      case let objects as [NSManagedObject]: Set(objects.map(\.objectID))
      default: []
      }
    }
    inserted = ids(.insertedObjectIDs, .insertedObjects)
    updated = ids(.updatedObjectIDs, .updatedObjects)
    deleted = ids(.deletedObjectIDs, .deletedObjects)
  }

  /// Makes a set of saved IDs directly.
  public init(inserted: Set<NSManagedObjectID> = [], updated: Set<NSManagedObjectID> = [], deleted: Set<NSManagedObjectID> = []) {
    self.inserted = inserted
    self.updated = updated
    self.deleted = deleted
  }
}
