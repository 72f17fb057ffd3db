import Foundation

extension NSBatchInsertRequest {
  /// Gives the rows one at a time as managed objects, as Core Data's handler does: set the attributes of the
  /// object it is handed (a new one each call, of the entity's class, in no context) and return `false`, or
  /// return `true` when there are no more (that last object is not inserted). Each object's attribute values
  /// become a row, checked as a dictionary's are (see ``dictionaryHandler``); the object itself is not kept,
  /// inserted or saved, and setting a relationship on it refuses the request (Core Data's batch inserts set
  /// attributes only).
  public var managedObjectHandler: ((NSManagedObject) -> Bool)? {
    get { objectHandler as? (NSManagedObject) -> Bool }
    set { objectHandler = newValue }
  }

  /// A request inserting the rows a handler fills in as managed objects (see ``managedObjectHandler``).
  public convenience init(entityName: String, managedObjectHandler handler: @escaping (NSManagedObject) -> Bool) {
    self.init(entityName: entityName, entity: nil)
    objectHandler = handler
  }

  /// A request inserting into `entity` the rows a handler fills in as managed objects (Core Data's
  /// `init(entity:managedObjectHandler:)`; see ``managedObjectHandler``).
  public convenience init(entity: NSEntityDescription, managedObjectHandler handler: @escaping (NSManagedObject) -> Bool) {
    self.init(entityName: entity.entityName, entity: entity)
    objectHandler = handler
  }
}
