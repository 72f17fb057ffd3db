import Foundation

/// A request a context hands straight to the persistent store with
/// ``ManagedObjectContext/execute(_:)`` (Core Data's `NSPersistentStoreRequest`): the batch requests, which
/// change rows in SQL without making objects.
public protocol PersistentStoreRequest: AnyObject {}

/// What ``ManagedObjectContext/execute(_:)`` returns (Core Data's `NSPersistentStoreResult`).
public protocol PersistentStoreResult: AnyObject {}

// MARK: - Insert

/// Inserts rows made from dictionaries, without making objects (Core Data's `NSBatchInsertRequest`).
///
/// ```swift
/// let request = BatchInsertRequest(entityName: "Note", objects: rows.map { ["title": $0.title, "wordCount": $0.words] })
/// request.resultType = .objectIDs
/// let result = try context.execute(request) as? BatchInsertResult
/// ```
///
/// Each dictionary gives attribute values by name; attributes it leaves out take their default. The rows
/// are written in one transaction, all or none. As in Core Data, relationships cannot be set this way,
/// no object or context sees the rows until it fetches them or merges their IDs
/// (``ManagedObjectContext/mergeChanges(fromRemoteContextSave:into:)``), and the model's minimums,
/// maximums and patterns are not checked. What is checked, because a row the store cannot read back would
/// be worse: every key names a stored attribute, every value has the attribute's type, required attributes
/// have a value, and uniqueness constraints hold (a row that breaks one refuses the whole request, 133021).
public final class BatchInsertRequest: PersistentStoreRequest {
  /// The entity of the new rows.
  public let entityName: String
  /// The rows, one dictionary each (`nil` when a ``dictionaryHandler`` gives them).
  public var objectsToInsert: [[String: Any]]?
  /// Gives the rows one at a time instead: fill in the dictionary and return `false`, or return `true`
  /// when there are no more (that last dictionary is not inserted), as Core Data's handler does.
  public var dictionaryHandler: ((inout [String: Any]) -> Bool)?
  /// What the result holds. Default ``BatchInsertRequestResultType/statusOnly``.
  public var resultType: BatchInsertRequestResultType = .statusOnly

  /// A request inserting `objects`.
  public init(entityName: String, objects: [[String: Any]]) {
    self.entityName = entityName
    objectsToInsert = objects
  }

  /// A request inserting the rows a handler gives.
  public init(entityName: String, dictionaryHandler: @escaping (inout [String: Any]) -> Bool) {
    self.entityName = entityName
    self.dictionaryHandler = dictionaryHandler
  }
}

/// What a ``BatchInsertResult`` holds.
public enum BatchInsertRequestResultType: Sendable, Hashable {
  /// `true` when the rows were inserted.
  case statusOnly
  /// The new rows' IDs, in the order of the dictionaries.
  case objectIDs
  /// How many rows were inserted.
  case count
}

/// The result of a ``BatchInsertRequest`` (Core Data's `NSBatchInsertResult`).
public final class BatchInsertResult: PersistentStoreResult {
  /// The kind of ``result``.
  public let resultType: BatchInsertRequestResultType
  /// `Bool`, `[ManagedObjectID]` or `Int`, by ``resultType``.
  public let result: Any?

  init(resultType: BatchInsertRequestResultType, result: Any?) {
    self.resultType = resultType
    self.result = result
  }
}

// MARK: - Update

/// Sets attributes of every row a predicate matches, in one SQL statement, without making objects (Core
/// Data's `NSBatchUpdateRequest`).
///
/// ```swift
/// let request = BatchUpdateRequest(entityName: "Note")
/// request.predicate = try FetchPredicate(format: "notebook == %@", archive)
/// request.propertiesToUpdate = ["isArchived": true]
/// request.resultType = .updatedObjectIDsResultType
/// ```
///
/// Each updated row's version (`Z_OPT`) goes up, so a context holding one of the objects finds its save
/// refused by optimistic locking (133020) until it merges the IDs or refreshes. Values are checked as for
/// ``BatchInsertRequest``; validation rules are not (Core Data's rule).
public final class BatchUpdateRequest: PersistentStoreRequest {
  /// The entity whose rows change.
  public let entityName: String
  /// Which rows change; `nil` for all.
  public var predicate: FetchPredicate?
  /// The new values, by attribute name (`nil` or `NSNull()` clears an optional attribute).
  public var propertiesToUpdate: [String: Any]?
  /// Whether rows of subentities change too. Default `true`.
  public var includesSubentities = true
  /// What the result holds. Default ``BatchUpdateRequestResultType/statusOnlyResultType``.
  public var resultType: BatchUpdateRequestResultType = .statusOnlyResultType

  /// A request for the rows of an entity.
  public init(entityName: String) {
    self.entityName = entityName
  }
}

/// What a ``BatchUpdateResult`` holds.
public enum BatchUpdateRequestResultType: Sendable, Hashable {
  /// `true` when the update ran.
  case statusOnlyResultType
  /// The IDs of the rows changed.
  case updatedObjectIDsResultType
  /// How many rows changed.
  case updatedObjectsCountResultType
}

/// The result of a ``BatchUpdateRequest`` (Core Data's `NSBatchUpdateResult`).
public final class BatchUpdateResult: PersistentStoreResult {
  /// The kind of ``result``.
  public let resultType: BatchUpdateRequestResultType
  /// `Bool`, `[ManagedObjectID]` or `Int`, by ``resultType``.
  public let result: Any?

  init(resultType: BatchUpdateRequestResultType, result: Any?) {
    self.resultType = resultType
    self.result = result
  }
}

// MARK: - Delete

/// Deletes every row a fetch request matches, or the rows of given IDs, in SQL, without making objects
/// (Core Data's `NSBatchDeleteRequest`).
///
/// The relationships' delete rules apply in SQL, as they would to objects: Cascade deletes the related
/// rows too (and theirs, in turn), Nullify clears the related rows' references, Deny refuses the whole
/// request (1600) when a related row exists, No Action leaves references as they are. Validation rules are
/// not checked, and contexts learn of the deletion only by merging the IDs
/// (``ManagedObjectContext/mergeChanges(fromRemoteContextSave:into:)``).
public final class BatchDeleteRequest: PersistentStoreRequest {
  /// The entity whose rows go.
  public let entityName: String
  /// Which rows go (with the request's `includesSubentities`), when made from a fetch request.
  public let predicate: FetchPredicate?
  /// Whether rows of subentities go too (from the fetch request).
  public let includesSubentities: Bool
  /// The rows that go, when made from IDs.
  public let objectIDs: [ManagedObjectID]?
  /// What the result holds. Default ``BatchDeleteRequestResultType/resultTypeStatusOnly``.
  public var resultType: BatchDeleteRequestResultType = .resultTypeStatusOnly

  /// A request deleting what `fetchRequest` would fetch (its predicate and entity; its order and limits
  /// do not apply).
  public init<Result>(fetchRequest: FetchRequest<Result>) {
    entityName = fetchRequest.entityName
    predicate = fetchRequest.predicate
    includesSubentities = fetchRequest.includesSubentities
    objectIDs = nil
  }

  /// A request deleting the rows of `objectIDs`, which must all be of one entity (or its subentities) and
  /// permanent.
  public init(objectIDs: [ManagedObjectID]) {
    entityName = objectIDs.first?.entityName ?? ""
    predicate = nil
    includesSubentities = true
    self.objectIDs = objectIDs
  }
}

/// What a ``BatchDeleteResult`` holds.
public enum BatchDeleteRequestResultType: Sendable, Hashable {
  /// `true` when the delete ran.
  case resultTypeStatusOnly
  /// The IDs of the rows deleted, those the delete rules took along included.
  case resultTypeObjectIDs
  /// How many rows were deleted, those the delete rules took along included.
  case resultTypeCount
}

/// The result of a ``BatchDeleteRequest`` (Core Data's `NSBatchDeleteResult`).
public final class BatchDeleteResult: PersistentStoreResult {
  /// The kind of ``result``.
  public let resultType: BatchDeleteRequestResultType
  /// `Bool`, `[ManagedObjectID]` or `Int`, by ``resultType``.
  public let result: Any?

  init(resultType: BatchDeleteRequestResultType, result: Any?) {
    self.resultType = resultType
    self.result = result
  }
}
