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
  /// A name the context's model does not have, an abstract entity, or a context with no coordinator is a
  /// programmer error: Core Data raises an exception, and this stops the program with a message naming the
  /// model's entities (or the abstract entity's subentities), as ``NSManagedObject/value(forKey:)`` does for an
  /// unknown key. Look the entity up with ``entity(forEntityName:in:)`` first when the name comes from data.
  public static func insertNewObject(forEntityName name: String, into context: NSManagedObjectContext) -> NSManagedObject {
    let entity: NSEntityDescription
    do {
      entity = try context.entity(named: name)
    } catch {
      programmerError("ObjectGraph: insertNewObject(forEntityName:into:): \((error as? ObjectGraphError)?.message ?? "\(error)")")
    }
    guard !entity.isAbstract else {
      let concrete = entity.subentities.filter { !$0.isAbstract }.map(\.entityName)
      programmerError(
        "ObjectGraph: insertNewObject(forEntityName:into:): entity \(name) is abstract: objects of it cannot be made. Insert an object of one of its subentities (\(concrete.joined(separator: ", ")))."
      )
    }
    return entity.managedObjectClass.init(entity: entity, insertInto: context)
  }
}
