import Foundation

/// The reference objects a store of the app's own names its objects by (its own keys: strings, numbers,
/// UUIDs), and the object IDs made for them: what `NSAtomicStore` and `NSIncrementalStore` share. It is not
/// locked: each store keeps it under its own lock.
struct StoreReferences {
  /// An entity and a reference object.
  struct Key: Hashable {
    let entity: ObjectIdentifier
    let reference: AnyHashable
  }

  /// Each object's reference object, by object ID.
  private var referencesByID: [NSManagedObjectID: AnyHashable] = [:]
  /// The object IDs made for reference objects, by entity and reference object.
  private var idsByKey: [Key: NSManagedObjectID] = [:]

  /// The ID of the object of `entity` that `data` names: the one made before for them, or a new one from
  /// `reserve`. `method` names the caller in the message of a programmer error: a reference object that is
  /// not `Hashable`, or an ID that cannot be reserved (an entity the store does not hold).
  mutating func id(
    for entity: NSEntityDescription, reference data: Any, method: String, reserve: () throws -> NSManagedObjectID
  ) -> NSManagedObjectID {
    guard let reference = data as? AnyHashable else {
      programmerError("\(method): the reference object \(data) is not Hashable. Use a string, a number or a UUID.")
    }
    let key = Key(entity: ObjectIdentifier(entity), reference: reference)
    if let known = idsByKey[key] { return known }
    let id: NSManagedObjectID
    do {
      id = try reserve()
    } catch {
      programmerError("\(method): \(error.localizedDescription)")
    }
    insert(id, key)
    return id
  }

  /// The reference object of `id`; `NSNull` for an ID the store did not make.
  func reference(for id: NSManagedObjectID) -> Any { referencesByID[id]?.base ?? NSNull() }

  /// Records that `id` names `key`'s reference object.
  mutating func insert(_ id: NSManagedObjectID, _ key: Key) {
    referencesByID[id] = key.reference
    idsByKey[key] = id
  }

  /// Forgets what ``insert(_:_:)`` recorded.
  mutating func remove(_ id: NSManagedObjectID, _ key: Key) {
    referencesByID[id] = nil
    idsByKey[key] = nil
  }
}
