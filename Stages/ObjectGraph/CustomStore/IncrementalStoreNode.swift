import Foundation

// @unchecked Sendable: `values` and `version` are read and written only inside `lock`.

/// The values of one object as an incremental store reads them (Core Data's `NSIncrementalStoreNode`): what
/// ``NSIncrementalStore/newValuesForObject(with:with:)`` returns for a fault.
///
/// The values are keyed by property name: an attribute's value (`NSNull` or absent for `nil`), a to-one's
/// destination ``NSManagedObjectID`` (or `NSNull`), and, optionally, a to-many's member IDs (an array, a set
/// or an `NSOrderedSet`); a to-many left out is asked of ``NSIncrementalStore/newValue(forRelationship:forObjectWith:with:)``
/// when it is first read.
open class NSIncrementalStoreNode: @unchecked Sendable {
  /// Guards `storedValues` and `storedVersion`.
  private let lock = NSLock()
  private var storedValues: [String: Any]
  private var storedVersion: UInt64

  /// The object the values belong to (Core Data's `objectID`).
  public let objectID: NSManagedObjectID

  /// Makes a node (Core Data's `init(objectID:withValues:version:)`): `values` by property name, and the
  /// object's version in the store: 0 for an object never saved, then one more at each save, as Apple asks. A
  /// save compares it with the version its context read, and a difference is an optimistic-locking conflict.
  public init(objectID: NSManagedObjectID, withValues values: [String: Any], version: UInt64) {
    self.objectID = objectID
    storedValues = values
    storedVersion = version
  }

  /// The object's version in the store (Core Data's `version`).
  open var version: UInt64 { lock.withLock { storedVersion } }

  /// Replaces the node's values and version (Core Data's `update(withValues:version:)`).
  open func update(withValues values: [String: Any], version: UInt64) {
    lock.withLock {
      storedValues = values
      storedVersion = version
    }
  }

  /// The value of `prop` (Core Data's `value(for:)`): the entry under its name; `nil` when there is none.
  open func value(for prop: NSPropertyDescription) -> Any? {
    lock.withLock { storedValues[prop.name] }
  }

  /// The value under the property name `name`, and whether the node has one at all.
  func entry(_ name: String) -> (present: Bool, value: Any?) {
    lock.withLock {
      guard let value = storedValues[name] else { return (false, nil) }
      return (true, value)
    }
  }
}
