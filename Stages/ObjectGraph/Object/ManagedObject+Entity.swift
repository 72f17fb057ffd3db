import Foundation

extension NSManagedObject {
  /// The entity this subclass stands for, in the models in use: Core Data's `entity()` class method.
  ///
  /// ```swift
  /// let request = NSFetchRequest<Note>()
  /// request.entity = Note.entity()
  /// ```
  ///
  /// The models searched are those an ``NSPersistentStoreCoordinator`` has loaded (and that are still in use);
  /// in each, the entity is found as `Note(context:)` finds it: the entity whose
  /// ``NSEntityDescription/managedObjectClass`` is the class (directly or through the class registry), or else
  /// the entity named like the class. When several models in use have it, the most recently loaded one's is
  /// returned; if they differ (other version hashes), a warning is written to standard error once per
  /// class, as Core Data logs one. A class no model in use has stops the program with a message, as using
  /// Core Data's `nil` answer would.
  public class func entity() -> NSEntityDescription {
    guard let entity = NSManagedObjectModel.loadedEntity(forClass: self) else {
      programmerError(
        "ObjectGraph: \(self).entity(): no model in use has an entity for class \(self). Add a store to a coordinator with the model first, give the entity managedObjectClass \(self) or register the class (NSManagedObjectModel.register), or look the entity up by name (model.entitiesByName)."
      )
    }
    return entity
  }

  /// A fetch request for the entity this subclass stands for (``entity()``), returning managed objects:
  /// Core Data's `fetchRequest()` class method.
  ///
  /// Xcode's generated code declares a typed one beside it (`NSFetchRequest<Note>`), which ports as written;
  /// as in Core Data, `let request = Note.fetchRequest()` is then ambiguous, and
  /// `let request: NSFetchRequest<Note> = Note.fetchRequest()` picks the typed one.
  public class func fetchRequest() -> NSFetchRequest<any NSFetchRequestResult> {
    let request = NSFetchRequest<any NSFetchRequestResult>(entityName: entity().entityName)
    request.entity = entity()
    return request
  }
}
