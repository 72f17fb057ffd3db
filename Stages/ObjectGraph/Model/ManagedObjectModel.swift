import Foundation
internal import Synchronization

/// A data model: the entities an app stores, with their attributes and relationships.
///
/// Make one in code:
///
/// ```swift
/// let model = try NSManagedObjectModel(entities: [notebook, note])
/// ```
///
/// or load Xcode's format, a `.xcdatamodeld` (its current version) or a single `.xcdatamodel`:
///
/// ```swift
/// let url = Bundle.module.url(forResource: "DataModel", withExtension: "xcdatamodeld")!
/// guard let model = NSManagedObjectModel(contentsOf: url) else { … }  // nil when it cannot be read
/// ```
///
/// The model resolves relationship destinations and inverses by name and checks that the whole is
/// consistent; a model that is not is an ``ObjectGraphModelInvalidError`` error naming what is
/// wrong. Once an ``NSPersistentStoreCoordinator`` uses the model it is frozen: its descriptions can no
/// longer change.
public final class NSManagedObjectModel: NSObject, @unchecked Sendable {
  struct State {
    var entities: [NSEntityDescription]
    var versionIdentifiers: Set<String> = []
    var configurations: [String: [String]] = [:]
    var fetchRequestTemplates: [FetchRequestTemplate] = []
    var sourceURL: URL?
    var loadWarnings: [ModelLoadWarning] = []
    /// The `.xcdatamodel` version the model was read from (its folder name without the extension), if any.
    var versionName: String?
    var localizationDictionary: [String: String]?
    /// Why the entities last set through ``NSManagedObjectModel/entities`` do not make a model, if they do not.
    var resolutionError: ObjectGraphError?
  }

  let state: Frozen<State>
  private let frozenFlag = Locked(false)
  /// Set when ``freeze()`` has frozen every entity: from then on only a class registration can change
  /// which entity a class stands for.
  private let freezeFinished = Atomic<Bool>(false)
  /// The entity each class stands for (``entity(forClass:)``), kept once the model is frozen, with the
  /// registry generation it was found at: `Note(context:)` asks on every insert.
  private let entitiesByClass = Locked<(generation: Int, entities: [ObjectIdentifier: NSEntityDescription])>((-1, [:]))
  /// ``entitiesByName``, made when ``freeze()`` froze the entities; `nil` until then.
  private let frozenEntitiesByName = Locked<[String: NSEntityDescription]?>(nil)

  /// An empty model, with no entities (Core Data's `init()`); what a container whose model could not be
  /// found holds.
  public override init() {
    state = Frozen(State(entities: []))
  }

  /// Makes a model from entities, resolving every relationship's destination and inverse.
  /// - Throws: ``ObjectGraphModelInvalidError`` when two entities share a name, a relationship
  ///   names an entity or inverse that does not exist, an entity inherits from itself, or two properties
  ///   of one entity share a name.
  public init(entities: [NSEntityDescription]) throws {
    state = Frozen(State(entities: entities))
    super.init()
    try resolve()
  }

  init(
    entities: [NSEntityDescription], versionIdentifiers: Set<String>, configurations: [String: [String]],
    fetchRequestTemplates: [FetchRequestTemplate], sourceURL: URL?, loadWarnings: [ModelLoadWarning] = [],
    versionName: String? = nil
  ) throws {
    state = Frozen(
      State(
        entities: entities, versionIdentifiers: versionIdentifiers, configurations: configurations,
        fetchRequestTemplates: fetchRequestTemplates, sourceURL: sourceURL, loadWarnings: loadWarnings,
        versionName: versionName))
    super.init()
    try resolve()
  }

  /// The model's entities, in the order they were given.
  ///
  /// Setting them builds a model in code as Core Data does (`let model = NSManagedObjectModel();
  /// model.entities = [note, notebook]`), until a coordinator first uses the model: relationships set with
  /// ``NSRelationshipDescription/destinationEntity`` and ``NSRelationshipDescription/inverseRelationship``
  /// are resolved then. Entities that do not fit together (a relationship to an entity the model lacks, two
  /// entities of one name, ...) are not refused here, as the setter cannot throw: adding a store to a
  /// coordinator of the model throws the error, ``ObjectGraphModelInvalidError``, saying what is wrong.
  public var entities: [NSEntityDescription] {
    get { state.read(\.entities) }
    set {
      state.write(\.entities, newValue, what: "the model")
      let problem: ObjectGraphError?
      do {
        try resolve()
        problem = nil
      } catch {
        problem = error as? ObjectGraphError ?? ObjectGraphError(.modelInvalid, "\(error)")
      }
      state.write(\.resolutionError, problem, what: "the model")
    }
  }

  /// Why the entities set through ``entities`` do not make a model; `nil` when they do.
  var resolutionError: ObjectGraphError? { state.read(\.resolutionError) }

  /// The model's entities by name.
  public var entitiesByName: [String: NSEntityDescription] {
    // A frozen model's table is made once (it is set only then): every fetch and count looks its entity up here.
    if let frozen = frozenEntitiesByName.withLock({ $0 }) { return frozen }
    return Self.byName(entities)
  }

  private static func byName(_ entities: [NSEntityDescription]) -> [String: NSEntityDescription] {
    Dictionary(entities.map { ($0.entityName, $0) }, uniquingKeysWith: { first, _ in first })
  }

  /// Free-form identifiers of this model version (Xcode's "Model Version Identifier").
  public var versionIdentifiers: Set<String> {
    get { state.read(\.versionIdentifiers) }
    set { state.write(\.versionIdentifiers, newValue, what: "the model's version identifiers") }
  }

  /// The model's strings in the user's language (Core Data's `localizationDictionary`), under Core Data's keys:
  /// `"Entity/Note"` and `"Property/title"` (or `"Property/title/Entity/Note"`) for the names validation errors
  /// show, and `"ErrorString/<warning>"` for a validation predicate's warning.
  ///
  /// ```swift
  /// model.localizationDictionary = ["Property/title": "Titre", "ErrorString/Too short": "Trop court"]
  /// ```
  ///
  /// Validation errors use it: a failed validation predicate's message is the localized warning when the
  /// dictionary has one, and the error's `NSLocalizedDescriptionKey` names the entity and property by their
  /// localized names. Core Data reads it from the model's `.strings` file in the app's bundle
  /// (`<Model>Model.strings`) when it is `nil`; the engine reads no `.strings` file: set it in code, before the
  /// model is in use, as every description.
  public var localizationDictionary: [String: String]? {
    get { state.read(\.localizationDictionary) }
    set { state.write(\.localizationDictionary, newValue, what: "the model's localization dictionary") }
  }

  /// The localized name of `property` of `entity`, from ``localizationDictionary`` (most specific key first),
  /// or `property` itself.
  func localizedName(ofProperty property: String, entity: String) -> String {
    guard let strings = localizationDictionary else { return property }
    return strings["Property/\(property)/Entity/\(entity)"] ?? strings["Property/\(property)"] ?? property
  }

  /// The localized name of `entity`, or `entity` itself.
  func localizedName(ofEntity entity: String) -> String {
    localizationDictionary?["Entity/\(entity)"] ?? entity
  }

  /// Every entity's ``NSEntityDescription/versionHash`` by entity name.
  public var entityVersionHashesByName: [String: Data] {
    Dictionary(entities.map { ($0.entityName, $0.versionHash) }, uniquingKeysWith: { first, _ in first })
  }

  /// The names of the model's configurations (Xcode's named groups of entities for separate stores).
  public var configurations: [String] { state.read(\.configurations).keys.sorted() }

  /// Makes `configuration` name `entities` (Core Data's `setEntities(_:forConfigurationName:)`), replacing what it
  /// named: a model built in code gets the configurations Xcode's editor gives a model file. Entities the model
  /// does not have are left out when the configuration is read. Like the model's other setters, it stops the
  /// program once the model is in use by a coordinator, whose stores hold their configurations' entities.
  public func setEntities(_ entities: [NSEntityDescription], forConfigurationName configuration: String) {
    let names = entities.map(\.entityName)
    state.mutate(what: "the model's configurations") { $0.configurations[configuration] = names }
  }

  /// The entities of a configuration: all entities for `nil` or `"Default"`.
  /// - Returns: `nil` when the configuration does not exist.
  public func entities(forConfigurationName name: String?) -> [NSEntityDescription]? {
    guard let name, name != "Default", name != "PF_DEFAULT_CONFIGURATION_NAME" else { return entities }
    guard let names = state.read(\.configurations)[name] else { return nil }
    let byName = entitiesByName
    return names.compactMap { byName[$0] }
  }

  /// The model's fetch request templates, as read from its file or set in code, by name. Apps use
  /// ``fetchRequestTemplatesByName`` and ``fetchRequestTemplate(forName:)``, which make requests of them.
  public var fetchRequestTemplates: [FetchRequestTemplate] { state.read(\.fetchRequestTemplates) }

  /// The file or folder the model was loaded from, if any.
  public var sourceURL: URL? { state.read(\.sourceURL) }

  /// The name of the Xcode model version the model was read from (`DataModel 2` for
  /// `DataModel 2.xcdatamodel`), or `nil` for a model made in code. A store records it
  /// (``ObjectGraphModelVersionNameKey``), for a migration to choose among versions with equal hashes.
  var versionName: String? { state.read(\.versionName) }

  /// What the Xcode model loader found odd and read as Core Data reads it (for example a Boolean default written
  /// as `1`), in file order; empty for a model made in code. See ``ModelLoadWarning``.
  public var loadWarnings: [ModelLoadWarning] { state.read(\.loadWarnings) }

  /// Whether a store described by `metadata` was made with this model (the version hashes of every entity
  /// of the configuration match), so the store can be opened without migration.
  ///
  /// A store the engine wrote before it computed Core Data's version hashes matches too, by the digests it
  /// wrote then; opening it read-write brings its metadata up to Core Data's hashes.
  public func isConfiguration(withName configuration: String?, compatibleWithStoreMetadata metadata: [String: Any])
    -> Bool
  {
    hashMatch(configuration: configuration, metadata: metadata) != nil
  }

  /// Which version hashes of this model's configuration a store's metadata holds.
  enum HashMatch: Sendable {
    /// Core Data's (``NSEntityDescription/versionHash``).
    case coreData
    /// The engine's own from before: its format 1 digests (``NSEntityDescription/legacyVersionHash``), or the
    /// hashes its format 2 stores got before Core Data's recipe for ordered to-manys and version hash
    /// modifiers was proven (``NSEntityDescription/earlierVersionHash``). Either way the same model: the
    /// store gets Core Data's hashes when opened read-write.
    case legacy
  }

  /// How a store described by `metadata` matches the configuration's entities, or `nil` when it does not.
  func hashMatch(configuration: String?, metadata: [String: Any]) -> HashMatch? {
    guard let stored = metadata[NSStoreModelVersionHashesKey] as? [String: Data],
      let entities = entities(forConfigurationName: configuration)
    else { return nil }
    let mine = Dictionary(entities.map { ($0.name, $0.versionHash) }, uniquingKeysWith: { first, _ in first })
    if stored == mine { return .coreData }
    let earlier = Dictionary(entities.map { ($0.name, $0.earlierVersionHash) }, uniquingKeysWith: { first, _ in first })
    if earlier != mine && stored == earlier { return .legacy }
    let legacy = Dictionary(entities.map { ($0.name, $0.legacyVersionHash) }, uniquingKeysWith: { first, _ in first })
    return stored == legacy ? .legacy : nil
  }

  /// Whether a coordinator has started using the model (its descriptions are then immutable).
  public var isFrozen: Bool { frozenFlag.withLock { $0 } }

  /// Freezes the model: called by the first coordinator that uses it.
  func freeze() {
    let alreadyFrozen = frozenFlag.withLock { flag in
      defer { flag = true }
      return flag
    }
    guard !alreadyFrozen else {
      Self.noteLoaded(self)  // in use again: the most recent for `entity()`
      return
    }
    for entity in entities { entity.freeze(model: self) }
    state.freeze()
    frozenEntitiesByName.withLock { $0 = Self.byName(entities) }
    freezeFinished.store(true, ordering: .releasing)
    Self.noteLoaded(self)
  }

  /// The entity whose class is `type` (see ``NSEntityDescription/managedObjectClass``), else the entity
  /// named like the class: the entity `Note(context:)` inserts.
  func entity(forClass type: any EntityClass.Type) -> NSEntityDescription? {
    let generation = Self.registryGeneration.load(ordering: .acquiring)
    let isFrozen = freezeFinished.load(ordering: .acquiring)
    let key = ObjectIdentifier(type)
    if isFrozen, let known = entitiesByClass.withLock({ $0.generation == generation ? $0.entities[key] : nil }) {
      return known
    }
    let entities = self.entities
    let typeName = String(describing: type)
    let isBase = type.isBaseEntityClass
    let matches = { (entity: NSEntityDescription) in entity.resolvedEntityClass.map { ObjectIdentifier($0) == key } ?? isBase }
    guard let found = entities.first(where: matches) ?? entities.first(where: { $0.name == typeName })
    else { return nil }
    if isFrozen {
      entitiesByClass.withLock { cache in
        if cache.generation != generation { cache = (generation, [:]) }
        cache.entities[key] = found
      }
    }
    return found
  }

  // MARK: - Resolution

  private func resolve() throws {
    let entities = self.entities
    // Relationships built in code name their destination and inverse by object: take the names now.
    for entity in entities {
      for case let relationship as NSRelationshipDescription in entity.ownProperties {
        relationship.takeAssignedNames()
      }
    }
    var byName: [String: NSEntityDescription] = [:]
    for entity in entities {
      guard !entity.entityName.isEmpty else {
        throw ObjectGraphError(
          .modelInvalid,
          "An entity has no name. Give every entity a name (its NSEntityDescription.name) before a coordinator uses the model.")
      }
      guard byName[entity.entityName] == nil else {
        throw ObjectGraphError(.modelInvalid, "Two entities are named '\(entity.entityName)'. Entity names must be unique.")
      }
      // An entity's table is `Z` and its name in capitals, letters, digits and `_` kept: a name starting
      // with `_` would give a `Z_…` table, the prefix of the store's own (`Z_PRIMARYKEY`, `Z_METADATA`, join tables).
      let kept = entity.entityName.unicodeScalars.filter { CharacterSet.alphanumerics.contains($0) || $0 == "_" }
      guard kept.first != "_" else {
        throw ObjectGraphError(
          .modelInvalid,
          "Entity '\(entity.entityName)' would be stored in table Z\(String(String.UnicodeScalarView(kept)).uppercased()), and names starting with Z_ are the store's own (Z_PRIMARYKEY, Z_METADATA, join tables). Start the entity's name with a letter, as Xcode requires."
        )
      }
      byName[entity.entityName] = entity
    }
    // Root entities whose names differ only in case or punctuation would share one table `Z<NAME>`.
    var tables: [String: String] = [:]
    for entity in entities where entity.superentity == nil {
      let table = String(
        String.UnicodeScalarView(
          entity.entityName.uppercased().unicodeScalars.filter { CharacterSet.alphanumerics.contains($0) || $0 == "_" }))
      if let other = tables[table] {
        throw ObjectGraphError(
          .modelInvalid,
          "Entities '\(other)' and '\(entity.entityName)' would both be stored in table Z\(table) (names are upper-cased, and characters other than letters, digits and _ dropped). Rename one."
        )
      }
      tables[table] = entity.entityName
    }
    for entity in entities {
      var seen: Set<ObjectIdentifier> = [ObjectIdentifier(entity)]
      var parent = entity.superentity
      while let current = parent {
        guard seen.insert(ObjectIdentifier(current)).inserted else {
          throw ObjectGraphError(.modelInvalid, "Entity '\(entity.entityName)' inherits from itself. Break the inheritance cycle.")
        }
        guard byName[current.entityName] === current else {
          throw ObjectGraphError(
            .modelInvalid,
            "Entity '\(entity.entityName)' inherits from '\(current.entityName)', which is not one of the model's entities. Add it to the model."
          )
        }
        parent = current.superentity
      }
      for case let attribute as NSAttributeDescription in entity.ownProperties {
        guard let value = attribute.defaultValue, attribute.attributeType.isSupported else { continue }
        // A default is stored as the attribute type's Swift type (5 for an Integer 64 becomes Int64(5)).
        guard let typed = SlotValue.coerce(value, to: attribute.attributeType) else {
          throw ObjectGraphError(
            .modelInvalid,
            "The default value of \(entity.entityName).\(attribute.name) is \(value) (\(type(of: value))), which is not a \(attribute.attributeType.swiftTypeName). Give a default of the attribute's type."
          )
        }
        if let swiftValue = typed.swiftValue, Swift.type(of: swiftValue) != Swift.type(of: value) { attribute.defaultValue = swiftValue }
      }
      var names: Set<String> = []
      for property in entity.properties {
        guard !property.name.isEmpty else {
          throw ObjectGraphError(.modelInvalid, "Entity '\(entity.entityName)' has a property with an empty name.")
        }
        guard names.insert(property.name).inserted else {
          throw ObjectGraphError(
            .modelInvalid,
            "Entity '\(entity.entityName)' has two properties named '\(property.name)' (perhaps one inherited). Rename one.")
        }
      }
      try Self.checkIndexes(of: entity)
    }
    for entity in entities {
      for case let relationship as NSRelationshipDescription in entity.ownProperties {
        guard let destination = byName[relationship.destinationEntityName] else {
          throw ObjectGraphError(
            .modelInvalid,
            "Relationship '\(entity.entityName).\(relationship.name)' points to entity '\(relationship.destinationEntityName)', which the model does not have. Known entities: \(byName.keys.sorted().joined(separator: ", "))."
          )
        }
        var inverse: NSRelationshipDescription?
        if let inverseName = relationship.inverseRelationshipName {
          guard let found = destination.relationshipsByName[inverseName] else {
            throw ObjectGraphError(
              .modelInvalid,
              "Relationship '\(entity.entityName).\(relationship.name)' names inverse '\(inverseName)', but entity '\(destination.entityName)' has no relationship of that name."
            )
          }
          guard
            entity.isKind(of: byName[found.destinationEntityName] ?? destination)
              || (byName[found.destinationEntityName]?.isKind(of: entity) ?? false)
          else {
            throw ObjectGraphError(
              .modelInvalid,
              "Relationship '\(entity.entityName).\(relationship.name)' names inverse '\(destination.entityName).\(inverseName)', but that one points to '\(found.destinationEntityName)', not back to '\(entity.entityName)'."
            )
          }
          inverse = found
        }
        relationship.state.mutate(what: "relationship \(relationship.name)") {
          $0.resolvedBy = self
          $0.destinationEntity = destination
          $0.inverseRelationship = inverse
          $0.entity = entity
        }
      }
      for case let attribute as NSAttributeDescription in entity.ownProperties {
        attribute.state.mutate(what: "attribute \(attribute.name)") {
          $0.resolvedBy = self
          $0.entity = entity
        }
      }
    }
  }

  /// Checks an entity's fetch indexes: unique names, and every element naming a stored attribute or to-one
  /// relationship of the entity (inherited ones included), which is what a store can index.
  private static func checkIndexes(of entity: NSEntityDescription) throws {
    let indexes = entity.indexes
    guard !indexes.isEmpty else { return }
    let properties = entity.propertiesByName
    var names: Set<String> = []
    for index in indexes {
      guard !index.name.isEmpty else {
        throw ObjectGraphError(.modelInvalid, "Entity '\(entity.entityName)' has a fetch index with an empty name. Name it.")
      }
      guard names.insert(index.name).inserted else {
        throw ObjectGraphError(
          .modelInvalid, "Entity '\(entity.entityName)' has two fetch indexes named '\(index.name)'. Rename or remove one.")
      }
      guard !index.elements.isEmpty else {
        throw ObjectGraphError(
          .modelInvalid,
          "Fetch index '\(index.name)' of entity '\(entity.entityName)' has no elements. Add the properties it indexes, or remove it.")
      }
      // Apple: elements that include "both R-tree and non-R-tree elements" are invalid.
      let kinds = Set(index.elements.map(\.collationType))
      guard kinds.count == 1 else {
        throw ObjectGraphError(
          .modelInvalid,
          "Fetch index '\(index.name)' of entity '\(entity.entityName)' mixes R-tree and binary elements. Make every element of one index the same type, or split it into two indexes."
        )
      }
      for element in index.elements {
        let place = "Fetch index '\(index.name)' of entity '\(entity.entityName)' names property '\(element.indexedPropertyName)'"
        switch properties[element.indexedPropertyName]?.kind {
        case nil:
          throw ObjectGraphError(
            .modelInvalid,
            "\(place), which the entity does not have (inherited properties included). Known properties: "
              + "\(properties.keys.sorted().joined(separator: ", ")).")
        case .relationship(let relationship) where relationship.isToMany:
          throw ObjectGraphError(
            .modelInvalid,
            "\(place), which is a to-many relationship: it has no column to index. Index an attribute or a to-one relationship.")
        case .attribute(let attribute) where attribute.isTransient:
          throw ObjectGraphError(
            .modelInvalid, "\(place), which is transient: it is not stored, so there is nothing to index. Remove the element.")
        case .relationship(let relationship) where relationship.isTransient:
          throw ObjectGraphError(
            .modelInvalid, "\(place), which is transient: it is not stored, so there is nothing to index. Remove the element.")
        default:
          continue
        }
      }
    }
  }

  /// Whether `object` is a model with the same contents: see `ManagedObjectModel+Equality.swift`. `==` asks this.
  public override func isEqual(_ object: Any?) -> Bool {
    (object as? NSManagedObjectModel).map(hasSameContents(as:)) ?? false
  }

  /// Hashes the entities' names and version hashes, consistently with ``isEqual(_:)``.
  public override var hash: Int { contentsHash }

  /// The model's entity names.
  public override var description: String {
    "NSManagedObjectModel(" + entities.map { "\($0.entityName)" }.joined(separator: ", ") + ")"
  }
}
