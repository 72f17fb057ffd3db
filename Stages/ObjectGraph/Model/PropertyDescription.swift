import Foundation

/// One property of an entity: the base class of ``NSAttributeDescription`` and ``NSRelationshipDescription``,
/// as in Core Data, where an entity's ``NSEntityDescription/properties`` hold both.
///
/// ```swift
/// let title = NSAttributeDescription()
/// title.name = "title"
/// title.attributeType = .stringAttributeType
/// entity.properties = [title, notebook]   // attributes and relationships alike
/// for case let attribute as NSAttributeDescription in entity.properties { … }
/// ```
///
/// Its members are the ones every property has; each subclass keeps them in its own state (which the
/// model freezes when a coordinator first uses it), so the base class holds nothing itself and is not made
/// on its own.
///
/// `@unchecked Sendable`: the class has no stored state; its two subclasses keep theirs in a `Frozen`
/// (locked until the model freezes, read-only after), which makes them safe to share across threads.
public class NSPropertyDescription: NSObject, @unchecked Sendable {
  /// What the property is, for a `switch` inside the engine.
  enum Kind {
    case attribute(NSAttributeDescription)
    case relationship(NSRelationshipDescription)
  }

  /// The part of a subclass's initialiser that is the base class's (it has nothing to set).
  init(subclassing: Void) {
    super.init()
  }

  /// Reads a property back from an archive (`PropertyDescription+Coding.swift`). An archive is always of an
  /// attribute or a relationship, whose own initialisers read it; one naming the abstract base class gives `nil`.
  public required init?(coder: NSCoder) {
    coder.failDecoding("a property", "it names the abstract class NSPropertyDescription, not an attribute or a relationship")
    return nil
  }

  /// The attribute or relationship this property is.
  var kind: Kind { Self.abstract() }

  /// The attribute, as a property (`.attribute(title)` in a list of properties: the engine's tests wrote
  /// properties so when they were an enum).
  static func attribute(_ attribute: NSAttributeDescription) -> NSPropertyDescription { attribute }
  /// The relationship, as a property (`.relationship(notes)`, as ``attribute(_:)``).
  static func relationship(_ relationship: NSRelationshipDescription) -> NSPropertyDescription { relationship }

  /// The property's name: the key of `value(forKey:)` and of predicates.
  public var name: String {
    get { Self.abstract() }
    set { Self.abstract() }
  }

  /// Whether the property may be empty (`nil`) when its object is saved.
  public var isOptional: Bool {
    get { Self.abstract() }
    set { Self.abstract() }
  }

  /// Whether the property lives in memory only, never written to the store.
  public var isTransient: Bool {
    get { Self.abstract() }
    set { Self.abstract() }
  }

  /// The property's name in the previous model version, for lightweight migration.
  public var renamingIdentifier: String? {
    get { Self.abstract() }
    set { Self.abstract() }
  }

  /// A string mixed into the version hash to force a new version without another change.
  public var versionHashModifier: String? {
    get { Self.abstract() }
    set { Self.abstract() }
  }

  /// The model file's user info for the property.
  public var userInfo: [String: String] {
    get { Self.abstract() }
    set { Self.abstract() }
  }

  /// The property's validation predicates with their warnings, as `Fetch/` keeps them
  /// (``NSPropertyDescription/setValidationPredicates(_:withValidationWarnings:)``).
  var validationRules: [PropertyValidationRule] {
    get { Self.abstract() }
    set { Self.abstract() }
  }

  /// The property's version hash, as Core Data computes it.
  public var versionHash: Data { Self.abstract() }

  /// The entity the property belongs to (Core Data's `entity`): the entity whose
  /// ``NSEntityDescription/properties`` declare it (for an inherited property, the superentity that declares
  /// it), set when a model is made with that entity.
  ///
  /// Reading it before such a model is made, or once the model is gone, is a programmer error that stops the
  /// program naming the property: Core Data's is `unowned(unsafe)` and has no entity to give then either.
  public var entity: NSEntityDescription {
    guard let entity = resolvedEntity else {
      programmerError(
        "Property '\(name)' belongs to no entity of a model that still exists: its entity is set when an NSManagedObjectModel is made with the entity that declares it, and can be read while that model exists. Make the model first and keep it, or look the entity up in the model (entitiesByName)."
      )
    }
    return entity
  }

  /// The entity set when a model was made with the entity declaring this property; `nil` before, and once
  /// that model is gone.
  var resolvedEntity: NSEntityDescription? { Self.abstract() }

  /// The property's name and kind.
  public override var description: String { Self.abstract() }

  private static func abstract() -> Never {
    programmerError("NSPropertyDescription is abstract: make an NSAttributeDescription or an NSRelationshipDescription.")
  }
}

/// One validation predicate of a property and its warning, as the model keeps them: the predicate as `Fetch/`
/// parsed it (a `FetchPredicate.Parsed`, opaque here) or, read from a compiled model, its format
/// (``ArchivedValidationPredicate``, which `Fetch/` parses when first used), the `NSPredicate` it was given as
/// (for ``NSPropertyDescription/validationPredicates``; immutable: the engine's own kinds; `nil` for an archived
/// one, which `Fetch/` makes of its format), and the warning as given.
struct PropertyValidationRule: @unchecked Sendable {
  // `@unchecked Sendable`: `given` is an `NSPredicate` that `Fetch/` makes itself from the parsed predicate
  // (`FormatPredicate`, whose stored properties are `let`s of `Sendable` types), never the caller's object;
  // `warning` is a `String` or an `Int` (what `Fetch/` and the compiled model reader store). Both are only read
  // after the rule is made.
  let parsed: any Sendable
  let given: NSPredicate?
  let warning: Any
}

/// A validation predicate read from a compiled model (`.mom`), kept as the format string its archive was
/// written back as; `Fetch/` parses it the first time a validation or ``NSPropertyDescription/validationPredicates``
/// uses it, and keeps the result (a `FetchPredicate.Parsed`) here, behind the lock.
final class ArchivedValidationPredicate: Sendable {
  /// The predicate's format.
  let format: String
  /// The parsed predicate, once parsed (opaque here).
  let parsed = Locked<(any Sendable)?>(nil)

  init(format: String) {
    self.format = format
  }
}
