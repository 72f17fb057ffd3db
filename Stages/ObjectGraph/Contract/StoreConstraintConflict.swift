import Foundation

/// One broken uniqueness constraint, as a store reports it (error 133021): several objects being saved share
/// the constraint's values (a conflict among in-memory objects, with no ``databaseObjectID``), or an object being
/// saved has the values of a row already stored (a conflict with the store).
///
/// The record names objects by ID, so it crosses queues with its error; the context that saved turns it into an
/// ``NSConstraintConflict`` (which holds the objects) before the error reaches the app, or before a merge
/// policy's `resolve(constraintConflicts:)` sees it.
struct StoreConstraintConflict: Sendable, CustomStringConvertible {
  /// The entity that declares the constraint (for a subentity's object, maybe its superentity).
  let entityName: String
  /// The constraint: the names of the attributes whose values together must be unique.
  let constraint: [String]
  /// The values the conflicting objects share, by attribute name.
  let constraintValues: [String: any Sendable]
  /// The stored row with those values, for a conflict with the store; `nil` among in-memory objects.
  let databaseObjectID: NSManagedObjectID?
  /// The stored row's attribute values (only those with a value), for a conflict with the store.
  let databaseSnapshot: [String: any Sendable]?
  /// The objects being saved that hold the values, in the order the context saves them.
  let conflictingObjectIDs: [NSManagedObjectID]
  /// The values each conflicting object last read from its store (empty for an inserted object), in the
  /// order of ``conflictingObjectIDs``.
  let conflictingSnapshots: [[String: any Sendable]]

  /// Makes a conflict record.
  init(
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
  var valuesDescription: String {
    constraint.map { name in
      let value = constraintValues[name].map { $0 is String ? "'\($0)'" : "\($0)" } ?? "nil"
      return "\(name) = \(value)"
    }.joined(separator: ", ")
  }

  var description: String {
    let objects = conflictingObjectIDs.map(\.description).joined(separator: ", ")
    if let databaseObjectID {
      return "\(entityName) (\(valuesDescription)): \(objects) would repeat the stored row \(databaseObjectID)"
    }
    return "\(entityName) (\(valuesDescription)): held by \(conflictingObjectIDs.count) objects being saved (\(objects))"
  }
}
