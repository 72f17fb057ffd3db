import Foundation
internal import Synchronization

/// Which Swift class stands for which entity, for models loaded from Xcode files.
///
/// An Xcode model names a class per entity (`representedClassName`). Core Data on Apple platforms asks
/// the Objective-C runtime for the class of that name, and no code registers anything. The engine
/// does the same with the Swift runtime, when the model is used:
///
/// - a name with its module (`NotesModel.Note`, as momc writes Xcode's `.Note`) is looked up as written
///   (`_typeByName`);
/// - a bare name (`Note`, or `.Note`, Xcode's "Current Product Module") is looked up among the
///   top-level classes of every loaded module (`SwiftClassLookup`). When several modules declare a
///   class of that name, the module of the resource bundle the model was loaded from wins (SwiftPM
///   names it `<Package>_<Target>.resources`); failing that, the first module-qualified name in sorted
///   order wins, and a warning names the candidates, once per name.
///
/// Only ``NSManagedObject`` subclasses count; a name that finds none leaves the entity's objects plain
/// ``NSManagedObject``s, as Core Data does. Generic and nested classes have no name to be found by.
///
/// The table below is an engine addition code written for Core Data never needs: a class registered
/// for the entity (``register(_:forEntityName:)``) or under its own name (``register(_:)``) wins over
/// the lookup by name, for classes the lookup cannot find and for models whose class names say
/// nothing useful.
extension NSManagedObjectModel {
  private static let registry = Locked<[String: any EntityClass.Type]>([:])

  /// Counts the registrations. A frozen entity caches the class it resolved together with this count,
  /// so that the class of every object made (a fault in a merge, a row in a fetch, `Note(context:)`) is
  /// read without taking the process-wide registry's lock, and a later registration is still seen.
  static let registryGeneration = Atomic<Int>(0)

  /// The classes found for each bare class name (module-qualified name and class, sorted by name): the
  /// lookup by name is made once per name.
  private static let foundByName = Locked<[String: [(name: String, type: any EntityClass.Type)]]>([:])
  /// The bare class names the several-modules warning was written for already.
  private static let warnedNames = Locked<Set<String>>([])

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

  /// The class of the entity named `entityName` whose `representedClassName` is `className`, in a model
  /// read from `modelURL` (a hint for a bare name several modules declare): the registered class, else the
  /// class found by name, else `nil`.
  static func registeredClass(entityName: String, className: String?, modelURL: URL? = nil) -> (any EntityClass.Type)? {
    let registered = registry.withLock { table -> (any EntityClass.Type)? in
      if let type = table["entity:" + entityName] { return type }
      guard let className else { return nil }
      let bare = className.split(separator: ".").last.map(String.init) ?? className
      return table["class:" + className] ?? table["class:" + bare]
    }
    if let registered { return registered }
    guard let className, !className.isEmpty else { return nil }
    let trimmed = className.hasPrefix(".") ? String(className.dropFirst()) : className
    if trimmed.contains(".") { return _typeByName(trimmed) as? any EntityClass.Type }
    return classFound(bareName: trimmed, entityName: entityName, modelURL: modelURL)
  }

  /// The ``EntityClass`` named `bareName` in one of the loaded modules (see the extension's documentation).
  private static func classFound(bareName: String, entityName: String, modelURL: URL?) -> (any EntityClass.Type)? {
    let found = entityClasses(bareName: bareName)
    guard let chosen = choose(among: found, modelURL: modelURL) else { return nil }
    if chosen.isGuess, warnedNames.withLock({ $0.insert(bareName).inserted }) {
      ErrorLog.warn(
        "entity \(entityName)'s class name \(bareName) names a class in \(found.count) modules (\(found.map(\.name).joined(separator: ", "))); its objects are made as \(chosen.name), the first by name. Write the module in the model's class name (\(chosen.name)), or register the class (NSManagedObjectModel.register(_:forEntityName:))."
      )
    }
    return chosen.type
  }

  /// The ``EntityClass``es named `bareName` in the loaded modules, with their module-qualified names,
  /// sorted by name (looked up once per name).
  static func entityClasses(bareName: String) -> [(name: String, type: any EntityClass.Type)] {
    if let known = foundByName.withLock({ $0[bareName] }) { return known }
    let found = SwiftClassLookup.qualifiedNames(forBareName: bareName).compactMap { name in
      (_typeByName(name) as? any EntityClass.Type).map { (name: name, type: $0) }
    }
    foundByName.withLock { $0[bareName] = found }
    return found
  }

  /// The class to use among `found` (sorted by name) for a model read from `modelURL`: the only one; else
  /// the only one whose module is the target of the resource bundle holding the model; else the first,
  /// a guess (`isGuess`). `nil` when `found` is empty.
  static func choose(
    among found: [(name: String, type: any EntityClass.Type)], modelURL: URL?
  ) -> (name: String, type: any EntityClass.Type, isGuess: Bool)? {
    guard let first = found.first else { return nil }
    guard found.count > 1 else { return (first.name, first.type, false) }
    if let bundle = modelURL.flatMap(resourceBundleName(of:)) {
      let fromBundle = found.filter { bundle == module(of: $0.name) || bundle.hasSuffix("_" + module(of: $0.name)) }
      if fromBundle.count == 1, let only = fromBundle.first { return (only.name, only.type, false) }
    }
    return (first.name, first.type, true)
  }

  /// The module of a module-qualified class name (`NotesModel` for `NotesModel.Note`).
  private static func module(of qualifiedName: String) -> String {
    qualifiedName.split(separator: ".").first.map(String.init) ?? qualifiedName
  }

  /// The name of the resource bundle holding the file at `url`, as a module name would spell it (every
  /// character that cannot be in an identifier made `_`): `CoreDataStackWorkshop_NotesModel` for
  /// `…/CoreDataStackWorkshop_NotesModel.resources/DataModel.xcdatamodeld`; `nil` outside a bundle.
  private static func resourceBundleName(of url: URL) -> String? {
    guard
      let bundle = url.standardizedFileURL.pathComponents.last(where: {
        $0.hasSuffix(".resources") || $0.hasSuffix(".bundle")
      })
    else { return nil }
    let base = bundle.split(separator: ".", omittingEmptySubsequences: false).dropLast().joined(separator: ".")
    return String(base.map { $0.isLetter || $0.isNumber || $0 == "_" ? $0 : "_" })
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
        "\(found.count) loaded models have an entity for class \(name) (\(found.map(\.entityName).joined(separator: ", "))), and they differ; \(name).entity() answers with the most recently loaded one's, \(chosen.entityName). Give each model its own class, or look the entity up in the model you mean (model.entitiesByName)."
      )
    }
    return chosen
  }
}
