import Foundation
internal import Synchronization

/// The identity of a managed object, the one thing that may travel between contexts and queues.
///
/// An object inserted in a context has a *temporary* ID (``isTemporaryID`` is `true`) until a save to the
/// store gives it a permanent one (or ``NSManagedObjectContext/obtainPermanentIDs(for:)`` does). Permanent
/// IDs survive relaunches; their ``uriRepresentation()`` can be stored and turned back into an ID with
/// ``NSPersistentStoreCoordinator/managedObjectID(forURIRepresentation:)``.
///
/// ```swift
/// let id = note.objectID                         // safe to read on any queue
/// background.perform {
///   let same = try? background.existingObject(with: id)
/// }
/// ```
public final class NSManagedObjectID: Hashable, Sendable, CustomStringConvertible {
  /// What makes two IDs equal. Small integers, so IDs hash fast: a permanent ID is a store (numbered in
  /// this process), a table (its root entity's number) and a primary key; a temporary ID is a number
  /// unique in this process.
  enum Key: Hashable, Sendable {
    case permanent(store: Int, table: Int64, primaryKey: Int64)
    case temporary(UInt64)
  }

  /// The entity of the object this ID names.
  public let entity: NSEntityDescription
  /// The identifier of the store holding the object (`nil` while the ID is temporary).
  public let storeIdentifier: String?
  let key: Key
  /// The key's hash, worked out once: IDs are hashed again and again (registries, sets of related IDs).
  let keyHash: Int

  init(entity: NSEntityDescription, key: Key, storeIdentifier: String?) {
    self.entity = entity
    self.key = key
    self.storeIdentifier = storeIdentifier
    keyHash = Self.mix(key)
  }

  /// A well-spread hash of the key's integers (a SplitMix64 finalizer), much cheaper than running
  /// `Hasher` over the enum. It is not the last word: sets and dictionaries feed it to their own seeded
  /// `Hasher` (``hash(into:)``), except the context's registry, which seeds it itself.
  private static func mix(_ key: Key) -> Int {
    switch key {
    case .permanent(let store, let table, let primaryKey):
      SplitMix.mix(
        UInt64(bitPattern: primaryKey) ^ (UInt64(truncatingIfNeeded: table) << 40) ^ (UInt64(truncatingIfNeeded: store) << 56))
    case .temporary(let number):
      SplitMix.mix(number ^ 0x8000_0000_0000_0000)
    }
  }

  private static let temporaryCounter = Atomic<UInt64>(0)
  /// Distinguishes this process's temporary IDs from another's in URIs.
  private static let processToken = UUID().uuidString

  static func temporary(for entity: NSEntityDescription) -> NSManagedObjectID {
    let number = temporaryCounter.wrappingAdd(1, ordering: .relaxed).newValue
    return NSManagedObjectID(entity: entity, key: .temporary(number), storeIdentifier: nil)
  }

  /// The name of the object's entity.
  public var entityName: String { entity.entityName }

  /// The store and table a permanent ID's row lives in, for grouping IDs into one query per table.
  var storeAndTable: StoreTable? {
    if case .permanent(let store, let table, _) = key { StoreTable(store: store, table: table) } else { nil }
  }

  struct StoreTable: Hashable {
    let store: Int
    let table: Int64
  }

  /// Whether this ID is temporary: the object was inserted and has not yet been saved to a store.
  public var isTemporaryID: Bool {
    if case .temporary = key { true } else { false }
  }

  /// The row's primary key (`Z_PK`) in its table (`nil` while the ID is temporary).
  public var primaryKey: Int64? {
    if case .permanent(_, _, let primaryKey) = key { primaryKey } else { nil }
  }

  /// A URL naming the object, in Core Data's form: `x-coredata://<store UUID>/<Entity>/p<Z_PK>` for a
  /// permanent ID, `x-coredata:///<Entity>/t<UUID>` for a temporary one.
  public func uriRepresentation() -> URL {
    let text: String
    switch key {
    case .permanent(_, _, let primaryKey):
      text = "x-coredata://\(storeIdentifier ?? "")/\(entity.entityName)/p\(primaryKey)"
    case .temporary(let number):
      text = "x-coredata:///\(entity.entityName)/t\(Self.processToken)-\(number)"
    }
    // The pieces are a UUID string, an entity name checked by the model and a number: always a valid
    // URL unless the entity name has characters URLs refuse, which percent-encoding fixes.
    return URL(string: text)
      ?? URL(string: text.addingPercentEncoding(withAllowedCharacters: .urlPathAllowed) ?? "x-coredata:///invalid")
      ?? URL(fileURLWithPath: "/")
  }

  public static func == (lhs: NSManagedObjectID, rhs: NSManagedObjectID) -> Bool {
    lhs === rhs || (lhs.keyHash == rhs.keyHash && lhs.key == rhs.key)
  }

  public func hash(into hasher: inout Hasher) {
    hasher.combine(keyHash)
  }

  /// What sets and dictionaries call to place an ID: its key's hash, worked out once, mixed with the
  /// table's seed (``SplitMix``) instead of a full `Hasher` run (a save's set of 100,000 inserted IDs).
  public func _rawHashValue(seed: Int) -> Int {
    SplitMix.mix(UInt64(bitPattern: Int64(keyHash ^ seed)))
  }

  public var description: String { "<\(uriRepresentation().absoluteString)>" }
}
