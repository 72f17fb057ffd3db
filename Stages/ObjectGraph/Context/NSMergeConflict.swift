import Foundation

/// One optimistic-locking conflict: an object this context changed whose row
/// changed or went away in the store since the context read it. A save under the error merge policy fails with
/// error 133020 listing these under `NSPersistentStoreSaveConflictsErrorKey` (`"conflictList"`); a subclass of
/// ``NSMergePolicy`` gets them in ``NSMergePolicy/resolve(optimisticLockingConflicts:)``.
///
/// ```swift
/// catch let error as NSError where error.code == NSManagedObjectMergeError {
///   for conflict in error.userInfo[NSPersistentStoreSaveConflictsErrorKey] as? [NSMergeConflict] ?? [] {
///     context.refresh(conflict.sourceObject, mergeChanges: true)
///   }
/// }
/// ```
///
/// Snapshots hold attributes (by name, as `value(forKey:)` gives them) and to-one relationships (as
/// ``NSManagedObjectID``s), never to-many relationships, as Core Data's do. Read a conflict on the queue of the
/// context that saved: it holds that context's object.
open class NSMergeConflict: NSObject {
  /// The object being saved.
  public let sourceObject: NSManagedObject
  /// The object's values when the conflict was found, unsaved changes included.
  public let objectSnapshot: [String: Any]?
  /// The values the context last read from the store for the object.
  public let cachedSnapshot: [String: Any]?
  /// The values in the store now; `nil` when the row was deleted (``newVersionNumber`` is 0).
  public let persistedSnapshot: [String: Any]?
  /// The row's version in the store now (`Z_OPT`); 0 when the row was deleted.
  public let newVersionNumber: Int
  /// The row version the context last read.
  public let oldVersionNumber: Int
  /// The store's record of the conflict (the keys changed on both sides), when the engine made this one.
  let record: StoreMergeConflict?
  /// The row as the store holds it now, when the engine made this conflict and could read it: what
  /// ``NSMergePolicy``'s `resolve` merges the object with.
  let persistedRow: RowSnapshot?

  /// A conflict for `srcObject`, whose row went from version `oldvers` to `newvers` (0: deleted); its
  /// ``objectSnapshot`` is read from the object now.
  public convenience init(
    source srcObject: NSManagedObject, newVersion newvers: Int, oldVersion oldvers: Int, cachedSnapshot cachesnap: [String: Any]?,
    persistedSnapshot persnap: [String: Any]?
  ) {
    self.init(
      source: srcObject, newVersion: newvers, oldVersion: oldvers, cachedSnapshot: cachesnap, persistedSnapshot: persnap,
      record: nil, persistedRow: nil)
  }

  init(
    source: NSManagedObject, newVersion: Int, oldVersion: Int, cachedSnapshot: [String: Any]?, persistedSnapshot: [String: Any]?,
    record: StoreMergeConflict?, persistedRow: RowSnapshot?
  ) {
    sourceObject = source
    objectSnapshot = source.snapshotDictionary(source.values)
    self.cachedSnapshot = cachedSnapshot
    self.persistedSnapshot = persistedSnapshot
    newVersionNumber = newVersion
    oldVersionNumber = oldVersion
    self.record = record
    self.persistedRow = persistedRow
    super.init()
  }

  /// The object, its versions, and the keys changed on both sides.
  open override var description: String {
    record?.description
      ?? "\(sourceObject.objectID) changed in the store (version \(oldVersionNumber) -> \(newVersionNumber))"
  }
}

/// One broken uniqueness constraint: objects being saved that share the
/// values of a constraint, with each other (``databaseObject`` is `nil`) or with a row already stored. A save
/// under the error merge policy fails with error 133021 listing these under
/// `NSPersistentStoreSaveConflictsErrorKey` (`"conflictList"`); a subclass of ``NSMergePolicy`` gets them in
/// ``NSMergePolicy/resolve(constraintConflicts:)``.
///
/// ```swift
/// catch let error as NSError where error.code == NSManagedObjectConstraintMergeError {
///   for conflict in error.userInfo[NSPersistentStoreSaveConflictsErrorKey] as? [NSConstraintConflict] ?? [] {
///     print(conflict.constraint, conflict.constraintValues, conflict.conflictingObjects)
///   }
/// }
/// ```
///
/// Read a conflict on the queue of the context that saved: it holds that context's objects (inserted objects
/// keep their temporary IDs after the failed save).
open class NSConstraintConflict: NSObject {
  /// The constraint: the names of the attributes whose values together must be unique.
  public let constraint: [String]
  /// The values the objects share, by attribute name.
  public let constraintValues: [String: Any]
  /// The stored row's object, for a conflict with the store; `nil` among objects being saved.
  public let databaseObject: NSManagedObject?
  /// The stored row's attribute values, for a conflict with the store.
  public let databaseSnapshot: [String: Any]?
  /// The objects being saved that hold the values, in the order the context saves them.
  public let conflictingObjects: [NSManagedObject]
  /// The values each conflicting object last read from the store (empty for an inserted object), in the order
  /// of ``conflictingObjects``.
  public let conflictingSnapshots: [[AnyHashable: Any]]
  /// The store's record of the conflict, when the engine made this one.
  let record: StoreConstraintConflict?

  /// A conflict over `contraint` (Apple's spelling of the parameter) among `conflictingObjects`, and with
  /// `databaseObject` when a stored row has the values; ``constraintValues`` are read from the first object.
  public convenience init(
    constraint contraint: [String], databaseObject: NSManagedObject?, databaseSnapshot: [AnyHashable: Any]?,
    conflictingObjects: [NSManagedObject], conflictingSnapshots: [Any]
  ) {
    var values: [String: Any] = [:]
    if let first = conflictingObjects.first ?? databaseObject {
      for name in contraint { values[name] = first.value(forKey: name) }
    }
    self.init(
      constraint: contraint, constraintValues: values, databaseObject: databaseObject,
      databaseSnapshot: databaseSnapshot.map(Self.stringKeyed), conflictingObjects: conflictingObjects,
      conflictingSnapshots: conflictingSnapshots.map { $0 as? [AnyHashable: Any] ?? [:] }, record: nil)
  }

  /// The same as ``init(constraint:databaseObject:databaseSnapshot:conflictingObjects:conflictingSnapshots:)``
  /// (Core Data's earlier labels).
  public convenience init(
    constraint contraint: [String], database databaseObject: NSManagedObject?, databaseSnapshot: [AnyHashable: Any]?,
    conflicting conflictingObjects: [NSManagedObject], conflictingSnapshots: [Any]
  ) {
    self.init(
      constraint: contraint, databaseObject: databaseObject, databaseSnapshot: databaseSnapshot,
      conflictingObjects: conflictingObjects, conflictingSnapshots: conflictingSnapshots)
  }

  /// A conflict from the store's record, with the objects `context` holds for its IDs. Call on the context's
  /// queue.
  convenience init(_ record: StoreConstraintConflict, in context: NSManagedObjectContext) {
    self.init(
      constraint: record.constraint, constraintValues: record.constraintValues,
      databaseObject: record.databaseObjectID.map(context.object(with:)),
      databaseSnapshot: record.databaseSnapshot, conflictingObjects: record.conflictingObjectIDs.map(context.object(with:)),
      conflictingSnapshots: record.conflictingSnapshots.map {
        Dictionary(uniqueKeysWithValues: $0.map { (AnyHashable($0.key), $0.value as Any) })
      },
      record: record)
  }

  private init(
    constraint: [String], constraintValues: [String: Any], databaseObject: NSManagedObject?, databaseSnapshot: [String: Any]?,
    conflictingObjects: [NSManagedObject], conflictingSnapshots: [[AnyHashable: Any]], record: StoreConstraintConflict?
  ) {
    self.constraint = constraint
    self.constraintValues = constraintValues
    self.databaseObject = databaseObject
    self.databaseSnapshot = databaseSnapshot
    self.conflictingObjects = conflictingObjects
    self.conflictingSnapshots = conflictingSnapshots
    self.record = record
    super.init()
  }

  private static func stringKeyed(_ snapshot: [AnyHashable: Any]) -> [String: Any] {
    var result: [String: Any] = [:]
    for (key, value) in snapshot { result[key.description] = value }
    return result
  }

  /// The entity, the shared values and the objects that hold them.
  open override var description: String {
    record?.description
      ?? "[\(constraint.joined(separator: ", "))]: held by \(conflictingObjects.map(\.objectID.description).joined(separator: ", "))"
  }
}

extension CocoaError {
  /// The conflicts of a failed save (`NSPersistentStoreSaveConflictsErrorKey`): merge conflicts for error
  /// 133020.
  public var persistentStoreSaveConflicts: [NSMergeConflict]? {
    userInfo[NSPersistentStoreSaveConflictsErrorKey] as? [NSMergeConflict]
  }
}

extension ObjectGraphError {
  /// The store's records behind a 133020 error's conflicts, before or after the context put objects in their
  /// place (for the engine's own checks, which compare IDs and keys).
  var mergeConflictRecords: [StoreMergeConflict] {
    (userInfo[NSPersistentStoreSaveConflictsErrorKey] as? [NSMergeConflict])?.compactMap(\.record) ?? storeMergeConflicts
  }

  /// The store's records behind a 133021 error's conflicts, before or after the context put objects in their
  /// place.
  var constraintConflictRecords: [StoreConstraintConflict] {
    (userInfo[NSPersistentStoreSaveConflictsErrorKey] as? [NSConstraintConflict])?.compactMap(\.record) ?? storeConstraintConflicts
  }
}
