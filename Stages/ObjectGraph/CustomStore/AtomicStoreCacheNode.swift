import Foundation

/// One object's record in an ``NSAtomicStore`` (Core Data's `NSAtomicStoreCacheNode`): its object ID and its
/// property values, by property name.
///
/// An attribute's value is the attribute's Swift value; a to-one relationship's is the destination's cache
/// node, a to-many's a `Set<NSAtomicStoreCacheNode>` (an ordered one's an array or `NSOrderedSet` of nodes),
/// as Core Data documents. Nodes are equal only to themselves.
///
/// A store's nodes are read and changed by the engine with the coordinator's lock held (during `load()`, a
/// save, and the store's `save()`); code of yours that touches them elsewhere must not race with a save.
open class NSAtomicStoreCacheNode: Hashable {
  /// The ID of the object the node records.
  public let objectID: NSManagedObjectID
  /// The node's values by property name (Core Data's `propertyCache`); `nil` until a value is set.
  open var propertyCache: NSMutableDictionary?

  /// Makes a node for the object `moid` names (Core Data's `init(objectID:)`), without values.
  public init(objectID moid: NSManagedObjectID) {
    objectID = moid
  }

  /// The value for the property `key` (Core Data's `value(forKey:)`): the entry of ``propertyCache``, or `nil`.
  open func value(forKey key: String) -> Any? {
    propertyCache?.object(forKey: key)
  }

  /// Sets the value for the property `key` in ``propertyCache`` (made when it is `nil`); `nil` removes it.
  open func setValue(_ value: Any?, forKey key: String) {
    let cache = propertyCache ?? NSMutableDictionary()
    propertyCache = cache
    if let value { cache.setObject(value, forKey: key) } else { cache.removeObject(forKey: key) }
  }

  /// Whether `lhs` and `rhs` are the same node.
  public static func == (lhs: NSAtomicStoreCacheNode, rhs: NSAtomicStoreCacheNode) -> Bool { lhs === rhs }

  /// Hashes the node's identity.
  public func hash(into hasher: inout Hasher) { hasher.combine(ObjectIdentifier(self)) }
}
