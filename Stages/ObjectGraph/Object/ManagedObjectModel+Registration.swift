import Foundation

// The public side of the class registry (`Model/ManagedObjectModel+Registry.swift`), which keeps classes as
// `EntityClass` metatypes: here they are taken as ``NSManagedObject`` subclasses.
extension NSManagedObjectModel {
  /// Makes instances of `entityName` be created as `type`.
  public static func register(_ type: NSManagedObject.Type, forEntityName entityName: String) {
    registerEntityClass(type, forEntityName: entityName)
  }

  /// Makes instances of every entity whose `representedClassName` is the type's name be created as `type`.
  ///
  /// The name is the type's own (`Note`); a `representedClassName` with a module prefix (`MyApp.Note`,
  /// Xcode's `$(PRODUCT_MODULE_NAME).Note`) matches it too. Registering again replaces the class.
  public static func register(_ type: NSManagedObject.Type) {
    registerEntityClass(type)
  }

  /// Lets entities find their classes by a bare `representedClassName` (`Mood`) among the classes of the
  /// module that declares `type` (`MoodyModel.Mood`), without registering each class: one call for a
  /// whole model whose classes live in one module.
  ///
  /// A `representedClassName` that names its module (`MoodyModel.Mood`, as Xcode writes it for a class in
  /// a named module) needs no call at all: the class is found by that name, as the Objective-C runtime
  /// finds it on Apple platforms. Only non-generic classes that subclass ``NSManagedObject`` are found.
  public static func registerClasses(inModuleOf type: NSManagedObject.Type) {
    registerEntityClasses(inModuleOf: type)
  }
}
