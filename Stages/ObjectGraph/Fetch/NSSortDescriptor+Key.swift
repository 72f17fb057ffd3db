import Foundation

#if !canImport(Darwin)
  /// The name of a method, as Objective-C knows it (`"localizedStandardCompare:"`): what a sort
  /// descriptor's `selector:` takes. Linux has no Objective-C runtime, so Swift there has neither
  /// `Selector` nor `#selector`; this stands in for the first, and the sort selectors Core Data runs in a
  /// store are the ones the engine knows.
  ///
  /// ```swift
  /// NSSortDescriptor(key: "title", ascending: true, selector: Selector("localizedStandardCompare:"))
  /// ```
  ///
  /// On an iPhone the same line compiles (Swift suggests `#selector(NSString.localizedStandardCompare(_:))`).
  public struct Selector: Hashable, Sendable, ExpressibleByStringLiteral, CustomStringConvertible {
    /// The method's Objective-C name.
    public let name: String

    /// A selector by its Objective-C name.
    public init(_ name: String) {
      self.name = name
    }

    /// A selector by its Objective-C name, written as a string literal.
    public init(stringLiteral value: String) {
      name = value
    }

    /// The name.
    public var description: String { name }
  }

  extension NSSortDescriptor: _ObjectGraphFactoryInitializable {}

  extension _ObjectGraphFactoryInitializable where Self == NSSortDescriptor {
    /// Orders by a key or a key path through to-one relationships: Foundation's
    /// `NSSortDescriptor(key:ascending:)`, which Linux's Foundation leaves out.
    ///
    /// ```swift
    /// request.sortDescriptors = [
    ///   NSSortDescriptor(key: "notebook.name", ascending: true, selector: Selector("localizedStandardCompare:")),
    ///   NSSortDescriptor(key: "createdAt", ascending: false),
    /// ]
    /// ```
    ///
    /// Strings compare by Unicode code points (`compare:`, SQLite's `BINARY` collation, what Core Data
    /// gives in a SQLite store), so `"Z"` sorts before `"a"`; `nil` sorts before any value when ascending.
    public init(key: String?, ascending: Bool) {
      self = KeySortDescriptor(key: key, ascending: ascending, selector: .known(.compare))
    }

    /// Orders by a key, comparing strings with one of Core Data's sort selectors: `compare:`,
    /// `caseInsensitiveCompare:`, `localizedCompare:`, `localizedCaseInsensitiveCompare:`,
    /// `localizedStandardCompare:` (as Finder sorts names: `"file2"` before `"file10"`). The localized
    /// ones use the process's current locale, in the store and in memory alike.
    ///
    /// Another selector does not stop the program: a fetch with the descriptor throws, naming the
    /// selectors the engine knows.
    public init(key: String?, ascending: Bool, selector: Selector?) {
      self = KeySortDescriptor(
        key: key, ascending: ascending,
        selector: FetchSortDescriptor.Comparison(rawValue: selector?.name ?? "compare:").map { .known($0) }
          ?? .unknown(selector?.name ?? ""))
    }
  }

  extension NSSortDescriptor {
    /// The key to sort by: Foundation's `key`, which Linux's Foundation leaves out. `nil` for a
    /// descriptor made from a Swift key path.
    public var key: String? { (self as? KeySortDescriptor)?.sortKey }

    /// The selector strings are compared with (`compare:` unless one was given).
    public var selector: Selector? {
      guard let descriptor = self as? KeySortDescriptor else { return nil }
      return Selector(descriptor.selectorName)
    }
  }
#endif

/// The sort descriptor `NSSortDescriptor(key:ascending:)` makes: a kind of Foundation's (so Foundation's
/// `sortedArray(using:)` uses it too) holding the key and the comparison.
///
/// Immutable: every stored property is a `let` of a `Sendable` type, set in the initialiser.
final class KeySortDescriptor: NSSortDescriptor {
  enum SelectorChoice: Sendable, Equatable {
    case known(FetchSortDescriptor.Comparison)
    case unknown(String)
  }

  let sortKey: String?
  let choice: SelectorChoice
  /// The engine's descriptor, or why there is none, worked out once: every fetch and every in-memory
  /// comparison asks for it.
  private let built: Result<FetchSortDescriptor, ObjectGraphError>

  init(key: String?, ascending: Bool, selector: SelectorChoice) {
    sortKey = key
    choice = selector
    built = Self.build(key: key, ascending: ascending, selector: selector)
    super.init(keyPath: \String.count, ascending: ascending)
  }

  convenience init(_ descriptor: FetchSortDescriptor) {
    self.init(key: descriptor.key, ascending: descriptor.ascending, selector: .known(descriptor.comparison))
  }

  required init?(coder: NSCoder) { nil }

  var selectorName: String {
    switch choice {
    case .known(let comparison): comparison.rawValue
    case .unknown(let name): name
    }
  }

  /// The engine's descriptor.
  /// - Throws: ``ObjectGraphInvalidValueError`` for a missing key or a selector the engine does not
  ///   know.
  func fetchSortDescriptor() throws -> FetchSortDescriptor { try built.get() }

  private static func build(key: String?, ascending: Bool, selector: SelectorChoice) -> Result<
    FetchSortDescriptor, ObjectGraphError
  > {
    guard let key, !key.isEmpty else {
      return .failure(
        ObjectGraphError(.invalidValue, "A sort descriptor has no key. Give NSSortDescriptor(key:ascending:) the key to sort by."))
    }
    switch selector {
    case .known(let comparison): return .success(FetchSortDescriptor(key: key, ascending: ascending, comparison: comparison))
    case .unknown(let name):
      return .failure(
        ObjectGraphError(
          .invalidValue,
          "Sort selector '\(name)' for key '\(key)' is not one ObjectGraph knows. Use one of: \(FetchSortDescriptor.Comparison.allCases.map(\.rawValue).joined(separator: ", "))."
        ))
    }
  }

  override func compare(_ object1: Any, to object2: Any) -> ComparisonResult {
    guard let descriptor = try? fetchSortDescriptor(),
      let lhs = try? Self.subject(object1).predicateValue(atKeyPath: descriptor.keyPath),
      let rhs = try? Self.subject(object2).predicateValue(atKeyPath: descriptor.keyPath),
      case .single(let left) = lhs, case .single(let right) = rhs
    else { return .orderedSame }
    let order = InMemorySort.compare(left, right, descriptor.comparison)
    let result = ascending ? order : -order
    return result < 0 ? .orderedAscending : (result > 0 ? .orderedDescending : .orderedSame)
  }

  private static func subject(_ object: Any) -> any PredicateEvaluable {
    (object as? any PredicateEvaluable) ?? PredicateValueSubject(object)
  }

  override var reversedSortDescriptor: Any { KeySortDescriptor(key: sortKey, ascending: !ascending, selector: choice) }

  override func copy(with zone: NSZone? = nil) -> Any { self }

  override var description: String {
    "(\(sortKey ?? "nil"), \(ascending ? "ascending" : "descending"), \(selectorName))"
  }

  override func isEqual(_ object: Any?) -> Bool {
    guard let other = object as? KeySortDescriptor else { return false }
    return sortKey == other.sortKey && ascending == other.ascending && choice == other.choice
  }

  override var hash: Int { description.hashValue }
}

extension FetchSortDescriptor {
  /// The engine's descriptor for a Foundation one: from `NSSortDescriptor(key:ascending:)`, or from
  /// `NSSortDescriptor(keyPath:ascending:)` when the key path names a property Swift can print the name of.
  /// - Throws: ``ObjectGraphInvalidValueError`` for a missing key, an unknown selector, or a key path
  ///   whose name cannot be read.
  init(_ descriptor: NSSortDescriptor) throws {
    if let descriptor = descriptor as? KeySortDescriptor {
      self = try descriptor.fetchSortDescriptor()
      return
    }
    #if canImport(Darwin)
      if let key = descriptor.key {
        let selector = descriptor.selector.map { NSStringFromSelector($0) } ?? "compare:"
        self = try KeySortDescriptor(
          key: key, ascending: descriptor.ascending,
          selector: Comparison(rawValue: selector).map { .known($0) } ?? .unknown(selector)
        ).fetchSortDescriptor()
        return
      }
      let printed = descriptor.keyPath.map { "\($0)" } ?? ""
    #else
      let printed = "\(descriptor.keyPath)"
    #endif
    let parts = printed.split(separator: ".").dropFirst().map { String($0).replacingOccurrences(of: "?", with: "") }
    guard printed.hasPrefix("\\"), !parts.isEmpty, !printed.contains("<computed") else {
      throw ObjectGraphError(
        .invalidValue,
        "Sort descriptor \(printed.isEmpty ? "(no key)" : printed) names a property by a Swift key path whose name cannot be read on Linux (it is computed, as managed properties are). Use NSSortDescriptor(key: \"name\", ascending: \(descriptor.ascending))."
      )
    }
    self.init(key: parts.joined(separator: "."), ascending: descriptor.ascending, comparison: .compare)
  }
}
