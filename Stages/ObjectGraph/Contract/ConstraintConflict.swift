import Foundation

/// One broken uniqueness constraint, as reported by error 133021 (Core Data's `NSConstraintConflict`):
/// several objects being saved share the constraint's values (a conflict among in-memory objects, with
/// no ``databaseObjectID``), or an object being saved has the values of a row already stored (a conflict
/// with the store).
///
/// ```swift
/// catch let error as ObjectGraphError where error.code == .managedObjectConstraintMerge {
///   for conflict in error.constraintConflicts {
///     print(conflict.entityName, conflict.constraintValues, conflict.conflictingObjectIDs)
///   }
/// }
/// ```
///
/// A conflict carries object IDs and values, not objects, so it can cross queues with its error; look the
/// objects up with `object(with:)` in the context that saved (inserted objects keep their temporary IDs
/// after the failed save).
public struct ConstraintConflict: Sendable, CustomStringConvertible {
  /// The entity that declares the constraint (for a subentity's object, maybe its superentity).
  public let entityName: String
  /// The constraint: the names of the attributes whose values together must be unique.
  public let constraint: [String]
  /// The values the conflicting objects share, by attribute name.
  public let constraintValues: [String: any Sendable]
  /// The stored row with those values, for a conflict with the store; `nil` among in-memory objects.
  public let databaseObjectID: NSManagedObjectID?
  /// The stored row's attribute values (only those with a value), for a conflict with the store.
  public let databaseSnapshot: [String: any Sendable]?
  /// The objects being saved that hold the values, in the order the context saves them.
  public let conflictingObjectIDs: [NSManagedObjectID]
  /// The values each conflicting object last read from its store (empty for an inserted object), in the
  /// order of ``conflictingObjectIDs``.
  public let conflictingSnapshots: [[String: any Sendable]]

  /// Makes a conflict. The engine makes these; apps read them.
  public init(
    entityName: String, constraint: [String], constraintValues: [String: any Sendable], databaseObjectID: NSManagedObjectID?,
    databaseSnapshot: [String: any Sendable]?, conflictingObjectIDs: [NSManagedObjectID],
    conflictingSnapshots: [[String: any Sendable]]
  ) {
    self.entityName = entityName
    self.constraint = constraint
    self.constraintValues = constraintValues
    self.databaseObjectID = databaseObjectID
    self.databaseSnapshot = databaseSnapshot
    self.conflictingObjectIDs = conflictingObjectIDs
    self.conflictingSnapshots = conflictingSnapshots
  }

  /// The shared values as `name = value` text, in the constraint's order.
  public var valuesDescription: String {
    constraint.map { name in
      let value = constraintValues[name].map { $0 is String ? "'\($0)'" : "\($0)" } ?? "nil"
      return "\(name) = \(value)"
    }.joined(separator: ", ")
  }

  public var description: String {
    let objects = conflictingObjectIDs.map(\.description).joined(separator: ", ")
    if let databaseObjectID {
      return "\(entityName) (\(valuesDescription)): \(objects) would repeat the stored row \(databaseObjectID)"
    }
    return "\(entityName) (\(valuesDescription)): held by \(conflictingObjectIDs.count) objects being saved (\(objects))"
  }
}
