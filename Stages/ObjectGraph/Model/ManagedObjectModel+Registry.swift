import Foundation
import Synchronization

/// Which Swift class stands for which entity, for models loaded from Xcode files.
///
/// An Xcode model names a class per entity (`representedClassName`). Core Data on Apple platforms
/// asks the Objective-C runtime for the class of that name, which knows every class of a loaded module.
/// Swift on Linux has no lookup by class name, so this table stands in for the runtime: classes are
/// registered once per process, by name, and an entity's ``NSEntityDescription/managedObjectClass``
/// resolves its `representedClassName` through it when the model is used, as Core Data's does.
///
/// Register in the module that declares the classes, at a moment that always comes before its model
/// can be loaded (the tutorial's `NotesModel` does it when its resource bundle is first asked for), so
/// that the code that loads the model stays what it is on a Mac: `NSManagedObjectModel(contentsOf: url)`.
///
/// ```swift
/// public static let bundle: Bundle = {
///   NSManagedObjectModel.register(Note.self)  // for every entity whose representedClassName is "Note"
///   return .module
/// }()
/// ```
///
/// ``register(_:forEntityName:)`` ties a class to one entity instead, whatever its class name says.
extension NSManagedObjectModel {
  private static let registry = Locked<[String: any EntityClass.Type]>([:])

  /// Counts the registrations. A frozen entity caches the class it resolved together with this count,
  /// so that the class of every object made (a fault in a merge, a row in a fetch, `Note(context:)`) is
  /// read without taking the process-wide registry's lock, and a later registration is still seen.
  static let registryGeneration = Atomic<Int>(0)

  /// Records `type` for the entity named `entityName` (``register(_:forEntityName:)``).
  static func registerEntityClass(_ type: any EntityClass.Type, forEntityName entityName: String) {
    registry.withLock { $0["entity:" + entityName] = type }
    registryGeneration.add(1, ordering: .releasing)
  }

  /// Records `type` under its own name, for entities whose `representedClassName` is that name
  /// (``register(_:)``).
  static func registerEntityClass(_ type: any EntityClass.Type) {
    registry.withLock { $0["class:" + String(describing: type)] = type }
    registryGeneration.add(1, ordering: .releasing)
  }

  /// Records the module that declares `type`, searched for bare class names
  /// (``registerClasses(inModuleOf:)``).
  static func registerEntityClasses(inModuleOf type: any EntityClass.Type) {
    let qualified = String(reflecting: type)
    guard let module = qualified.split(separator: ".").first.map(String.init), module != qualified else { return }
    registry.withLock { $0["module:" + module] = type }
    registryGeneration.add(1, ordering: .releasing)
  }

  static func registeredClass(entityName: String, className: String?) -> (any EntityClass.Type)? {
    let (registered, modules) = registry.withLock { table -> ((any EntityClass.Type)?, [String]) in
      if let type = table["entity:" + entityName] { return (type, []) }
      guard let className else { return (nil, []) }
      let bare = className.split(separator: ".").last.map(String.init) ?? className
      if let type = table["class:" + className] ?? table["class:" + bare] { return (type, []) }
      return (nil, table.keys.filter { $0.hasPrefix("module:") }.map { String($0.dropFirst("module:".count)) }.sorted())
    }
    if let registered { return registered }
    guard let className, !className.isEmpty else { return nil }
    // By name, as the Objective-C runtime finds a class: the name as written when it names its module,
    // else in each module registered with registerClasses(inModuleOf:). Xcode's "current product module"
    // writes a leading dot (`.Mood`).
    let trimmed = className.hasPrefix(".") ? String(className.dropFirst()) : className
    if trimmed.contains("."), let type = _typeByName(trimmed) as? any EntityClass.Type { return type }
    for module in modules {
      if let type = _typeByName(module + "." + trimmed) as? any EntityClass.Type { return type }
    }
    return nil
  }
}

/// The models the process has loaded, for ``NSManagedObject/entity()``: Core Data's class method answers from
/// the models in use, not from a context.
extension NSManagedObjectModel {
  /// A model a coordinator has used (frozen), held weakly: a model nobody uses any more is not searched.
  private struct LoadedModel: Sendable {
    weak var model: NSManagedObjectModel?
  }

  /// Every model frozen so far, oldest first (the dead ones are dropped as new ones come).
  private static let loaded = Locked<[LoadedModel]>([])
  /// The classes for which the several-models warning was written already (it is written once per class).
  private static let warnedClasses = Locked<Set<String>>([])

  /// Records a model that has just been frozen by a coordinator (or a migration) using it.
  static func noteLoaded(_ model: NSManagedObjectModel) {
    loaded.withLock { models in
      models.removeAll { $0.model == nil || $0.model === model }
      models.append(LoadedModel(model: model))
    }
  }

  /// The entity `type` stands for in the models in use, as ``NSManagedObject/entity()`` answers it: the entity
  /// of the most recently loaded model that has the class (see ``entity(forClass:)``), or `nil` when none
  /// has it. When models in use disagree about the entity (different version hashes), a warning naming
  /// them is written to standard error once per class, as Core Data logs one.
  static func loadedEntity(forClass type: any EntityClass.Type) -> NSEntityDescription? {
    let models = loaded.withLock { $0.compactMap(\.model) }
    let found = models.reversed().compactMap { $0.entity(forClass: type) }
    guard let chosen = found.first else { return nil }
    let differing = Set(found.map(\.versionHash)).count > 1
    let name = String(describing: type)
    if differing, warnedClasses.withLock({ $0.insert(name).inserted }) {
      ErrorLog.warn(
        "\(found.count) loaded models have an entity for class \(name) (\(found.map(\.name).joined(separator: ", "))), and they differ; \(name).entity() answers with the most recently loaded one's, \(chosen.name). Give each model its own class, or look the entity up in the model you mean (model.entitiesByName)."
      )
    }
    return chosen
  }
}
