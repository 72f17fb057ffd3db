import Foundation

/// One property of an ``NSFetchIndexDescription``: its name,
/// its order, and the kind of index.
///
/// ```swift
/// let newestFirst = NSFetchIndexElementDescription(propertyName: "createdAt", isAscending: false)
/// ```
///
/// An element is an object, as in Core Data: it belongs to the index whose ``NSFetchIndexDescription/elements``
/// hold it (its ``indexDescription``), and changing it is refused once its model is in use by a coordinator.
public final class NSFetchIndexElementDescription: NSObject, NSCopying, @unchecked Sendable {
  // @unchecked Sendable: every stored property is a `let`; the element's settings live in `state`, a `Frozen`
  // box that reads and writes them under its lock and refuses writes once the model is frozen.
  struct State {
    var propertyName: String
    var isAscending: Bool
    var collationType: NSFetchIndexElementType
    var property: NSPropertyDescription?
    weak var index: NSFetchIndexDescription?
  }

  let state: Frozen<State>

  /// Makes an index element by the property's name (an addition to Core Data's initializer, which takes the
  /// property itself: a model written in code names properties before they are in an entity).
  /// - Parameters:
  ///   - propertyName: the name of the indexed attribute or to-one relationship.
  ///   - isAscending: whether the index is in ascending order (the default) or descending order.
  ///   - collationType: the kind of index, ``NSFetchIndexElementType/binary`` by default.
  public init(propertyName: String, isAscending: Bool = true, collationType: NSFetchIndexElementType = .binary) {
    state = Frozen(State(propertyName: propertyName, isAscending: isAscending, collationType: collationType))
  }

  /// Makes an element for `property`, ascending (Core Data's `init(property:collationType:)`; set
  /// ``isAscending`` for a descending one).
  public convenience init(property: NSPropertyDescription, collationType: NSFetchIndexElementType) {
    self.init(propertyName: property.name, collationType: collationType)
    state.mutate(what: "an index element") { $0.property = property }
  }

  /// The name of the indexed attribute or to-one relationship (Core Data's `propertyName`, optional as
  /// Apple's is; an element here always has one).
  public var propertyName: String? { state.read(\.propertyName) }

  /// The name of the indexed property, for the engine's readers.
  var indexedPropertyName: String { state.read(\.propertyName) }

  /// Whether the index keeps the values in ascending order (`true`, the default) or descending order.
  public var isAscending: Bool {
    get { state.read(\.isAscending) }
    set { state.write(\.isAscending, newValue, what: "index element \(indexedPropertyName)") }
  }

  /// The kind of index: ``NSFetchIndexElementType/binary`` unless the model asks for an R-tree.
  public var collationType: NSFetchIndexElementType {
    get { state.read(\.collationType) }
    set { state.write(\.collationType, newValue, what: "index element \(indexedPropertyName)") }
  }

  /// The indexed property (Core Data's `property`): the one given to ``init(property:collationType:)``, or,
  /// for an element of an entity's index, the entity's property of that name. Not part of the element's value.
  public var property: NSPropertyDescription? {
    let (given, index) = state.read { ($0.property, $0.index) }
    return given ?? index?.entity?.propertiesByName[indexedPropertyName]
  }

  /// The index this element belongs to (Core Data's `indexDescription`); `nil` for an element not given to
  /// an index. Not part of the element's value.
  public var indexDescription: NSFetchIndexDescription? { state.read(\.index) }

  /// Equal when the property names, orders and kinds are.
  public override func isEqual(_ object: Any?) -> Bool {
    guard let other = object as? NSFetchIndexElementDescription else { return false }
    if other === self { return true }
    let (lhs, rhs) = (state.value, other.state.value)
    return lhs.propertyName == rhs.propertyName && lhs.isAscending == rhs.isAscending
      && lhs.collationType == rhs.collationType
  }

  /// A hash of the property's name, consistent with ``isEqual(_:)``.
  public override var hash: Int { indexedPropertyName.hashValue }

  /// A new element with the same property, order and kind, belonging to no index (Core Data's `NSCopying`).
  public func copy(with zone: NSZone? = nil) -> Any { detachedCopy() }

  /// A copy that belongs to no index.
  func detachedCopy() -> NSFetchIndexElementDescription {
    let settings = state.value
    let copy = NSFetchIndexElementDescription(
      propertyName: settings.propertyName, isAscending: settings.isAscending, collationType: settings.collationType)
    copy.state.mutate(what: "an index element") { $0.property = settings.property }
    return copy
  }

  /// This element, now belonging to `index`; a copy when it belongs to another index or is frozen.
  func adopted(by index: NSFetchIndexDescription) -> NSFetchIndexElementDescription {
    let owner = state.read(\.index)
    let element = state.isFrozen || (owner != nil && owner !== index) ? detachedCopy() : self
    element.state.mutate(what: "index element \(indexedPropertyName)") { $0.index = index }
    return element
  }

  /// `createdAt desc`, with `rtree` added for an R-tree element.
  public override var description: String {
    "\(indexedPropertyName) \(isAscending ? "asc" : "desc")" + (collationType == .rTree ? " rtree" : "")
  }
}

/// The kind of index an ``NSFetchIndexElementDescription`` asks for (with
/// its raw values).
public enum NSFetchIndexElementType: UInt, Sendable, Hashable {
  /// An ordinary (B-tree) index on the property's values: Xcode's `Binary`, the default.
  case binary = 0
  /// A spatial (R-tree) index, for bounding-box queries: Xcode's `RTree`. A SQLite store keeps it as Core
  /// Data does, in an R*Tree virtual table, which a predicate reads through `indexed:by:`.
  case rTree = 1

  /// The name Xcode writes in a model file (`type="Binary"`).
  var xcodeName: String {
    switch self {
    case .binary: "Binary"
    case .rTree: "RTree"
    }
  }

  /// Reads Xcode's name for an index type, in any letter case (`Binary`, `RTree`, also `R-Tree`); `nil`
  /// for a name this engine does not know.
  init?(xcodeName: String) {
    switch xcodeName.lowercased() {
    case "binary": self = .binary
    case "rtree", "r-tree": self = .rTree
    default: return nil
    }
  }
}
