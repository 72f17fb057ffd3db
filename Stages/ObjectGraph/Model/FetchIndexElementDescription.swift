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
