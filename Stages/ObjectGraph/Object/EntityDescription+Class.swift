import Foundation

extension NSManagedObject: EntityClass {
  static var isBaseEntityClass: Bool { self == NSManagedObject.self }
}

// The class side of an entity, in terms of ``NSManagedObject`` (the model keeps it as an `EntityClass`
// metatype, see `Model/EntityClass.swift`).
extension NSEntityDescription {
  /// Makes an entity.
  /// - Parameters:
  ///   - name: the entity's name, used in fetch requests and as the base of its table name.
  ///   - managedObjectClass: the Swift subclass of ``NSManagedObject`` instances of this entity are made as.
  ///   - properties: its own attributes and relationships (inherited ones come from the superentity).
  public convenience init(
    name: String, managedObjectClass: NSManagedObject.Type = NSManagedObject.self, properties: [NSPropertyDescription]
  ) {
    self.init(name: name, properties: properties)
    if managedObjectClass != NSManagedObject.self { entityClass = managedObjectClass }
  }

  /// The Swift class instances of this entity are made as: the class given at init, else the class
  /// registered for the entity (``NSManagedObjectModel/register(_:forEntityName:)``) or for its
  /// `representedClassName`, else the ``NSManagedObject`` subclass its `representedClassName` names in the
  /// loaded modules (found by name, as Core Data finds it), else ``NSManagedObject``.
  public var managedObjectClass: NSManagedObject.Type {
    get { (resolvedEntityClass as? NSManagedObject.Type) ?? NSManagedObject.self }
    set { entityClass = newValue }
  }
}
