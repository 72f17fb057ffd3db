import Foundation

/// The engine's form of a sort descriptor (`Sendable`): a key or a key path through to-one
/// relationships, ascending or not, and for strings, by which comparison. Apps make
/// `NSSortDescriptor(key:ascending:)` (or with `selector:`); the engine reads each into one of these.
///
/// With the default ``Comparison-swift.enum/compare``, strings sort by their Unicode code points
/// (SQLite's `BINARY` collation, what Core Data's `compare:` gives in a SQLite store), so `"Z"` comes
/// before `"a"`; the other comparisons are what lists people read want. `nil` sorts before any value when
/// ascending. The store and the in-memory sort (for unsaved objects) use the same comparison.
struct FetchSortDescriptor: Sendable, Hashable, CustomStringConvertible {
  /// How two strings compare: Core Data's sort selectors. Numbers, dates and other values always compare
  /// by value.
  ///
  /// The localized comparisons use the process's current locale (`Locale.current`), in the store (as a
  /// SQLite collation) and in memory alike.
  enum Comparison: String, Sendable, Hashable, CaseIterable {
    /// By Unicode code points (`compare:` in a SQLite store): `"Zebra" < "apple" < "café"`.
    case compare = "compare:"
    /// Ignoring case, otherwise by characters (`caseInsensitiveCompare:`).
    case caseInsensitiveCompare = "caseInsensitiveCompare:"
    /// By the locale's rules (`localizedCompare:`): `"apple" < "café" < "Zebra"`.
    case localizedCompare = "localizedCompare:"
    /// By the locale's rules, ignoring case (`localizedCaseInsensitiveCompare:`).
    case localizedCaseInsensitiveCompare = "localizedCaseInsensitiveCompare:"
    /// As Finder sorts names (`localizedStandardCompare:`): by the locale, ignoring case, and with numbers
    /// by value, so `"file2" < "file10"` and `"cafe"` sits next to `"Café"`.
    case localizedStandardCompare = "localizedStandardCompare:"

    /// How `lhs` and `rhs` order under this comparison.
    func order(_ lhs: String, _ rhs: String) -> ComparisonResult {
      switch self {
      case .compare:
        if lhs == rhs { return .orderedSame }
        return lhs.utf8.lexicographicallyPrecedes(rhs.utf8) ? .orderedAscending : .orderedDescending
      case .caseInsensitiveCompare: return lhs.caseInsensitiveCompare(rhs)
      case .localizedCompare: return lhs.compare(rhs, locale: .current)
      case .localizedCaseInsensitiveCompare: return lhs.compare(rhs, options: .caseInsensitive, locale: .current)
      case .localizedStandardCompare: return lhs.localizedStandardCompare(rhs)
      }
    }
  }

  /// The key or dotted key path to sort by.
  let key: String
  /// Whether smaller values come first.
  let ascending: Bool
  /// How strings compare.
  let comparison: Comparison

  /// Makes a sort descriptor.
  init(key: String, ascending: Bool = true, comparison: Comparison = .compare) {
    self.key = key
    self.ascending = ascending
    self.comparison = comparison
  }

  /// Makes a sort descriptor from the name of a Core Data sort selector, for ported code:
  /// `NSSortDescriptor(key: "name", ascending: true, selector: "localizedStandardCompare:")`.
  /// - Throws: ``ObjectGraphInvalidValueError`` for a selector that is not one of
  ///   ``Comparison-swift.enum``'s (there is no Objective-C runtime to call an arbitrary one).
  init(key: String, ascending: Bool = true, selector: String) throws {
    guard let comparison = Comparison(rawValue: selector) else {
      throw ObjectGraphError(
        .invalidValue,
        "Sort selector '\(selector)' for key '\(key)' is not one ObjectGraph knows. Use one of: \(Comparison.allCases.map(\.rawValue).joined(separator: ", "))."
      )
    }
    self.init(key: key, ascending: ascending, comparison: comparison)
  }

  var keyPath: [String] { key.split(separator: ".").map(String.init) }

  var description: String {
    "(\(key), \(ascending ? "ascending" : "descending")\(comparison == .compare ? "" : ", " + comparison.rawValue))"
  }
}
