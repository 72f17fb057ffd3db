import Foundation

/// An attribute of an entity: a name, a type, whether it may be `nil`, and a default value.
///
/// ```swift
/// let title = NSAttributeDescription(name: "title", type: .string, isOptional: false, defaultValue: "Untitled")
/// ```
///
/// Like every description, an attribute can be changed until a coordinator first uses its model; after
/// that it is frozen, as in Core Data, and changing it stops the program with a message.
/// `@unchecked Sendable`, restated from ``NSPropertyDescription``: every stored property is a `let` of a
/// `Sendable` type (`state` is a `Frozen`, locked until the model freezes and read-only after).
public class NSAttributeDescription: NSPropertyDescription, @unchecked Sendable {
  struct State {
    var name: String
    var attributeType: NSAttributeType
    var isOptional: Bool
    var defaultValue: (any Sendable)?
    var renamingIdentifier: String?
    var isTransient = false
    var allowsExternalBinaryDataStorage = false
    var preservesValueInHistoryOnDeletion = false
    var derivationFormat: String?
    var valueTransformerName: String?
    var attributeValueClassName: String?
    var allowsCloudEncryption = false
    var versionHashModifier: String?
    var userInfo: [String: String] = [:]
    var validationRules: [PropertyValidationRule] = []
    var minValue: Double?
    var maxValue: Double?
    var regularExpression: String?
    /// A composite attribute's elements (``NSCompositeAttributeDescription/elements``); empty for others.
    var elements: [NSAttributeDescription] = []
    /// The model that set `entity` when it was made, and the entity declaring the attribute: read only while
    /// that model is alive, as a relationship's (see ``NSRelationshipDescription``'s state for why the entity
    /// is not `weak`).
    weak var resolvedBy: NSManagedObjectModel?
    unowned(unsafe) var entity: NSEntityDescription?
  }

  let state: Frozen<State>

  final override var kind: Kind { .attribute(self) }

  override var resolvedEntity: NSEntityDescription? {
    state.read { state in
      guard let model = state.resolvedBy else { return nil }
      return withExtendedLifetime(model) { state.entity }
    }
  }

  /// Makes an attribute.
  /// - Parameters:
  ///   - name: the key used with `value(forKey:)` and in predicates.
  ///   - type: the attribute's type (``type``: `.string`, `.integer64`, …).
  ///   - isOptional: whether `nil` is allowed at save time (a required one missing is error 1570).
  ///   - defaultValue: the value a newly inserted object starts with; must be of the type's Swift type.
  public init(
    name: String, type: NSAttributeDescription.AttributeType, isOptional: Bool = true, defaultValue: (any Sendable)? = nil
  ) {
    state = Frozen(State(name: name, attributeType: type.rawValue, isOptional: isOptional, defaultValue: defaultValue))
    super.init(subclassing: ())
  }

  /// Reads an attribute back from an archive made by ``NSPropertyDescription/encode(with:)``: every setting, its
  /// elements for a composite attribute; `nil` (and the unarchiver's error) when the archive is not one.
  public required init?(coder: NSCoder) {
    guard let decoded = Self.decodedState(from: coder) else { return nil }
    state = Frozen(decoded)
    super.init(subclassing: ())
  }

  /// Makes an attribute with no name and ``NSAttributeType/undefinedAttributeType``, optional, as Core Data's
  /// `init()` does: set its ``name`` and ``attributeType`` (and perhaps ``isOptional`` and ``defaultValue``)
  /// before its model is used.
  public convenience init() {
    self.init(name: "", type: .undefined)
  }

  /// The attribute's name.
  final override public var name: String {
    get { state.read(\.name) }
    set { state.write(\.name, newValue, what: "attribute \(name)") }
  }
  /// The attribute's type (`.stringAttributeType`, `.integer64AttributeType`, …); ``type`` is the same in the
  /// newer spelling.
  public final var attributeType: NSAttributeType {
    get { state.read(\.attributeType) }
    set { state.write(\.attributeType, newValue, what: "attribute \(name)") }
  }
  /// The attribute's type in the newer spelling (`.string`, `.integer64`, …): the same value as
  /// ``attributeType``, which setting either changes.
  public final var type: NSAttributeDescription.AttributeType {
    get { AttributeType(rawValue: attributeType) }
    set { attributeType = newValue.rawValue }
  }
  /// Whether the attribute may be `nil` when saved.
  final override public var isOptional: Bool {
    get { state.read(\.isOptional) }
    set { state.write(\.isOptional, newValue, what: "attribute \(name)") }
  }
  /// The value a newly inserted object starts with.
  public final var defaultValue: (any Sendable)? {
    get { state.read(\.defaultValue) }
    set { state.write(\.defaultValue, newValue, what: "attribute \(name)") }
  }
  /// The attribute's name in the previous model version, for lightweight migration (Xcode's "Renaming ID").
  final override public var renamingIdentifier: String? {
    get { state.read(\.renamingIdentifier) }
    set { state.write(\.renamingIdentifier, newValue, what: "attribute \(name)") }
  }
  /// A transient attribute lives in memory only and is never written to the store.
  final override public var isTransient: Bool {
    get { state.read(\.isTransient) }
    set { state.write(\.isTransient, newValue, what: "attribute \(name)") }
  }
  /// Whether a binary attribute may keep large values in files beside the store (Xcode's "Allows External
  /// Storage"). Read from and written to Xcode models; ObjectGraph keeps every value in its row whatever
  /// the flag says (SQLite reads and writes blobs of a few megabytes well), so the store file alone holds
  /// all the data. Like Core Data, the flag is not part of the version hash.
  public final var allowsExternalBinaryDataStorage: Bool {
    get { state.read(\.allowsExternalBinaryDataStorage) }
    set { state.write(\.allowsExternalBinaryDataStorage, newValue, what: "attribute \(name)") }
  }
  /// A derived attribute's expression as the predicate language writes it (Xcode's "Derived"), computed when
  /// its object is saved (see "Derived attributes" in the engine's documentation); `""` for an attribute marked
  /// derived without one, `nil` for an attribute that is not derived. ``NSDerivedAttributeDescription``'s
  /// public `derivationExpression` reads and writes it as an `NSExpression`.
  final var derivationFormat: String? {
    get { state.read(\.derivationFormat) }
    set { state.write(\.derivationFormat, newValue, what: "attribute \(name)") }
  }
  /// Whether the attribute is derived: an ``NSDerivedAttributeDescription``, or one given a derivation.
  final var isDerived: Bool { derivationFormat != nil || self is NSDerivedAttributeDescription }
  /// A transformable attribute's value transformer: the name an ``AttributeValueTransformer`` is
  /// registered under; `nil` for the secure unarchiving transformer (Core Data's default).
  public final var valueTransformerName: String? {
    get { state.read(\.valueTransformerName) }
    set { state.write(\.valueTransformerName, newValue, what: "attribute \(name)") }
  }
  /// The class of a transformable attribute's values, as Xcode's "Custom Class" names it (`customClassName`
  /// in the model file; Core Data's `attributeValueClassName`), e.g. `"[String]"` or `"NSArray"`: what code
  /// generation types the property as. The engine reads and writes it; values are not checked against it.
  public final var attributeValueClassName: String? {
    get { state.read(\.attributeValueClassName) }
    set { state.write(\.attributeValueClassName, newValue, what: "attribute \(name)") }
  }
  /// Whether CloudKit mirroring would encrypt this attribute's value (Xcode's "Allows Cloud Encryption",
  /// Core Data's `allowsCloudEncryption`). Read from and written to model files; the engine has no CloudKit,
  /// so it changes nothing else.
  public final var allowsCloudEncryption: Bool {
    get { state.read(\.allowsCloudEncryption) }
    set { state.write(\.allowsCloudEncryption, newValue, what: "attribute \(name)") }
  }
  /// Whether persistent history keeps this attribute's value in the record of an object's deletion (Xcode's
  /// "Preserve After Deletion", `preservesValueInHistoryOnDeletion` in Core Data). It is part of the
  /// attribute's ``versionHash``, as in Core Data; the engine's history does not record deleted values yet,
  /// so it has no other effect here.
  public final var preservesValueInHistoryOnDeletion: Bool {
    get { state.read(\.preservesValueInHistoryOnDeletion) }
    set { state.write(\.preservesValueInHistoryOnDeletion, newValue, what: "attribute \(name)") }
  }
  /// A string mixed into the version hash to force a new version without another change.
  final override public var versionHashModifier: String? {
    get { state.read(\.versionHashModifier) }
    set { state.write(\.versionHashModifier, newValue, what: "attribute \(name)") }
  }
  /// The model file's user info for this attribute.
  final override var validationRules: [PropertyValidationRule] {
    get { state.read(\.validationRules) }
    set { state.write(\.validationRules, newValue, what: "attribute \(name)") }
  }

  final override public var userInfo: [String: String] {
    get { state.read(\.userInfo) }
    set { state.write(\.userInfo, newValue, what: "attribute \(name)") }
  }

  /// The least value a save accepts (Xcode's "Minimum"; `nil` for none). What it bounds depends on the
  /// type, as in Xcode's model editor: a number's value, a string's length (in UTF-16 code units, as
  /// `NSString` counts), a date's seconds since 2001-01-01. A value below it fails with 1620 (number),
  /// 1670 (string) or 1640 (date).
  public final var minValue: Double? {
    get { state.read(\.minValue) }
    set { state.write(\.minValue, newValue, what: "attribute \(name)") }
  }
  /// The greatest value a save accepts (Xcode's "Maximum"), read as ``minValue`` is: above it fails with
  /// 1610 (number), 1660 (string) or 1630 (date).
  public final var maxValue: Double? {
    get { state.read(\.maxValue) }
    set { state.write(\.maxValue, newValue, what: "attribute \(name)") }
  }
  /// For a string attribute: an ICU regular expression the whole value must match (Xcode's "Reg. Ex.");
  /// a value that does not fails with 1680.
  public final var regularExpression: String? {
    get { state.read(\.regularExpression) }
    set { state.write(\.regularExpression, newValue, what: "attribute \(name)") }
  }

  /// Core Data's version hash of the attribute: a digest of its name, optionality, transience and
  /// ``versionHashModifier``, its type, and whether it preserves its value in history on deletion (see
  /// ``NSEntityDescription/versionHash``).
  final override public var versionHash: Data { VersionHash.attribute(self) }

  /// Freezes the attribute's state (and a composite's elements, recursively): called when its model is frozen.
  func freezeState() {
    state.freeze()
    for element in state.read(\.elements) { element.freezeState() }
  }

  /// Whether the attribute has a validation rule beyond being required.
  final var hasValidationRules: Bool {
    minValue != nil || maxValue != nil || regularExpression != nil || !validationRules.isEmpty
  }

  /// Whether the engine can store and fetch this attribute: a supported type, and for a derived one an
  /// expression to compute it from.
  public final var isSupportedAtRunTime: Bool {
    unsupportedReason == nil
  }

  /// Why this attribute cannot be used at run time, or `nil` when it can.
  final var unsupportedReason: String? {
    if isDerived, (derivationFormat ?? "").isEmpty {
      return "is a derived attribute without an expression; ObjectGraph has nothing to compute it from"
    }
    if attributeType == .compositeAttributeType { return compositeUnsupportedReason }
    if !attributeType.isSupported {
      return
        "has type \(attributeType.xcodeName), which ObjectGraph describes but does not store; use a supported type (for example Binary Data holding encoded bytes)"
    }
    return nil
  }

  final override public var description: String {
    "\(name): \(attributeType)\(isOptional ? "?" : "")"
  }
}
