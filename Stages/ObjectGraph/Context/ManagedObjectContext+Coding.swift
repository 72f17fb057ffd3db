import Foundation

/// Contexts archive their settings, as Core Data's `NSManagedObjectContext` is `NSCoding`: never its
/// coordinator, parent or objects. An unarchived context is a new one, with the archived concurrency type and
/// settings and no coordinator, as Core Data's is: give it a ``persistentStoreCoordinator`` or a ``parent``
/// before using it.
///
/// The archive holds the concurrency type, ``name``, ``transactionAuthor``, ``mergePolicy`` (by its
/// ``NSMergePolicyType``: a policy subclass comes back as the `NSMergePolicy` of its type, without its
/// overrides), ``stalenessInterval``, ``automaticallyMergesChangesFromParent``,
/// ``shouldDeleteInaccessibleFaults``, ``retainsRegisteredObjects``, ``propagatesDeletesAtEndOfEvent``, and
/// whether it had an ``undoManager`` (it then gets a new, empty one).
///
/// ```swift
/// let data = try NSKeyedArchiver.archivedData(withRootObject: context, requiringSecureCoding: false)
/// let settingsOnly = try NSKeyedUnarchiver.unarchiveTopLevelObjectWithData(data) as? NSManagedObjectContext
/// ```
extension NSManagedObjectContext: NSCoding {
  private enum Key {
    static let concurrencyType = "NSConcurrencyType"
    static let name = "NSName"
    static let transactionAuthor = "NSTransactionAuthor"
    static let mergePolicy = "NSMergePolicyType"
    static let stalenessInterval = "NSStalenessInterval"
    static let mergesFromParent = "NSAutomaticallyMergesChangesFromParent"
    static let deletesInaccessibleFaults = "NSShouldDeleteInaccessibleFaults"
    static let retainsObjects = "NSRetainsRegisteredObjects"
    static let propagatesDeletes = "NSPropagatesDeletesAtEndOfEvent"
    static let hasUndoManager = "NSHasUndoManager"
  }

  /// Archives the context's settings (never its coordinator, parent or objects).
  public func encode(with coder: NSCoder) {
    coder.encode(Int64(concurrencyType.rawValue), forKey: Key.concurrencyType)
    coder.encodeText(name, forKey: Key.name)
    coder.encodeText(transactionAuthor, forKey: Key.transactionAuthor)
    if let policy = mergePolicy as? NSMergePolicy {
      coder.encode(Int64(policy.mergeType.rawValue), forKey: Key.mergePolicy)
    }
    coder.encode(stalenessInterval, forKey: Key.stalenessInterval)
    coder.encode(automaticallyMergesChangesFromParent, forKey: Key.mergesFromParent)
    coder.encode(shouldDeleteInaccessibleFaults, forKey: Key.deletesInaccessibleFaults)
    coder.encode(retainsRegisteredObjects, forKey: Key.retainsObjects)
    coder.encode(propagatesDeletesAtEndOfEvent, forKey: Key.propagatesDeletes)
    coder.encode(undoManager != nil, forKey: Key.hasUndoManager)
  }

  /// Makes a context with the archived concurrency type and settings, and no coordinator; `nil` (and the
  /// unarchiver's error) when the archive is not a context's.
  public convenience init?(coder: NSCoder) {
    guard coder.containsValue(forKey: Key.concurrencyType),
      let type = UInt(exactly: coder.decodeInt64(forKey: Key.concurrencyType))
        .flatMap(NSManagedObjectContextConcurrencyType.init(rawValue:))
    else {
      coder.failDecoding(
        "a context", "its concurrency type (\(Key.concurrencyType)) is missing or not one of NSManagedObjectContextConcurrencyType's")
      return nil
    }
    var policy: NSMergePolicy?
    if coder.containsValue(forKey: Key.mergePolicy) {
      guard let mergeType = UInt(exactly: coder.decodeInt64(forKey: Key.mergePolicy)).flatMap(NSMergePolicyType.init(rawValue:))
      else {
        coder.failDecoding("a context", "its merge policy type is not one of NSMergePolicyType's")
        return nil
      }
      policy = NSMergePolicy(merge: mergeType)
    }
    self.init(concurrencyType: type)
    name = coder.decodeText(forKey: Key.name)
    transactionAuthor = coder.decodeText(forKey: Key.transactionAuthor)
    if let policy { mergePolicy = policy }
    if coder.containsValue(forKey: Key.stalenessInterval) {
      stalenessInterval = coder.decodeDouble(forKey: Key.stalenessInterval)
    }
    automaticallyMergesChangesFromParent = coder.decodeBool(forKey: Key.mergesFromParent)
    shouldDeleteInaccessibleFaults =
      coder.containsValue(forKey: Key.deletesInaccessibleFaults) ? coder.decodeBool(forKey: Key.deletesInaccessibleFaults) : true
    retainsRegisteredObjects = coder.decodeBool(forKey: Key.retainsObjects)
    propagatesDeletesAtEndOfEvent =
      coder.containsValue(forKey: Key.propagatesDeletes) ? coder.decodeBool(forKey: Key.propagatesDeletes) : true
    if coder.decodeBool(forKey: Key.hasUndoManager) { undoManager = UndoManager() }
  }
}
