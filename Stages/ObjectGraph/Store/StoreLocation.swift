import Foundation

extension URL? {
  /// Where a store is, as its messages name it: the file's path, or `memory` for an in-memory store
  /// (which has no URL).
  var storePath: String { self?.path ?? "memory" }
}
