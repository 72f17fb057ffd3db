import Foundation

/// One property of an ``NSFetchIndexDescription``: its name,
/// its order, and the kind of index.
///
/// ```swift
/// let newestFirst = NSFetchIndexElementDescription(propertyName: "createdAt", isAscending: false)
/// ```
public struct NSFetchIndexElementDescription: Sendable, Equatable, CustomStringConvertible {
  /// The name of the indexed attribute or to-one relationship.
  public var propertyName: String
  /// Whether the index keeps the values in ascending order (`true`, the default) or descending order.
  public var isAscending: Bool
  /// The kind of index: ``NSFetchIndexElementType/binary`` unless the model asks for an R-tree.
  public var collationType: NSFetchIndexElementType
  /// The indexed property (Core Data's `property`): the one given to ``init(property:collationType:)``, or, for
  /// an element read from an entity's ``NSEntityDescription/indexes``, the entity's property of that name.
  /// Not part of the element's value.
  public internal(set) var property: NSPropertyDescription?
  /// The index this element belongs to (Core Data's `indexDescription`), for an element read from an entity's
  /// ``NSEntityDescription/indexes`` (its elements there have none of their own); `nil` otherwise. Not part of
  /// the element's value.
  public var indexDescription: NSFetchIndexDescription? {
    get { container?.index }
    set { container = newValue.map(IndexContainer.init) }
  }
  private var container: IndexContainer?

  /// Holds an element's index by reference, so that an element (in its index's elements) can hold its index.
  private final class IndexContainer: Sendable {
    let index: NSFetchIndexDescription
    init(_ index: NSFetchIndexDescription) { self.index = index }
  }

  /// Makes an index element.
  /// - Parameters:
  ///   - propertyName: the name of the indexed attribute or to-one relationship.
  ///   - isAscending: whether the index is in ascending order (the default) or descending order.
  ///   - collationType: the kind of index, ``NSFetchIndexElementType/binary`` by default.
  public init(propertyName: String, isAscending: Bool = true, collationType: NSFetchIndexElementType = .binary) {
    self.propertyName = propertyName
    self.isAscending = isAscending
    self.collationType = collationType
  }

  /// Makes an element for `property`, ascending (Core Data's `init(property:collationType:)`; set
  /// ``isAscending`` for a descending one).
  public init(property: NSPropertyDescription, collationType: NSFetchIndexElementType) {
    self.init(propertyName: property.name, collationType: collationType)
    self.property = property
  }

  /// Equal when the property names, orders and kinds are.
  public static func == (lhs: NSFetchIndexElementDescription, rhs: NSFetchIndexElementDescription) -> Bool {
    lhs.propertyName == rhs.propertyName && lhs.isAscending == rhs.isAscending && lhs.collationType == rhs.collationType
  }

  /// The element without its index (what an entity keeps); the property stays.
  var detached: NSFetchIndexElementDescription {
    var element = self
    element.container = nil
    return element
  }

  /// `createdAt desc`, with `rtree` added for an R-tree element.
  public var description: String {
    "\(propertyName) \(isAscending ? "asc" : "desc")" + (collationType == .rTree ? " rtree" : "")
  }
}

/// The kind of index an ``NSFetchIndexElementDescription`` asks for (with
/// its raw values).
public enum NSFetchIndexElementType: UInt, Sendable, Hashable {
  /// An ordinary (B-tree) index on the property's values: Xcode's `Binary`, the default.
  case binary = 0
  /// A spatial (R-tree) index, for bounding-box queries: Xcode's `RTree`. Loaded and described; the engine
  /// does not build R-tree indexes.
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
