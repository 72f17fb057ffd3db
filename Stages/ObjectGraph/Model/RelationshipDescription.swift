import Foundation

/// A relationship from one entity to another: to-one or to-many, with an inverse and a delete rule.
///
/// ```swift
/// let notes = NSRelationshipDescription(name: "notes", destination: "Note", inverse: "notebook",
///                                     toMany: true, deleteRule: .cascadeDeleteRule)
/// ```
///
/// The destination and inverse are given by name (or, as Core Data's samples build a model in code, by
/// object: ``destinationEntity``, ``inverseRelationship``) and resolved when the ``NSManagedObjectModel`` is made.
/// Every relationship should have an inverse, as Core Data recommends: it is what keeps both sides of the
/// graph in step when one side changes.
/// `@unchecked Sendable`, restated from ``NSPropertyDescription``: every stored property is a `let` of a
/// `Sendable` type (`state` is a `Frozen`, locked until the model freezes and read-only after).
public final class NSRelationshipDescription: NSPropertyDescription, @unchecked Sendable {
  struct State {
    var name: String
    var destinationName: String
    var inverseName: String?
    var isToMany: Bool
    var deleteRule: NSDeleteRule
    var isOptional: Bool
    var isOrdered = false
    var isTransient = false
    var minCount = 0
    var maxCount = 0
    var renamingIdentifier: String?
    var versionHashModifier: String?
    var userInfo: [String: String] = [:]
    var validationRules: [PropertyValidationRule] = []
    /// The model whose resolution set `destinationEntity` and `entity` below. They are read only while it
    /// is alive: a model's entities are fixed when it is made and it holds them, so both point at live
    /// entities then, and read `nil` once it is gone.
    weak var resolvedBy: NSManagedObjectModel?
    /// Not `weak`: a weak reference gives the entity it points at a side table, and every retain of that
    /// entity (one per object made, one per ID) then takes the runtime's slow path, which every queue
    /// making objects of it contends for. Core Data declares both `unowned(unsafe)`; here they are read
    /// only through ``resolved(_:)``, which holds `resolvedBy` for the read.
    unowned(unsafe) var destinationEntity: NSEntityDescription?
    weak var inverseRelationship: NSRelationshipDescription?
    unowned(unsafe) var entity: NSEntityDescription?
    /// The destination and inverse set as objects (Core Data's way of building a model in code) and not yet
    /// resolved: held strongly until the model that takes the entities reads their names, then dropped.
    var assignedDestination: NSEntityDescription?
    var assignedInverse: NSRelationshipDescription?

    /// `destinationEntity` or `entity`, while the model that set it is alive (held for the read).
    func resolved(_ pointer: KeyPath<State, NSEntityDescription?>) -> NSEntityDescription? {
      guard let model = resolvedBy else { return nil }
      return withExtendedLifetime(model) { self[keyPath: pointer] }
    }
  }

  let state: Frozen<State>

  override var kind: Kind { .relationship(self) }

  /// Makes a relationship.
  /// - Parameters:
  ///   - name: the key used with `value(forKey:)` and in predicates.
  ///   - destination: the name of the entity at the other end.
  ///   - inverse: the name of the relationship back, on the destination entity.
  ///   - toMany: whether this side holds a set of objects.
  ///   - deleteRule: what deleting the source object does to the destination objects.
  ///   - isOptional: whether a to-one may be empty (or a to-many below its minimum count) at save time.
  public init(
    name: String, destination: String, inverse: String?, toMany: Bool = false, deleteRule: NSDeleteRule = .nullifyDeleteRule,
    isOptional: Bool = true
  ) {
    state = Frozen(
      State(
        name: name, destinationName: destination, inverseName: inverse, isToMany: toMany, deleteRule: deleteRule,
        isOptional: isOptional))
    super.init(subclassing: ())
  }

  /// Reads a relationship back from an archive made by ``NSPropertyDescription/encode(with:)``: every setting,
  /// with its destination and inverse by name (resolved when a model is made of its entity); `nil` (and the
  /// unarchiver's error) when the archive is not one.
  public required init?(coder: NSCoder) {
    guard let decoded = Self.decodedState(from: coder) else { return nil }
    state = Frozen(decoded)
    super.init(subclassing: ())
  }

  /// Makes a relationship with no name and no destination, as Core Data's `init()` does: set its ``name``,
  /// ``destinationEntity``, ``inverseRelationship`` and ``maxCount`` (1 for a to-one; it starts at 0, a
  /// to-many, as Core Data documents), then give its entity to a model. It starts optional, with the nullify
  /// delete rule.
  public convenience init() {
    self.init(name: "", destination: "", inverse: nil, toMany: true)
  }

  /// The relationship's name.
  override public var name: String {
    get { state.read(\.name) }
    set { state.write(\.name, newValue, what: "relationship \(name)") }
  }
  /// The name of the destination entity.
  public var destinationEntityName: String {
    get { state.read(\.destinationName) }
    set { state.write(\.destinationName, newValue, what: "relationship \(name)") }
  }
  /// The name of the inverse relationship, on the destination entity.
  public var inverseRelationshipName: String? {
    get { state.read(\.inverseName) }
    set { state.write(\.inverseName, newValue, what: "relationship \(name)") }
  }
  /// The destination entity, resolved when the model was made; `nil` before, and once that model is
  /// gone (Core Data's is `unowned(unsafe)`: there, reading it after the model is gone is undefined).
  ///
  /// Set it (with ``inverseRelationship``) to build a model in code as Core Data's samples do; the model the
  /// entities are given to reads the names from these objects.
  public var destinationEntity: NSEntityDescription? {
    get { state.read { $0.resolved(\.destinationEntity) ?? $0.assignedDestination } }
    set {
      state.mutate(what: "relationship \(name)") {
        $0.assignedDestination = newValue
        $0.destinationName = newValue?.name ?? ""
      }
    }
  }
  /// The inverse relationship, resolved when the model was made.
  ///
  /// Set it to build a model in code, on both sides, as Core Data's samples do.
  public var inverseRelationship: NSRelationshipDescription? {
    get { state.read { $0.inverseRelationship ?? $0.assignedInverse } }
    set {
      state.mutate(what: "relationship \(name)") {
        $0.assignedInverse = newValue
        $0.inverseName = newValue?.name
      }
    }
  }
  override var resolvedEntity: NSEntityDescription? { state.read { $0.resolved(\.entity) } }
  /// Whether this side holds a set of objects.
  public var isToMany: Bool {
    get { state.read(\.isToMany) }
    set { state.write(\.isToMany, newValue, what: "relationship \(name)") }
  }
  /// What deleting the source does to the destination objects.
  public var deleteRule: NSDeleteRule {
    get { state.read(\.deleteRule) }
    set { state.write(\.deleteRule, newValue, what: "relationship \(name)") }
  }
  /// Whether a to-one relationship may be `nil` when saved. A to-many is never `nil`, only empty: what
  /// it must hold is ``minCount`` alone, as in Core Data (a non-optional to-many with minimum 0 may be
  /// empty).
  override public var isOptional: Bool {
    get { state.read(\.isOptional) }
    set { state.write(\.isOptional, newValue, what: "relationship \(name)") }
  }
  /// Whether the to-many keeps its members in an order of their own (Core Data's ordered relationship):
  /// `value(forKey:)` returns an `NSOrderedSet`, ``NSManagedObject/mutableOrderedSetValue(forKey:)`` changes
  /// it in place, and the store keeps each member's position in an ordering column (`Z_FOK_…`).
  public var isOrdered: Bool {
    get { state.read(\.isOrdered) }
    set { state.write(\.isOrdered, newValue, what: "relationship \(name)") }
  }
  /// A transient relationship is never written to the store.
  override public var isTransient: Bool {
    get { state.read(\.isTransient) }
    set { state.write(\.isTransient, newValue, what: "relationship \(name)") }
  }
  /// The fewest objects a to-many may hold at save time (0: no minimum).
  public var minCount: Int {
    get { state.read(\.minCount) }
    set { state.write(\.minCount, newValue, what: "relationship \(name)") }
  }
  /// Reads the names of the destination and inverse set as objects (``destinationEntity``,
  /// ``inverseRelationship``), whose names may have been set after, and lets go of the objects.
  func takeAssignedNames() {
    state.mutate(what: "relationship \(name)") {
      if let destination = $0.assignedDestination { $0.destinationName = destination.entityName }
      if let inverse = $0.assignedInverse { $0.inverseName = inverse.name }
      $0.assignedDestination = nil
      $0.assignedInverse = nil
    }
  }

  /// A to-many's maximum as the engine keeps it (0 for a to-one, or for no maximum).
  var storedMaxCount: Int { state.read(\.maxCount) }

  /// The most objects the relationship may hold at save time (0: no maximum). As in Core Data, it also says
  /// whether the relationship is to-many: setting it to 1 makes a to-one, any other value a to-many
  /// (``isToMany``).
  public var maxCount: Int {
    get { state.read { $0.isToMany ? $0.maxCount : 1 } }
    set {
      state.mutate(what: "relationship \(name)") {
        $0.isToMany = newValue != 1
        $0.maxCount = newValue == 1 ? 0 : newValue
      }
    }
  }
  /// The relationship's name in the previous model version, for lightweight migration.
  override public var renamingIdentifier: String? {
    get { state.read(\.renamingIdentifier) }
    set { state.write(\.renamingIdentifier, newValue, what: "relationship \(name)") }
  }
  /// A string mixed into the version hash to force a new version without another change.
  override public var versionHashModifier: String? {
    get { state.read(\.versionHashModifier) }
    set { state.write(\.versionHashModifier, newValue, what: "relationship \(name)") }
  }
  /// Core Data's version hash of the relationship: a digest of its name, optionality, transience and
  /// ``versionHashModifier``, its destination entity's name, its inverse's name, its maximum and minimum
  /// counts, and whether it is an ordered to-many (see ``NSEntityDescription/versionHash``).
  override public var versionHash: Data { VersionHash.relationship(self) }
  /// The model file's user info for this relationship.
  override var validationRules: [PropertyValidationRule] {
    get { state.read(\.validationRules) }
    set { state.write(\.validationRules, newValue, what: "relationship \(name)") }
  }

  override public var userInfo: [String: String] {
    get { state.read(\.userInfo) }
    set { state.write(\.userInfo, newValue, what: "relationship \(name)") }
  }

  /// True when both this side and its inverse are to-many: such pairs are stored in a join table.
  var isManyToMany: Bool { isToMany && (inverseRelationship?.isToMany ?? true) }

  override public var description: String {
    "\(name) -> \(isToMany ? "[\(destinationEntityName)]" : destinationEntityName)"
  }
}
