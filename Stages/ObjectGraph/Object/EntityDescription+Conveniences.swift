import Foundation

/// Core Data's class methods on `NSEntityDescription` that ported code calls to find an entity by name and
/// make an object of it.
extension NSEntityDescription {
  /// The entity named `name` in the model of `context`'s coordinator, or `nil`.
  public static func entity(forEntityName name: String, in context: NSManagedObjectContext) -> NSEntityDescription? {
    context.persistentStoreCoordinator?.managedObjectModel.entitiesByName[name]
  }

  /// Makes an object of the entity named `name` and inserts it into `context`, as its class (the entity's
  /// ``managedObjectClass``).
  ///
  /// Core Data's returns a non-optional object and stops the program for an unknown name; this one
  /// throws instead.
  /// - Throws: ``ObjectGraphUnknownKeyError`` naming the model's entities, when there is no such
  ///   entity; ``ObjectGraphInvalidValueError`` for an abstract one.
  public static func insertNewObject(forEntityName name: String, into context: NSManagedObjectContext) throws -> NSManagedObject {
    let entity = try context.entity(named: name)
    guard !entity.isAbstract else {
      throw ObjectGraphError(
        .invalidValue, "Entity \(name) is abstract: objects of it cannot be made. Insert an object of one of its subentities.")
    }
    return entity.managedObjectClass.init(entity: entity, insertInto: context)
  }
}
