import Foundation
import Synchronization

/// Which Swift class stands for which entity, for models loaded from Xcode files.
///
/// An Xcode model names a class per entity (`representedClassName`). Core Data on Apple platforms
/// asks the Objective-C runtime for the class of that name, which knows every class of a loaded module.
/// Swift on Linux has no lookup by class name, so this table stands in for the runtime: classes are
/// registered once per process, by name, and an entity's ``EntityDescription/managedObjectClass``
/// resolves its `representedClassName` through it when the model is used, as Core Data's does.
///
/// Register in the module that declares the classes, at a moment that always comes before its model
/// can be loaded (the tutorial's `NotesModel` does it when its resource bundle is first asked for), so
/// that the code that loads the model stays what it is on a Mac: `ManagedObjectModel(contentsOf: url)`.
///
/// ```swift
/// public static let bundle: Bundle = {
///   ManagedObjectModel.register(Note.self)  // for every entity whose representedClassName is "Note"
///   return .module
/// }()
/// ```
///
/// ``register(_:forEntityName:)`` ties a class to one entity instead, whatever its class name says.
extension ManagedObjectModel {
  private static let registry = Locked<[String: ManagedObject.Type]>([:])

  /// Counts the registrations. A frozen entity caches the class it resolved together with this count,
  /// so that the class of every object made (a fault in a merge, a row in a fetch, `Note(context:)`) is
  /// read without taking the process-wide registry's lock, and a later registration is still seen.
  static let registryGeneration = Atomic<Int>(0)

  /// Makes instances of `entityName` be created as `type`.
  public static func register(_ type: ManagedObject.Type, forEntityName entityName: String) {
    registry.withLock { $0["entity:" + entityName] = type }
    registryGeneration.add(1, ordering: .releasing)
  }

  /// Makes instances of every entity whose `representedClassName` is the type's name be created as `type`.
  ///
  /// The name is the type's own (`Note`); a `representedClassName` with a module prefix (`MyApp.Note`,
  /// Xcode's `$(PRODUCT_MODULE_NAME).Note`) matches it too. Registering again replaces the class.
  public static func register(_ type: ManagedObject.Type) {
    registry.withLock { $0["class:" + String(describing: type)] = type }
    registryGeneration.add(1, ordering: .releasing)
  }

  static func registeredClass(entityName: String, className: String?) -> ManagedObject.Type? {
    registry.withLock { table in
      if let type = table["entity:" + entityName] { return type }
      guard let className else { return nil }
      let bare = className.split(separator: ".").last.map(String.init) ?? className
      return table["class:" + className] ?? table["class:" + bare]
    }
  }
}
