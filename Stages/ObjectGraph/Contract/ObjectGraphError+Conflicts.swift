import Foundation

extension ObjectGraphError {
  /// For merge conflicts: one entry per conflicting object.
  public var conflicts: [MergeConflict] { conflictRecords.compactMap { $0 as? MergeConflict } }

  /// For ``Code/managedObjectConstraintMerge``: one entry per set of values of a uniqueness constraint held
  /// by more than one object or row (Core Data's `NSConstraintConflict`s, under the error's
  /// `conflictList`).
  public var constraintConflicts: [ConstraintConflict] { conflictRecords.compactMap { $0 as? ConstraintConflict } }

  /// Makes an error. The engine makes these; tests and apps normally only read them.
  ///
  /// - Parameters:
  ///   - code: what kind of failure this is.
  ///   - message: what happened and what to do.
  ///   - url: the file concerned, if any.
  ///   - underlyingErrors: the individual errors, for several at once.
  ///   - conflicts: the conflicting objects, for a merge conflict.
  ///   - constraintConflicts: the broken uniqueness constraints, for a constraint conflict.
  ///   - underlyingError: the cause, when it comes from outside the engine.
  ///   - sqliteResultCode: SQLite's extended result code, when SQLite refused the operation.
  public init(
    _ code: Code, _ message: String, url: URL? = nil, underlyingErrors: [ObjectGraphError] = [],
    conflicts: [MergeConflict] = [], constraintConflicts: [ConstraintConflict] = [], underlyingError: (any Error)? = nil,
    sqliteResultCode: Int32? = nil
  ) {
    self.init(
      code, message, url: url, underlyingErrors: underlyingErrors,
      conflictRecords: conflicts.map { $0 as any Sendable } + constraintConflicts.map { $0 as any Sendable },
      underlyingError: underlyingError, sqliteResultCode: sqliteResultCode)
  }
}
