import Foundation
internal import Synchronization

/// An entity: a named kind of object with attributes and relationships, maybe inheriting from a
/// superentity.
///
/// ```swift
/// let note = NSEntityDescription(name: "Note", managedObjectClass: Note.self, properties: [
///   NSAttributeDescription(name: "title", type: .string, isOptional: false),
///   NSRelationshipDescription(name: "notebook", destination: "Notebook", inverse: "notes"),
/// ])
/// ```
///
/// Subentities inherit every property of their superentity and share its table in a SQLite store, told
/// apart by the `Z_ENT` column, exactly as Core Data lays them out.
public final class NSEntityDescription: NSObject, @unchecked Sendable {
  struct State {
    var name: String
    var entityClass: (any EntityClass.Type)?
    var representedClassName: String?
    var ownProperties: [NSPropertyDescription]
    var isAbstract = false
    weak var superentity: NSEntityDescription?
    var subentities: [NSEntityDescription] = []
    var renamingIdentifier: String?
    var versionHashModifier: String?
    var userInfo: [String: String] = [:]
    var fetchedProperties: [NSFetchedPropertyDescription] = []
    var uniquenessConstraints: [[String]] = []
    var indexes: [NSFetchIndexDescription] = []
    weak var model: NSManagedObjectModel?
    /// For an entity read from an archive, its superentity and subentities by name (`EntityDescription+Coding.swift`).
    var archivedFamily: ArchivedFamily?
  }

  let state: Frozen<State>
  /// Set once, when the model freezes; read lock-free on every object creation and property access.
  private let frozenLayout = AtomicLazyReference<EntityLayout>()
  /// A frozen entity's version hashes, worked out when first asked (opening a store asks, on the queue
  /// that opens it), not when the model freezes: a stack's initialiser, which freezes the model on the
  /// main queue, does not hash every entity twice.
  private let frozenHashes = AtomicLazyReference<FrozenHashes>()

  private final class FrozenHashes: Sendable {
    let current: Data
    let earlier: Data
    let legacy: Data
    init(current: Data, earlier: Data, legacy: Data) {
      self.current = current
      self.earlier = earlier
      self.legacy = legacy
    }
  }

  /// The frozen entity's hashes (made once), or `nil` while the entity can still change.
  private var hashesIfFrozen: FrozenHashes? {
    if let known = frozenHashes.load() { return known }
    guard publishedLayout.load(ordering: .acquiring) != 0 else { return nil }
    let current = VersionHash.entity(self)
    return frozenHashes.storeIfNil(
      FrozenHashes(current: current, earlier: earlierHash(current: current), legacy: VersionHash.legacyEntity(self)))
  }

  /// The hash by the engine's earlier guesses, computed only when it differs from `current`.
  private func earlierHash(current: Data) -> Data {
    VersionHash.earlierGuessesDiffer(for: self) ? VersionHash.entity(self, recipe: .earlierGuesses) : current
  }
  /// The frozen layout again, as a pointer every thread can load with one atomic read: `layout` is read
  /// for every object made, and `AtomicLazyReference.load()` is a generic call that costs far more. The
  /// layout it points to is retained once when stored and released in `deinit`, and never replaced, so
  /// a loaded pointer always names a live layout.
  /// (Stored as the pointer's bits, 0 for none: `Atomic` of a pointer type is not `Sendable`.)
  private let publishedLayout = Atomic<UInt>(0)
  /// The class ``resolvedEntityClass`` resolved once the entity was frozen, and the registry's generation
  /// it was resolved at (``NSManagedObjectModel/registryGeneration``): valid while no class was registered
  /// since. The lock is the entity's own and held for a copy of two words, never the registry's.
  private let resolvedClass = Locked<(generation: Int, type: (any EntityClass.Type)?)?>(nil)

  /// Makes an entity whose instances are made as the class registered for it, if any (the public
  /// initializer that takes a class is in `Object/EntityDescription+Class.swift`).
  init(name: String, properties: [NSPropertyDescription]) {
    state = Frozen(State(name: name, ownProperties: properties))
  }

  /// Makes an entity with no name and no properties, as Core Data's `init()` does: set its ``name``,
  /// ``managedObjectClassName`` and ``properties``, then give it to a model (``NSManagedObjectModel/entities``).
  public override convenience init() {
    self.init(name: "", properties: [])
  }

  deinit {
    if let published = UnsafeRawPointer(bitPattern: publishedLayout.load(ordering: .acquiring)) {
      Unmanaged<EntityLayout>.fromOpaque(published).release()
    }
  }

  /// The entity's name; `nil` until one is set on an entity made with ``init()``, as in Core Data. A model
  /// refuses an entity without a name when a coordinator first uses it.
  public var name: String? {
    get {
      let name = state.read(\.name)
      return name.isEmpty ? nil : name
    }
    set { state.write(\.name, newValue ?? "", what: "entity \(entityName)") }
  }

  /// The entity's name, `""` when it has none: the engine's non-optional form of ``name``.
  var entityName: String { state.read(\.name) }

  /// The class given at init or set (``managedObjectClass``'s setter), `nil` for none.
  var entityClass: (any EntityClass.Type)? {
    get { state.read(\.entityClass) }
    set { state.write(\.entityClass, newValue, what: "entity \(entityName)") }
  }

  /// The class instances of this entity are made as (read as ``managedObjectClass``): the class given at
  /// init, else the class registered for the entity (``NSManagedObjectModel/register(_:forEntityName:)``) or
  /// for its `representedClassName`, else the class its `representedClassName` names in the loaded modules
  /// (`Model/ManagedObjectModel+Registry.swift`); `nil` for the base class, ``NSManagedObject``.
  var resolvedEntityClass: (any EntityClass.Type)? {
    // A published layout means the entity is frozen (see freeze(model:)): its state cannot change, so
    // only a registration can change the answer.
    let isFrozen = publishedLayout.load(ordering: .acquiring) != 0
    let generation = NSManagedObjectModel.registryGeneration.load(ordering: .acquiring)
    if isFrozen, let cached = resolvedClass.withLock({ $0 }), cached.generation == generation { return cached.type }
    let current = state.value
    let type =
      current.entityClass
      ?? NSManagedObjectModel.registeredClass(
        entityName: current.name, className: current.representedClassName, modelURL: current.model?.sourceURL)
    if isFrozen { resolvedClass.withLock { $0 = (generation, type) } }
    return type
  }

  /// The name of the class instances of the entity are made as, as Core Data names it: the name set here
  /// or read from the model file (``representedClassName``), else the class given in code, else
  /// `"NSManagedObject"`.
  ///
  /// Set it to a class's name to build a model in code as Core Data's samples do
  /// (`entity.managedObjectClassName = NSStringFromClass(Note.self)`, or `"Note"`): the engine finds the class
  /// by that name when the entity first makes an object, as Core Data asks the Objective-C runtime.
  public var managedObjectClassName: String! {
    get { representedClassName ?? entityClass.map { String(reflecting: $0) } ?? "NSManagedObject" }
    set { representedClassName = newValue == "NSManagedObject" ? nil : newValue }
  }

  /// The class name an Xcode model gives for the entity (`representedClassName`).
  public var representedClassName: String? {
    get { state.read(\.representedClassName) }
    set { state.write(\.representedClassName, newValue, what: "entity \(entityName)") }
  }

  /// An abstract entity has no instances of its own; only its subentities are inserted.
  public var isAbstract: Bool {
    get { state.read(\.isAbstract) }
    set { state.write(\.isAbstract, newValue, what: "entity \(entityName)") }
  }

  /// The entity this one inherits from.
  public var superentity: NSEntityDescription? {
    get { state.read(\.superentity) }
    set {
      state.write(\.superentity, newValue, what: "entity \(entityName)")
      if let newValue, !newValue.subentities.contains(where: { $0 === self }) {
        newValue.state.mutate(what: "entity \(newValue.entityName)") { $0.subentities.append(self) }
      }
    }
  }

  /// The entities that inherit from this one. Setting it also sets each one's superentity.
  public var subentities: [NSEntityDescription] {
    get { state.read(\.subentities) }
    set {
      state.write(\.subentities, newValue, what: "entity \(entityName)")
      for child in newValue { child.state.write(\.superentity, self, what: "entity \(child.entityName)") }
    }
  }

  /// The entity's own properties, not counting inherited ones.
  public var ownProperties: [NSPropertyDescription] {
    get { state.read(\.ownProperties) }
    set { state.write(\.ownProperties, newValue, what: "entity \(entityName)") }
  }

  /// All properties: inherited ones first, then the entity's own (``NSAttributeDescription``s and
  /// ``NSRelationshipDescription``s).
  ///
  /// Setting it sets the entity's own properties, as Core Data's setter does; a property the superentity
  /// already has, if the array holds one, stays the superentity's.
  public var properties: [NSPropertyDescription] {
    get { (superentity?.properties ?? []) + ownProperties }
    set {
      let inherited = Set((superentity?.properties ?? []).map(ObjectIdentifier.init))
      ownProperties = newValue.filter { !inherited.contains(ObjectIdentifier($0)) }
    }
  }

  /// Every property by name, inherited ones included.
  public var propertiesByName: [String: NSPropertyDescription] {
    Dictionary(properties.map { ($0.name, $0) }, uniquingKeysWith: { _, last in last })
  }

  /// Every attribute by name, inherited ones included.
  public var attributesByName: [String: NSAttributeDescription] {
    var result: [String: NSAttributeDescription] = [:]
    for case let attribute as NSAttributeDescription in properties { result[attribute.name] = attribute }
    return result
  }

  /// Every relationship by name, inherited ones included.
  public var relationshipsByName: [String: NSRelationshipDescription] {
    var result: [String: NSRelationshipDescription] = [:]
    for case let relationship as NSRelationshipDescription in properties { result[relationship.name] = relationship }
    return result
  }

  /// The entity's own fetched properties (an Xcode model's `<fetchedProperty>`s, or set in code): each read
  /// with `value(forKey:)` runs its fetch request (see ``NSFetchedPropertyDescription``). Subentities inherit
  /// them. Like every change to a model, setting them once a coordinator uses the model stops the program.
  public var fetchedProperties: [NSFetchedPropertyDescription] {
    get { state.read(\.fetchedProperties) }
    set { state.write(\.fetchedProperties, newValue, what: "entity \(entityName)") }
  }

  /// The fetched property named `name` of the entity or of its nearest superentity that has one (what
  /// `value(forKey:)` looks a key up in, without making a dictionary).
  func fetchedProperty(named name: String) -> NSFetchedPropertyDescription? {
    var entity: NSEntityDescription? = self
    var depth = 0
    while let current = entity, depth < 10_000 {
      depth += 1
      if let found = current.fetchedProperties.first(where: { $0.name == name }) { return found }
      entity = current.superentity
    }
    return nil
  }

  /// The entity's fetched properties by name, its superentities' included (what `value(forKey:)` looks a key up
  /// in; Core Data's are in `propertiesByName`).
  var fetchedPropertiesByName: [String: NSFetchedPropertyDescription] {
    var byName: [String: NSFetchedPropertyDescription] = [:]
    var entity: NSEntityDescription? = self
    var depth = 0
    // A chain of superentities set in code is checked for cycles only when a model is made of it.
    while let current = entity, depth < 10_000 {
      depth += 1
      for property in current.fetchedProperties where byName[property.name] == nil { byName[property.name] = property }
      entity = current.superentity
    }
    return byName
  }

  /// Uniqueness constraints (Core Data's `uniquenessConstraints`): each a list of attribute names whose
  /// values together must be unique over the instances of this entity and its subentities, from an Xcode
  /// model's `<uniquenessConstraints>` or set in code until the model is frozen.
  ///
  /// ```swift
  /// item.uniquenessConstraints = [["remoteID"], ["shelf", "position"]]
  /// ```
  ///
  /// A save to the store checks them: under the error merge policy a conflict fails the save with error
  /// 133021, under the others it becomes an update of the row that has the values (an upsert). A SQLite
  /// store backs each with a unique index. As in Core Data, the constraints are part of the entity's
  /// ``versionHash``: adding one to a model migrates its stores.
  public var uniquenessConstraints: [[String]] {
    get { state.read(\.uniquenessConstraints) }
    set { state.write(\.uniquenessConstraints, newValue, what: "entity \(entityName)") }
  }

  /// The entity's fetch indexes (Core Data's `indexes`): the properties a store may index to make fetches
  /// that filter or sort by them fast, from an Xcode model's `<fetchIndex>` elements (and the legacy
  /// `indexed="YES"` attribute flag) or set in code until the model is frozen.
  ///
  /// ```swift
  /// note.indexes = [NSFetchIndexDescription(name: "byCreatedAt", elements: [
  ///   NSFetchIndexElementDescription(propertyName: "createdAt", isAscending: false)
  /// ])]
  /// ```
  ///
  /// This value doesn't form part of the entity's ``versionHash``, as in Core Data: adding, changing or
  /// removing an index needs no migration. The model checks each element's property when it is made.
  ///
  /// The entity keeps the index objects it is given and becomes their ``NSFetchIndexDescription/entity``;
  /// an index that belongs to another entity, or to a model in use, is copied first.
  public var indexes: [NSFetchIndexDescription] {
    get { state.read(\.indexes) }
    set {
      let adopted = newValue.map { $0.adopted(by: self) }
      state.write(\.indexes, adopted, what: "entity \(entityName)")
    }
  }

  /// The entity's name in the previous model version, for lightweight migration.
  public var renamingIdentifier: String? {
    get { state.read(\.renamingIdentifier) }
    set { state.write(\.renamingIdentifier, newValue, what: "entity \(entityName)") }
  }

  /// A string mixed into the version hash to force a new version without another change.
  public var versionHashModifier: String? {
    get { state.read(\.versionHashModifier) }
    set { state.write(\.versionHashModifier, newValue, what: "entity \(entityName)") }
  }

  /// The model file's user info for this entity.
  public var userInfo: [String: String] {
    get { state.read(\.userInfo) }
    set { state.write(\.userInfo, newValue, what: "entity \(entityName)") }
  }

  /// The model this entity belongs to, once the model is made.
  public var managedObjectModel: NSManagedObjectModel? { state.read(\.model) }

  /// The root of this entity's inheritance tree (itself when it has no superentity).
  public var rootEntity: NSEntityDescription {
    var entity = self
    while let parent = entity.superentity { entity = parent }
    return entity
  }

  /// This entity and every entity below it, depth first.
  public var selfAndDescendants: [NSEntityDescription] {
    [self] + subentities.flatMap(\.selfAndDescendants)
  }

  /// Whether this entity is `entity` or inherits from it (Core Data's `isKindOf(entity:)`).
  public func isKindOf(entity: NSEntityDescription) -> Bool { isKind(of: entity) }

  /// Whether this entity is `other` or inherits from it.
  func isKind(of other: NSEntityDescription) -> Bool {
    var entity: NSEntityDescription? = self
    while let current = entity {
      if current === other { return true }
      entity = current.superentity
    }
    return false
  }

  /// The entity's subentities by name.
  public var subentitiesByName: [String: NSEntityDescription] {
    Dictionary(subentities.map { ($0.entityName, $0) }, uniquingKeysWith: { first, _ in first })
  }

  /// The entity's relationships (inherited ones included) whose destination is `entity`.
  public func relationships(forDestination entity: NSEntityDescription) -> [NSRelationshipDescription] {
    properties.compactMap { $0 as? NSRelationshipDescription }.filter { $0.destinationEntity === entity }
  }

  /// The entity's version hash: Core Data's 32-byte digest of what makes its stored shape, byte for byte
  /// what Core Data computes for the same entity (its name, whether it is abstract, its superentity's hash,
  /// the hashes of its stored properties, inherited ones included, its ``versionHashModifier`` and its
  /// uniqueness constraints). A store's metadata keeps every entity's hash; a model whose entities all
  /// hash alike opens the store without a migration, whether Core Data or this engine wrote it.
  ///
  /// Renaming identifiers, default values, delete rules, fetch indexes, class names, user info, transient
  /// properties and fetched properties do not count, as in Core Data. The exact bytes, and which of them
  /// Apple's own files prove, are in `Docs/ObjectGraph.md` ("Files Core Data wrote").
  public var versionHash: Data {
    hashesIfFrozen?.current ?? VersionHash.entity(self)
  }

  /// The digest the engine wrote into its stores before it computed Core Data's: stores with it open without
  /// a migration, and their metadata is brought up to date when they are opened read-write.
  var legacyVersionHash: Data {
    hashesIfFrozen?.legacy ?? VersionHash.legacyEntity(self)
  }

  /// The hash the engine wrote into its stores of format 2 before Core Data's recipe for ordered to-manys
  /// and version hash modifiers was proven (``VersionHash/Recipe/earlierGuesses``): the same as
  /// ``versionHash`` for an entity that has neither. Stores with it open without a migration, and their
  /// metadata is brought up to date when they are opened read-write.
  var earlierVersionHash: Data {
    hashesIfFrozen?.earlier ?? earlierHash(current: VersionHash.entity(self))
  }

  /// The immutable layout the engine's hot paths use; built when the model is frozen.
  var layout: EntityLayout {
    if let published = UnsafeRawPointer(bitPattern: publishedLayout.load(ordering: .acquiring)) {
      return Unmanaged<EntityLayout>.fromOpaque(published).takeUnretainedValue()
    }
    return frozenLayout.load() ?? EntityLayout(entity: self)
  }

  /// The layout when the entity is frozen (one atomic read), or `nil` while it can still change (when
  /// ``layout`` would build one for the call).
  var frozenLayoutIfAny: EntityLayout? {
    guard let published = UnsafeRawPointer(bitPattern: publishedLayout.load(ordering: .acquiring)) else { return nil }
    return Unmanaged<EntityLayout>.fromOpaque(published).takeUnretainedValue()
  }

  func freeze(model: NSManagedObjectModel) {
    state.mutate(what: "entity \(entityName)") { $0.model = model }
    for case let attribute as NSAttributeDescription in ownProperties { attribute.freezeState() }
    for case let relationship as NSRelationshipDescription in ownProperties { relationship.state.freeze() }
    for index in indexes { index.freeze() }
    state.freeze()
    // Published last: a published layout tells readers (managedObjectClass) that nothing here changes.
    let layout = frozenLayout.storeIfNil(EntityLayout(entity: self))
    let retained = Unmanaged.passRetained(layout).toOpaque()
    if !publishedLayout.compareExchange(expected: 0, desired: UInt(bitPattern: retained), ordering: .releasing).exchanged {
      Unmanaged<EntityLayout>.fromOpaque(retained).release()
    }
  }

  public override var description: String { entityName }
}
