/// A class whose instances an entity makes: ``NSManagedObject`` and its subclasses, the only conformers
/// (the conformance is in `Object/`).
///
/// The model keeps and compares entities' classes as metatypes of this protocol, so that `Model/` does
/// not use the object layer above it; `Object/` turns them back into `NSManagedObject.Type` for the public
/// API (``NSEntityDescription/managedObjectClass``, ``NSManagedObjectModel/register(_:)``).
protocol EntityClass: AnyObject {
  /// Whether this class is the base class itself (``NSManagedObject``), which an entity with no class of
  /// its own makes.
  static var isBaseEntityClass: Bool { get }
}
