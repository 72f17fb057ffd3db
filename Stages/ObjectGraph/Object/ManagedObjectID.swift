import Foundation

/// The identity of a managed object, the one thing that may travel between contexts and queues.
///
/// An object inserted in a context has a *temporary* ID (``isTemporaryID`` is `true`) until a save to the
/// store gives it a permanent one (or ``ManagedObjectContext/obtainPermanentIDs(for:)`` does). Permanent
/// IDs survive relaunches; their ``uriRepresentation()`` can be stored and turned back into an ID with
/// ``PersistentStoreCoordinator/managedObjectID(forURIRepresentation:)``.
///
/// ```swift
/// let id = note.objectID                         // safe to read on any queue
/// background.perform {
///   let same = try? background.existingObject(with: id)
/// }
/// ```
public final class ManagedObjectID: Hashable, Sendable, CustomStringConvertible {
  enum Key: Hashable, Sendable {
    case permanent(storeIdentifier: String, rootEntityName: String, primaryKey: Int64)
    case temporary(UUID)
  }

  /// The entity of the object this ID names.
  public let entity: EntityDescription
  let key: Key

  init(entity: EntityDescription, key: Key) {
    self.entity = entity
    self.key = key
  }

  static func temporary(for entity: EntityDescription) -> ManagedObjectID {
    ManagedObjectID(entity: entity, key: .temporary(UUID()))
  }

  /// The name of the object's entity.
  public var entityName: String { entity.name }

  /// Whether this ID is temporary: the object was inserted and has not yet been saved to a store.
  public var isTemporaryID: Bool {
    if case .temporary = key { true } else { false }
  }

  /// The identifier of the store holding the object (`nil` while the ID is temporary).
  public var storeIdentifier: String? {
    if case .permanent(let store, _, _) = key { store } else { nil }
  }

  /// The row's primary key (`Z_PK`) in its table (`nil` while the ID is temporary).
  public var primaryKey: Int64? {
    if case .permanent(_, _, let pk) = key { pk } else { nil }
  }

  /// A URL naming the object, in Core Data's form: `x-coredata://<store UUID>/<Entity>/p<Z_PK>` for a
  /// permanent ID, `x-coredata:///<Entity>/t<UUID>` for a temporary one.
  public func uriRepresentation() -> URL {
    let text: String
    switch key {
    case .permanent(let store, _, let pk):
      text = "x-coredata://\(store)/\(entity.name)/p\(pk)"
    case .temporary(let uuid):
      text = "x-coredata:///\(entity.name)/t\(uuid.uuidString)"
    }
    // The pieces are a UUID string, an entity name checked by the model and a number: always a valid
    // URL unless the entity name has characters URLs refuse, which percent-encoding fixes.
    return URL(string: text)
      ?? URL(string: text.addingPercentEncoding(withAllowedCharacters: .urlPathAllowed) ?? "x-coredata:///invalid")
      ?? URL(fileURLWithPath: "/")
  }

  public static func == (lhs: ManagedObjectID, rhs: ManagedObjectID) -> Bool {
    lhs === rhs || lhs.key == rhs.key
  }

  public func hash(into hasher: inout Hasher) {
    hasher.combine(key)
  }

  public var description: String { "<\(uriRepresentation().absoluteString)>" }
}
