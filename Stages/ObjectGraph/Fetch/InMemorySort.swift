import Foundation

/// Sorting objects in memory with the same order SQLite uses: `nil` first, numbers numerically,
/// strings by code points, dates chronologically.
enum InMemorySort {
  static func sort<Object: PredicateEvaluable>(_ objects: [Object], by descriptors: [FetchSortDescriptor]) throws -> [Object] {
    let keyed = try objects.enumerated().map { offset, object in
      (offset, object, try descriptors.map { try sortValue(object, $0.keyPath) })
    }
    return keyed.sorted { lhs, rhs in
      for (index, descriptor) in descriptors.enumerated() {
        let order = compare(lhs.2[index], rhs.2[index], descriptor.comparison)
        if order != 0 { return descriptor.ascending ? order < 0 : order > 0 }
      }
      return lhs.0 < rhs.0
    }.map(\.1)
  }

  static func sortValue(_ object: some PredicateEvaluable, _ path: [String]) throws -> PredicateValue {
    switch try object.predicateValue(atKeyPath: path) {
    case .single(let value): return value
    case .many:
      throw ObjectGraphError(.unknownKey, "Cannot sort by '\(path.joined(separator: "."))': it goes through a to-many relationship.")
    }
  }

  static func compare(
    _ lhs: PredicateValue, _ rhs: PredicateValue, _ comparison: FetchSortDescriptor.Comparison = .compare
  ) -> Int {
    switch (lhs, rhs) {
    case (.null, .null): return 0
    case (.null, _): return -1
    case (_, .null): return 1
    case let (.string(a), .string(b)):
      switch comparison.order(a, b) {
      case .orderedAscending: return -1
      case .orderedSame: return 0
      case .orderedDescending: return 1
      }
    case let (.date(a), .date(b)): return a < b ? -1 : (a == b ? 0 : 1)
    case let (.objectID(a), .objectID(b)):
      let x = a.primaryKey ?? Int64.max
      let y = b.primaryKey ?? Int64.max
      return x < y ? -1 : (x == y ? 0 : 1)
    default:
      if let a = number(lhs), let b = number(rhs) { return a < b ? -1 : (a == b ? 0 : 1) }
      return 0
    }
  }

  private static func number(_ value: PredicateValue) -> Double? {
    switch value {
    case .integer(let v): Double(v)
    case .double(let v): v
    case .bool(let v): v ? 1 : 0
    case .decimal(let v): NSDecimalNumber(decimal: v).doubleValue
    default: nil
    }
  }
}
