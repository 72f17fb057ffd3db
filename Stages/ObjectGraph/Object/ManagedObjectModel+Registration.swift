import Foundation

// The public side of the class registry (`Model/ManagedObjectModel+Registry.swift`), which keeps classes as
// `EntityClass` metatypes: here they are taken as ``NSManagedObject`` subclasses.
//
// Code written for Core Data never calls these: an entity finds its class by the model's class name
// (`representedClassName`) on its own, as Core Data finds it through the Objective-C runtime. They are
// an engine addition for the classes that lookup cannot find (generic or nested classes) and for giving
// an entity another class than its class name says.
extension NSManagedObjectModel {
  /// Makes instances of `entityName` be created as `type`, whatever the entity's `representedClassName`
  /// says (an engine addition: Core Data has no registration, see ``register(_:)``).
  public static func register(_ type: NSManagedObject.Type, forEntityName entityName: String) {
    registerEntityClass(type, forEntityName: entityName)
  }

  /// Makes instances of every entity whose `representedClassName` is the type's name be created as `type`.
  ///
  /// An engine addition code written for Core Data never needs: without it, an entity finds the top-level,
  /// non-generic ``NSManagedObject`` subclass its `representedClassName` names (`Note`, `.Note` or
  /// `MyApp.Note`) in the loaded modules by itself. Register a class that lookup cannot find (a generic
  /// or nested class), or to choose among same-named classes of several modules.
  ///
  /// The name is the type's own (`Note`); a `representedClassName` with a module prefix (`MyApp.Note`,
  /// Xcode's `$(PRODUCT_MODULE_NAME).Note`) matches it too. A registered class wins over the lookup by
  /// name; registering again replaces the class.
  public static func register(_ type: NSManagedObject.Type) {
    registerEntityClass(type)
  }
}
