import Foundation

#if !canImport(Darwin)
  /// A predicate that compares two expressions, built in code: Foundation's `NSComparisonPredicate`,
  /// which Linux's Foundation declares but cannot make. A kind of `NSPredicate`, so fetch requests,
  /// controllers and `NSCompoundPredicate` take it.
  ///
  /// ```swift
  /// let titled = NSComparisonPredicate(
  ///   leftExpression: NSExpression(forKeyPath: "title"), rightExpression: NSExpression(forConstantValue: "shop"),
  ///   modifier: .direct, type: .beginsWith, options: [.caseInsensitive])
  /// request.predicate = NSCompoundPredicate(andPredicateWithSubpredicates: [titled, recent])
  /// ```
  ///
  /// It runs exactly as the same comparison written with `NSPredicate(format:)` does. A comparison the
  /// engine cannot run (a custom selector, an expression it does not know) is refused when the fetch
  /// runs, and `evaluate(with:)` answers `false` for it.
  ///
  /// A file that imports Foundation as well cannot name this class as a type; see ``NSExpression``.
  open class NSComparisonPredicate: NSPredicate {
    /// How a to-many on the left is compared: Foundation's `NSComparisonPredicate.Modifier`.
    public enum Modifier: UInt, Sendable {
      /// A plain comparison.
      case direct = 0
      /// `ALL`: every member matches.
      case all = 1
      /// `ANY`: some member matches.
      case any = 2
    }

    /// The comparison: Foundation's `NSComparisonPredicate.Operator`, with Apple's raw values.
    public enum Operator: UInt, Sendable {
      case lessThan = 0
      case lessThanOrEqualTo = 1
      case greaterThan = 2
      case greaterThanOrEqualTo = 3
      case equalTo = 4
      case notEqualTo = 5
      case matches = 6
      case like = 7
      case beginsWith = 8
      case endsWith = 9
      case `in` = 10
      case customSelector = 11
      case contains = 99
      case between = 100
    }

    /// How strings compare: Foundation's `NSComparisonPredicate.Options`.
    public struct Options: OptionSet, Sendable {
      public let rawValue: UInt
      /// Makes options from their raw value.
      public init(rawValue: UInt) { self.rawValue = rawValue }
      /// `[c]`: ignoring case.
      public static let caseInsensitive = Options(rawValue: 1)
      /// `[d]`: ignoring diacritics.
      public static let diacriticInsensitive = Options(rawValue: 2)
      /// `[n]`: strings already normalized (a speed hint; the engine compares the same way).
      public static let normalized = Options(rawValue: 4)
    }

    /// The left side.
    public let leftExpression: NSExpression
    /// The right side.
    public let rightExpression: NSExpression
    /// How a to-many on the left is compared.
    public let comparisonPredicateModifier: Modifier
    /// The comparison.
    public let predicateOperatorType: Operator
    /// How strings compare.
    public let options: Options
    /// The comparison as the predicate tree holds it, or why it cannot run, worked out once: a fetch and
    /// every `evaluate(with:)` ask for it.
    private let tree: FetchPredicate.Parsed

    /// Makes a comparison of two expressions.
    public init(
      leftExpression lhs: NSExpression, rightExpression rhs: NSExpression, modifier: Modifier, type: Operator,
      options: Options = []
    ) {
      leftExpression = lhs
      rightExpression = rhs
      comparisonPredicateModifier = modifier
      predicateOperatorType = type
      self.options = options
      tree = Result { try Self.build(lhs, rhs, modifier, type, options) }.mapError(ObjectGraphError.wrapping)
      super.init(value: false)
    }

    /// Not supported: predicates are not archived on Linux.
    public required init?(coder: NSCoder) { nil }

    /// The comparison as the predicate language writes it: `title BEGINSWITH[c] "shop"`.
    open override var predicateFormat: String {
      (try? fetchPredicate().predicateFormat)
        ?? "\(leftExpression) \(predicateOperatorType) \(rightExpression)"
    }

    /// The comparison as the predicate language writes it.
    open override var description: String { predicateFormat }

    /// Whether `object` matches (`false` when the comparison cannot run).
    open override func evaluate(with object: Any?) -> Bool {
      evaluate(with: object, substitutionVariables: nil)
    }

    /// Whether `object` matches once `bindings` fill in the `$VARIABLE`s.
    open override func evaluate(with object: Any?, substitutionVariables bindings: [String: Any]?) -> Bool {
      guard case .success(let predicate) = tree else { return false }
      return predicate.answer(for: object, bindings: bindings)
    }

    /// The predicate itself: it never changes once made.
    open override func copy(with zone: NSZone? = nil) -> Any { self }

    /// Whether `object` is a comparison that prints the same.
    open override func isEqual(_ object: Any?) -> Bool {
      guard let other = object as? NSComparisonPredicate else { return false }
      return predicateFormat == other.predicateFormat
    }

    /// A hash of the printed comparison.
    open override var hash: Int { predicateFormat.hashValue }

    /// The comparison as the predicate tree holds it.
    func fetchPredicate() throws -> FetchPredicate { try tree.get() }

    private static func build(
      _ leftExpression: NSExpression, _ rightExpression: NSExpression, _ comparisonPredicateModifier: Modifier,
      _ predicateOperatorType: Operator, _ options: Options
    ) throws -> FetchPredicate {
      let objects = PredicateObjectCapture()
      let lhs = try leftExpression.predicateExpression(objects: objects)
      var rhs = try rightExpression.predicateExpression(objects: objects)
      if case .constant(.collection(let members)) = rhs { rhs = .aggregate(members.map { .constant($0) }) }
      let modifier: PredicateComparison.Modifier =
        switch comparisonPredicateModifier {
        case .direct: .direct
        case .all: .all
        case .any: .any
        }
      var comparisonOptions: PredicateComparison.Options = []
      if options.contains(.caseInsensitive) { comparisonOptions.insert(.caseInsensitive) }
      if options.contains(.diacriticInsensitive) { comparisonOptions.insert(.diacriticInsensitive) }
      let comparison = PredicateComparison(
        modifier: modifier, lhs: lhs, op: try Self.comparisonOperator(predicateOperatorType), rhs: rhs,
        options: comparisonOptions)
      return FetchPredicate(node: .comparison(comparison), objectReferences: objects.references)
    }

    private static func comparisonOperator(_ type: Operator) throws -> PredicateComparison.Operator {
      switch type {
      case .lessThan: .less
      case .lessThanOrEqualTo: .lessOrEqual
      case .greaterThan: .greater
      case .greaterThanOrEqualTo: .greaterOrEqual
      case .equalTo: .equal
      case .notEqualTo: .notEqual
      case .matches: .matches
      case .like: .like
      case .beginsWith: .beginsWith
      case .endsWith: .endsWith
      case .in: .in
      case .contains: .contains
      case .between: .between
      case .customSelector:
        throw ObjectGraphError(
          .predicateSyntax,
          "A comparison with a custom selector cannot run: Linux has no Objective-C runtime to call it, and a store could not run it either. Use one of the built-in operators."
        )
      }
    }
  }
#endif
