import Foundation

/// Equality of stored values, for change detection and merge policies.
enum StoredValueComparison {
  static func isEqual(_ lhs: StoredValue, _ rhs: StoredValue) -> Bool {
    switch (lhs, rhs) {
    case (nil, nil): return true
    case (nil, _), (_, nil): return false
    case let (l?, r?):
      switch (l, r) {
      case (.unloadedToMany, _), (_, .unloadedToMany): return false
      case (.string(let a), .string(let b)): return a == b
      case (.int64(let a), .int64(let b)): return a == b
      case (.int32(let a), .int32(let b)): return a == b
      case (.int16(let a), .int16(let b)): return a == b
      case (.double(let a), .double(let b)): return a == b
      case (.float(let a), .float(let b)): return a == b
      case (.bool(let a), .bool(let b)): return a == b
      case (.date(let a), .date(let b)): return a == b
      case (.data(let a), .data(let b)): return a == b
      case (.objectID(let a), .objectID(let b)): return a == b
      case (.objectIDs(let a), .objectIDs(let b)): return a == b
      case (.orderedObjectIDs(let a), .orderedObjectIDs(let b)): return a == b
      case (.boxed(let a), .boxed(let b)):
        guard let lh = a.value as? AnyHashable, let rh = b.value as? AnyHashable else { return false }
        return lh == rh
      default: return false
      }
    }
  }
}
