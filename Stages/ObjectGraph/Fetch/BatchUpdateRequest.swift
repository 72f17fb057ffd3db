import Foundation

/// Sets attributes of every row a predicate matches, in one SQL statement, without making objects (Core
/// Data's `NSBatchUpdateRequest`).
///
/// ```swift
/// let request = NSBatchUpdateRequest(entityName: "Note")
/// request.predicate = NSPredicate(format: "notebook == %@", archive)
/// request.propertiesToUpdate = ["isArchived": true]
/// request.resultType = .updatedObjectIDsResultType
/// ```
///
/// Each updated row's version (`Z_OPT`) goes up, so a context holding one of the objects finds its save
/// refused by optimistic locking (133020) until it merges the IDs or refreshes. Values are checked as for
/// ``NSBatchInsertRequest``; validation rules are not (Core Data's rule).
public final class NSBatchUpdateRequest: NSPersistentStoreRequest, StoreSelecting {
  /// The kind of request: `.batchUpdateRequestType`.
  public var requestType: NSPersistentStoreRequestType { .batchUpdateRequestType }

  /// The entity whose rows change.
  public let entityName: String
  /// Which rows change; `nil` for all.
  public var predicate: NSPredicate?
  /// The new values, by attribute name (`nil` or `NSNull()` clears an optional attribute). A value may be an
  /// `NSExpression` computed for each row from its values before the update, as Core Data's SQLite store does:
  /// `NSExpression(format: "rating + 1")`, `NSExpression(forKeyPath: "title")` (the row's own attributes,
  /// constants and arithmetic; not key paths through relationships).
  public var propertiesToUpdate: [String: Any]?
  /// Whether rows of subentities change too. Default `true`.
  public var includesSubentities = true
  /// What the result holds. Default ``NSBatchUpdateRequestResultType/statusOnlyResultType``.
  public var resultType: NSBatchUpdateRequestResultType = .statusOnlyResultType
  /// The stores named by `affectedStores` (declared with the coordinator), `nil` for all.
  var storeSelection: [AnyObject]?

  /// The entity whose rows change (Core Data's `entity`): the one given to ``init(entity:)``. A request made
  /// with ``init(entityName:)`` has no model to look the name up in until it is executed, so it answers a
  /// description named ``entityName`` without properties; the context executing it uses its model's entity
  /// of that name.
  public let entity: NSEntityDescription

  /// A request for the rows of an entity.
  public init(entityName: String) {
    self.entityName = entityName
    entity = NSEntityDescription(name: entityName, properties: [])
  }

  /// A request for the rows of `entity` (Core Data's `init(entity:)`).
  public init(entity: NSEntityDescription) {
    self.entityName = entity.entityName
    self.entity = entity
  }
}
