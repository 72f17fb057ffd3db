import Foundation

extension ManagedObject: EntityClass {
  static var isBaseEntityClass: Bool { self == ManagedObject.self }
}

// The class side of an entity, in terms of ``ManagedObject`` (the model keeps it as an `EntityClass`
// metatype, see `Model/EntityClass.swift`).
extension EntityDescription {
  /// Makes an entity.
  /// - Parameters:
  ///   - name: the entity's name, used in fetch requests and as the base of its table name.
  ///   - managedObjectClass: the Swift subclass of ``ManagedObject`` instances of this entity are made as.
  ///   - properties: its own attributes and relationships (inherited ones come from the superentity).
  public convenience init(
    name: String, managedObjectClass: ManagedObject.Type = ManagedObject.self, properties: [PropertyDescription]
  ) {
    self.init(name: name, properties: properties)
    if managedObjectClass != ManagedObject.self { entityClass = managedObjectClass }
  }

  /// The Swift class instances of this entity are made as: the class given at init, else the class
  /// registered for the entity (``ManagedObjectModel/register(_:forEntityName:)``) or for its
  /// `representedClassName`, else ``ManagedObject``.
  public var managedObjectClass: ManagedObject.Type {
    get { (resolvedEntityClass as? ManagedObject.Type) ?? ManagedObject.self }
    set { entityClass = newValue }
  }
}
