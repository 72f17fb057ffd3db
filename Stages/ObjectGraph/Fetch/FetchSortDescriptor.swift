import Foundation

/// How to order fetch results: by a key or a key path through to-one relationships, ascending or not.
///
/// ```swift
/// request.sortDescriptors = [FetchSortDescriptor(key: "notebook.name"), FetchSortDescriptor(key: "createdAt", ascending: false)]
/// ```
///
/// Strings sort by their Unicode code points (SQLite's `BINARY` collation, Core Data's `compare:`), so
/// `"Z"` comes before `"a"`; `nil` sorts before any value when ascending.
public struct FetchSortDescriptor: Sendable, Hashable, CustomStringConvertible {
  /// The key or dotted key path to sort by.
  public let key: String
  /// Whether smaller values come first.
  public let ascending: Bool

  /// Makes a sort descriptor.
  public init(key: String, ascending: Bool = true) {
    self.key = key
    self.ascending = ascending
  }

  var keyPath: [String] { key.split(separator: ".").map(String.init) }

  public var description: String { "(\(key), \(ascending ? "ascending" : "descending"))" }
}
