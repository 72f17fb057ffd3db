import Foundation

/// Inserts rows made from dictionaries, without making objects.
///
/// ```swift
/// let request = NSBatchInsertRequest(entityName: "Note", objects: rows.map { ["title": $0.title, "wordCount": $0.words] })
/// request.resultType = .objectIDs
/// let result = try context.execute(request) as? NSBatchInsertResult
/// ```
///
/// Each dictionary gives attribute values by name; attributes it leaves out take their default. The rows
/// are written in one transaction, all or none. As in Core Data, relationships cannot be set this way,
/// no object or context sees the rows until it fetches them or merges their IDs
/// (``NSManagedObjectContext/mergeChanges(fromRemoteContextSave:into:)``), and the model's minimums,
/// maximums and patterns are not checked. What is checked, because a row the store cannot read back would
/// be worse: every key names a stored attribute, every value has the attribute's type, required attributes
/// have a value, and uniqueness constraints hold (a row that breaks one refuses the whole request, 133021).
public final class NSBatchInsertRequest: NSPersistentStoreRequest, StoreSelecting {
  /// The kind of request: `.batchInsertRequestType`.
  public var requestType: NSPersistentStoreRequestType { .batchInsertRequestType }

  /// The entity of the new rows.
  public let entityName: String
  /// The rows, one dictionary each (`nil` when a ``dictionaryHandler`` or `managedObjectHandler` gives them).
  public var objectsToInsert: [[String: Any]]?
  /// Gives the rows one at a time instead, as Core Data's handler does: fill in the dictionary it is handed
  /// (a new, empty one each call; keys are attribute names) and return `false`, or return `true` when there
  /// are no more (that last dictionary is not inserted).
  public var dictionaryHandler: ((NSMutableDictionary) -> Bool)?
  /// What the result holds. Default ``NSBatchInsertRequestResultType/statusOnly``.
  public var resultType: NSBatchInsertRequestResultType = .statusOnly
  /// The stores named by `affectedStores` (declared with the coordinator), `nil` for all.
  var storeSelection: [AnyObject]?

  /// The entity given to an initializer taking one (Core Data's `entity`); `nil` when the request was made
  /// by name, whose entity the executing context looks up in its model.
  public let entity: NSEntityDescription?
  /// The managed-object handler (`managedObjectHandler`, declared with the context: this layer does not know
  /// managed objects), type-erased.
  var objectHandler: Any?

  init(entityName: String, entity: NSEntityDescription?) {
    self.entityName = entityName
    self.entity = entity
  }

  /// A request with no entity and no rows (Core Data's `init()`): executing it is refused (there is no
  /// entity named `""`). Use the initializers naming an entity.
  public convenience init() {
    self.init(entityName: "", entity: nil)
  }

  /// A request inserting `objects`.
  public convenience init(entityName: String, objects: [[String: Any]]) {
    self.init(entityName: entityName, entity: nil)
    objectsToInsert = objects
  }

  /// A request inserting `objects` into `entity` (Core Data's `init(entity:objects:)`).
  public convenience init(entity: NSEntityDescription, objects: [[String: Any]]) {
    self.init(entityName: entity.entityName, entity: entity)
    objectsToInsert = objects
  }

  /// A request inserting the rows a handler gives (see ``dictionaryHandler``).
  public convenience init(entityName: String, dictionaryHandler: @escaping (NSMutableDictionary) -> Bool) {
    self.init(entityName: entityName, entity: nil)
    self.dictionaryHandler = dictionaryHandler
  }

  /// A request inserting into `entity` the rows a handler gives (Core Data's `init(entity:dictionaryHandler:)`).
  public convenience init(entity: NSEntityDescription, dictionaryHandler: @escaping (NSMutableDictionary) -> Bool) {
    self.init(entityName: entity.entityName, entity: entity)
    self.dictionaryHandler = dictionaryHandler
  }
}
