import Foundation

/// Variables bound while a subquery's predicate runs: each name to the member being tested.
typealias PredicateBindings = [String: any PredicateEvaluable]

/// Evaluates a ``PredicateNode`` against one object in memory, with the semantics the SQL compiler gives
/// the same predicate in SQLite.
///
/// - Numbers compare numerically across integer, double, decimal and bool (`true` is 1).
/// - Strings compare by their UTF-8 bytes (SQLite's BINARY collation); `[c]` case-folds and `[d]` strips
///   diacritics on both sides first (`String.folding(options:locale: nil)`), for every operator.
/// - `== nil` is true only for null, `!=` is exactly the negation of `==` (so `x != "a"` is true when x is
///   null), and every other operator is false when either side is null.
/// - Values that cannot be compared (a string with a date, an object ID with `<`) are unequal, so `==`
///   and the ordering and string operators are false and `!=` is true.
/// - A to-many on the left of a direct comparison behaves as `ANY`, except `CONTAINS`, which asks whether
///   the collection holds the right side. `ALL` and `NONE` are true for an empty to-many.
/// - `IN` is membership by `==`, except that null is in nothing, as in SQL (`nil IN {nil}` is false; use
///   `== nil`); a collection on the right of any other operator except `BETWEEN` is true when some
///   member satisfies it.
/// - `LIKE`: `*` any run, `?` one Unicode scalar, `\` escapes; `MATCHES`: an ICU regular expression over
///   the whole string.
/// - Every comparison is true or false, never unknown, so `NOT` is plain negation.
/// - Arithmetic is on numbers only: `nil` in gives `nil` out, integers stay integers under `+ - *` (a
///   double when the result overflows, as in SQLite), `/` divides as doubles, and dividing by zero gives
///   `nil`.
/// - `@sum` is the total of a to-many's non-nil values as a double (`0` for none, SQLite's `TOTAL`);
///   `@avg` their mean, `@min` and `@max` their least and greatest (each `nil` for none).
/// - `SUBQUERY(collection, $x, predicate).@count` counts the members for which `predicate` holds, with
///   `$x` (and bare key paths) naming the member.
/// - `@distinctUnionOfObjects` and the other gathering operators give the values without `nil`s (each once
///   for the `@distinct…` ones); `median:`, `mode:` and `stddev:` reduce a collection, and `mode:`'s value
///   is itself one, compared as a to-many's values are; `noindex:(x)` and `indexed:by:(x, "index")` are `x`. See
///   `PredicateEvaluator+Collections.swift`.
enum PredicateEvaluator {
  /// Whether `object` matches `node`.
  /// - Throws: ``ObjectGraphUnknownKeyError`` (from the object) for an unknown key,
  ///   ``ObjectGraphPredicateSyntaxError`` for a `MATCHES` pattern that is not a valid regular
  ///   expression or for ``PredicateNode/tooDeep``, ``ObjectGraphInvalidValueError`` for `BETWEEN`
  ///   without exactly two bounds.
  static func evaluate(
    _ node: PredicateNode, on object: some PredicateEvaluable, bindings: PredicateBindings = [:]
  ) throws -> Bool {
    switch node {
    case .constant(let value):
      return value
    case .not(let operand):
      return try !evaluate(operand, on: object, bindings: bindings)
    case .and(let operands):
      for operand in operands {
        if try !evaluate(operand, on: object, bindings: bindings) { return false }
      }
      return true
    case .or(let operands):
      for operand in operands {
        if try evaluate(operand, on: object, bindings: bindings) { return true }
      }
      return false
    case .comparison(let comparison):
      return try evaluate(comparison, on: object, bindings: bindings)
    case .tooDeep:
      throw PredicateNode.tooDeepError
    }
  }

  /// The value of one expression on `object` (a derived attribute's expression, for one).
  static func value(of expression: PredicateExpression, on object: some PredicateEvaluable) throws -> PredicateKeyPathValue {
    try resolve(expression, on: object, bindings: [:])
  }

  // MARK: - Comparisons

  private static func evaluate(
    _ comparison: PredicateComparison, on object: some PredicateEvaluable, bindings: PredicateBindings
  ) throws -> Bool {
    var bytes: Data?
    if let transformable = try PredicateTransformableComparison(
      comparison,
      attribute: { path in
        let found = try object.predicateTransformable(atKeyPath: path)
        bytes = found?.bytes
        return found?.attribute
      })
    {
      return transformable.matches(bytes)
    }
    let lhs = try resolve(comparison.lhs, on: object, bindings: bindings)
    let rhs = try resolve(comparison.rhs, on: object, bindings: bindings)
    let test = try ComparisonTest(comparison, rhs: rhs)

    switch comparison.modifier {
    case .direct:
      switch lhs {
      case .single(let value):
        return try test.matches(value)
      case .many(let values):
        if comparison.op == .contains {
          return test.collectionContains(values)
        }
        return try values.contains { try test.matches($0) }
      }
    case .any:
      return try members(lhs).contains { try test.matches($0) }
    case .all:
      return try members(lhs).allSatisfy { try test.matches($0) }
    case .none:
      return try !members(lhs).contains { try test.matches($0) }
    }
  }

  /// The values a modifier ranges over: a to-many's members, or the one value of a to-one.
  private static func members(_ value: PredicateKeyPathValue) -> [PredicateValue] {
    switch value {
    case .single(let single): [single]
    case .many(let values): values
    }
  }

  /// The value of an expression on `object`. Collections (aggregates, array constants) are `.many`.
  static func resolve(
    _ expression: PredicateExpression, on object: some PredicateEvaluable, bindings: PredicateBindings
  ) throws -> PredicateKeyPathValue {
    switch expression {
    case .keyPath(let path):
      return try value(atKeyPath: path, on: object)
    case .variable(let name, let path):
      return try value(atKeyPath: path, on: try bound(name, bindings))
    case .constant(.collection(let items)):
      return .many(items)
    case .constant(let value):
      return .single(value)
    case .aggregate(let items):
      var values: [PredicateValue] = []
      for item in items {
        switch try resolve(item, on: object, bindings: bindings) {
        case .single(let value): values.append(value)
        case .many(let more): values.append(contentsOf: more)
        }
      }
      return .many(values)
    case .arithmetic(let op, let lhs, let rhs):
      let left = try single(resolve(lhs, on: object, bindings: bindings), lhs)
      let right = try single(resolve(rhs, on: object, bindings: bindings), rhs)
      return .single(try PredicateArithmeticEvaluation.apply(op, left, right))
    case .subqueryCount(let subquery):
      let members: [any PredicateEvaluable]
      switch subquery.collection {
      case .keyPath(let path): members = try object.predicateObjects(atKeyPath: path)
      case .variable(let name, let path): members = try bound(name, bindings).predicateObjects(atKeyPath: path)
      default: members = []
      }
      var inner = bindings
      var count: Int64 = 0
      for member in members {
        inner[subquery.variable] = member
        if try evaluate(subquery.predicate, on: member, bindings: inner) { count += 1 }
      }
      return .single(.integer(count))
    case .function(.noindex, let arguments) where arguments.count == 1:
      return try resolve(arguments[0], on: object, bindings: bindings)
    case .function(.indexedBy, let arguments) where arguments.count == 2:
      return try resolve(arguments[0], on: object, bindings: bindings)
    case .function(let function, let arguments) where function.takesCollection && arguments.count == 1:
      return try collectionFunction(function, of: resolve(arguments[0], on: object, bindings: bindings), arguments[0])
    case .function(let function, let arguments):
      var values: [PredicateValue] = []
      for argument in arguments {
        guard case .single(let value) = try resolve(argument, on: object, bindings: bindings), !value.isCollection else {
          throw ObjectGraphError(
            .predicateSyntax,
            "\(function.rawValue) takes one value per argument, and \(argument.predicateFormat) is a collection; reduce it with @count, @sum, @avg, @min or @max."
          )
        }
        values.append(value)
      }
      return .single(try PredicateFunctionEvaluation.apply(function, values))
    case .index(let collection, let index):
      if let member = try orderedMember(collection, index, on: object, bindings: bindings) { return member }
      if let counted = try collection.indexedKeyPath(index) { return try resolve(counted, on: object, bindings: bindings) }
      switch try resolve(collection, on: object, bindings: bindings) {
      case .many(let members): return .single(index.pick(members))
      case .single(.collection(let members)): return .single(index.pick(members))
      case .single(.null): return .single(.null)
      case .single:
        throw ObjectGraphError.indexOnValue(collection, index)
      }
    }
  }

  /// The value at a key path, with a collection operator other than `@count` (`notes.@sum.wordCount`)
  /// applied here to the values the path without it reaches.
  private static func value(atKeyPath path: [String], on object: some PredicateEvaluable) throws -> PredicateKeyPathValue {
    if let position = path.firstIndex(where: { $0.hasPrefix("@") && $0 != "@count" }),
      let collectionOperator = PredicateCollectionOperator(element: path[position])
    {
      if collectionOperator.isUnion { return try union(atKeyPath: path, operatorAt: position, collectionOperator, on: object) }
      let reached = try object.predicateValue(atKeyPath: Array(path[..<position] + path[(position + 1)...]))
      return .single(try PredicateArithmeticEvaluation.reduce(members(reached), by: collectionOperator))
    }
    let value = try object.predicateValue(atKeyPath: path)
    if case .single(.collection(let items)) = value { return .many(items) }
    return value
  }

  /// The member a subquery bound to `name`.
  /// - Throws: ``ObjectGraphPredicateSyntaxError`` for a substitution variable left without a value.
  static func bound(_ name: String, _ bindings: PredicateBindings) throws -> any PredicateEvaluable {
    guard let member = bindings[name] else { throw ObjectGraphError.unboundVariable(name) }
    return member
  }

  /// The one value an arithmetic operand has.
  /// - Throws: ``ObjectGraphPredicateSyntaxError`` for a collection (a to-many key path).
  private static func single(_ value: PredicateKeyPathValue, _ expression: PredicateExpression) throws -> PredicateValue {
    guard case .single(let single) = value, !single.isCollection else {
      throw ObjectGraphError(
        .predicateSyntax,
        "Arithmetic needs one number on each side, and \(expression.predicateFormat) is a collection; reduce it with @count, @sum, @avg, @min or @max."
      )
    }
    return single
  }

  /// One operator with its right side, checked (regular expressions compile, BETWEEN has two bounds),
  /// ready to test left-side values.
  private struct ComparisonTest {
    let op: PredicateComparison.Operator
    let options: PredicateComparison.Options
    let rhs: PredicateKeyPathValue

    init(_ comparison: PredicateComparison, rhs: PredicateKeyPathValue) throws {
      op = comparison.op
      options = comparison.options
      self.rhs = rhs
      if op == .matches {
        // Compile (and cache) every pattern now, so a bad one throws even when no value reaches it.
        for value in PredicateEvaluator.members(rhs) {
          if let pattern = PredicateEvaluator.string(value) {
            _ = try PredicateEvaluator.wholeStringRegex(pattern, options: options)
          }
        }
      }
      if op == .between {
        guard case .many(let bounds) = rhs, bounds.count == 2 else {
          throw ObjectGraphError(
            .invalidValue,
            "BETWEEN needs exactly two bounds {low, high} on its right side in \"\(comparison.predicateFormat)\"."
          )
        }
      }
    }

    /// `collection CONTAINS x` with a to-many on the left: whether the collection holds x (or, for a
    /// collection x, every member of it).
    func collectionContains(_ values: [PredicateValue]) -> Bool {
      switch rhs {
      case .single(let needle):
        return values.contains { PredicateEvaluator.equal($0, needle, options) }
      case .many(let needles):
        return needles.allSatisfy { needle in values.contains { PredicateEvaluator.equal($0, needle, options) } }
      }
    }

    /// Whether one left-side value satisfies the operator.
    func matches(_ lhs: PredicateValue) throws -> Bool {
      switch (op, rhs) {
      case (.in, .many(let candidates)):
        return candidates.contains { PredicateEvaluator.isMember(lhs, $0, options) }
      case (.in, .single(let value)):
        // A single value on the right (a to-one key path under ANY/ALL/NONE): a one-member collection.
        return PredicateEvaluator.isMember(lhs, value, options)
      case (.between, .many(let bounds)):
        guard bounds.count == 2,
          let low = PredicateEvaluator.compare(lhs, bounds[0], options),
          let high = PredicateEvaluator.compare(lhs, bounds[1], options)
        else { return false }
        return low != .orderedAscending && high != .orderedDescending
      case (.between, .single):
        return false
      case (_, .many(let values)):
        // A to-many (or aggregate) on the right of a scalar operator: true when some member satisfies it.
        return try values.contains { try test(lhs, $0) }
      case (_, .single(let value)):
        return try test(lhs, value)
      }
    }

    /// A scalar operator on two single values.
    private func test(_ lhs: PredicateValue, _ rhs: PredicateValue) throws -> Bool {
      switch op {
      case .equal:
        return PredicateEvaluator.equal(lhs, rhs, options)
      case .notEqual:
        return !PredicateEvaluator.equal(lhs, rhs, options)
      case .less:
        return PredicateEvaluator.compare(lhs, rhs, options) == .orderedAscending
      case .lessOrEqual:
        let order = PredicateEvaluator.compare(lhs, rhs, options)
        return order == .orderedAscending || order == .orderedSame
      case .greater:
        return PredicateEvaluator.compare(lhs, rhs, options) == .orderedDescending
      case .greaterOrEqual:
        let order = PredicateEvaluator.compare(lhs, rhs, options)
        return order == .orderedDescending || order == .orderedSame
      case .in:
        return PredicateEvaluator.isMember(lhs, rhs, options)
      case .between:
        return false
      case .contains:
        guard let text = PredicateEvaluator.string(lhs), let needle = PredicateEvaluator.string(rhs) else {
          return false
        }
        return PredicateEvaluator.contains(text, needle, options)
      case .beginsWith:
        guard let text = PredicateEvaluator.string(lhs), let prefix = PredicateEvaluator.string(rhs) else {
          return false
        }
        return PredicateEvaluator.fold(text, options).utf8.starts(with: PredicateEvaluator.fold(prefix, options).utf8)
      case .endsWith:
        guard let text = PredicateEvaluator.string(lhs), let suffix = PredicateEvaluator.string(rhs) else {
          return false
        }
        let folded = Array(PredicateEvaluator.fold(text, options).utf8)
        let foldedSuffix = Array(PredicateEvaluator.fold(suffix, options).utf8)
        return folded.count >= foldedSuffix.count && folded.suffix(foldedSuffix.count).elementsEqual(foldedSuffix)
      case .like:
        guard let text = PredicateEvaluator.string(lhs), let pattern = PredicateEvaluator.string(rhs) else {
          return false
        }
        return PredicateEvaluator.like(text, pattern: pattern, options: options)
      case .matches:
        guard let text = PredicateEvaluator.string(lhs), let pattern = PredicateEvaluator.string(rhs) else {
          return false
        }
        return try PredicateEvaluator.matches(text, pattern: pattern, options: options)
      }
    }
  }

  // MARK: - Values

  /// The text of a string-like value (a URL compares as its absolute string, as it is stored).
  private static func string(_ value: PredicateValue) -> String? {
    switch value {
    case .string(let text): text
    case .url(let url): url.absoluteString
    default: nil
    }
  }

  /// `text` case-folded for `[c]` and stripped of diacritics for `[d]`: what every string operator
  /// compares. The SQL compiler can register this as a SQLite function so both sides fold alike.
  static func fold(_ text: String, _ options: PredicateComparison.Options) -> String {
    var folding: String.CompareOptions = []
    if options.contains(.caseInsensitive) { folding.insert(.caseInsensitive) }
    if options.contains(.diacriticInsensitive) { folding.insert(.diacriticInsensitive) }
    let folded = folding.isEmpty ? text : text.folding(options: folding, locale: options.contains(.localized) ? .current : nil)
    // `[l]`: canonically equivalent strings become the same bytes.
    return options.contains(.localized) ? folded.precomposedStringWithCanonicalMapping : folded
  }

  /// How two strings order under `[l]`: folded as ``fold(_:_:)`` folds them, then by the current locale's
  /// rules (Foundation's `compare(_:options:range:locale:)`). Equal only when their folded bytes are, so
  /// that `==[l]` and `<=[l]` agree. The SQL compiler registers it as a SQLite function.
  static func localizedOrder(_ left: String, _ right: String, _ options: PredicateComparison.Options) -> ComparisonResult {
    let (l, r) = (fold(left, options), fold(right, options))
    if l.utf8.elementsEqual(r.utf8) { return .orderedSame }
    let order = l.compare(r, options: [], range: nil, locale: .current)
    if order != .orderedSame { return order }
    // Equal to the locale but not the same bytes: byte order breaks the tie.
    return l.utf8.lexicographicallyPrecedes(r.utf8) ? .orderedAscending : .orderedDescending
  }

  /// Whether `text` contains `needle` (after folding), comparing bytes.
  private static func contains(_ text: String, _ needle: String, _ options: PredicateComparison.Options) -> Bool {
    let haystack = Array(fold(text, options).utf8)
    let pattern = Array(fold(needle, options).utf8)
    guard !pattern.isEmpty else { return true }
    guard haystack.count >= pattern.count else { return false }
    for start in 0...(haystack.count - pattern.count)
    where haystack[start..<(start + pattern.count)].elementsEqual(pattern) {
      return true
    }
    return false
  }

  /// Membership for `IN`, as SQL's `x IN (a, b)`: `==`, except that a null matches nothing (not even a
  /// null member).
  private static func isMember(
    _ value: PredicateValue, _ member: PredicateValue, _ options: PredicateComparison.Options
  ) -> Bool {
    if value == .null || member == .null { return false }
    return equal(value, member, options)
  }

  /// `==`: null equals only null, object IDs compare by identity, everything else through ``compare``.
  private static func equal(
    _ lhs: PredicateValue, _ rhs: PredicateValue, _ options: PredicateComparison.Options
  ) -> Bool {
    switch (lhs, rhs) {
    case (.null, .null):
      return true
    case (.null, _), (_, .null):
      return false
    case (.objectID(let left), .objectID(let right)):
      return left == right
    case (.entity(let left), .entity(let right)):
      return left == right
    case (.collection(let left), .collection(let right)):
      return left.count == right.count && zip(left, right).allSatisfy { equal($0, $1, options) }
    default:
      return compare(lhs, rhs, options) == .orderedSame
    }
  }

  /// How two values order, or `nil` when they cannot be compared (a null, different kinds, object IDs).
  static func compare(
    _ lhs: PredicateValue, _ rhs: PredicateValue, _ options: PredicateComparison.Options
  ) -> ComparisonResult? {
    if let left = Number(lhs), let right = Number(rhs) {
      return Number.compare(left, right)
    }
    if let left = string(lhs), let right = string(rhs) {
      if options.contains(.localized) { return localizedOrder(left, right, options) }
      return order(Array(fold(left, options).utf8), Array(fold(right, options).utf8))
    }
    switch (lhs, rhs) {
    case (.date(let left), .date(let right)):
      return order(left.timeIntervalSinceReferenceDate, right.timeIntervalSinceReferenceDate)
    case (.data(let left), .data(let right)):
      return order(Array(left), Array(right))
    case (.uuid(let left), .uuid(let right)):
      return order(withUnsafeBytes(of: left.uuid) { Array($0) }, withUnsafeBytes(of: right.uuid) { Array($0) })
    default:
      return nil
    }
  }

  /// Byte-wise order, as SQLite's BINARY collation and `memcmp` order text and blobs.
  private static func order(_ left: [UInt8], _ right: [UInt8]) -> ComparisonResult {
    if left.elementsEqual(right) { return .orderedSame }
    return left.lexicographicallyPrecedes(right) ? .orderedAscending : .orderedDescending
  }

  private static func order<T: Comparable>(_ left: T, _ right: T) -> ComparisonResult? {
    if left < right { return .orderedAscending }
    if left > right { return .orderedDescending }
    if left == right { return .orderedSame }
    return nil  // NaN
  }

  /// A numeric value: integers and bools exactly, doubles as doubles, decimals as decimals.
  private enum Number {
    case integer(Int64)
    case double(Double)
    case decimal(Decimal)

    init?(_ value: PredicateValue) {
      switch value {
      case .integer(let number): self = .integer(number)
      case .bool(let flag): self = .integer(flag ? 1 : 0)
      case .double(let number): self = .double(number)
      case .decimal(let number): self = .decimal(number)
      default: return nil
      }
    }

    var doubleValue: Double {
      switch self {
      case .integer(let number): Double(number)
      case .double(let number): number
      case .decimal(let number): NSDecimalNumber(decimal: number).doubleValue
      }
    }

    var decimalValue: Decimal {
      switch self {
      case .integer(let number): Decimal(number)
      case .double(let number): Decimal(number)
      case .decimal(let number): number
      }
    }

    static func compare(_ left: Number, _ right: Number) -> ComparisonResult? {
      switch (left, right) {
      case (.integer(let a), .integer(let b)):
        return PredicateEvaluator.order(a, b)
      case (.double, _), (_, .double):
        return PredicateEvaluator.order(left.doubleValue, right.doubleValue)
      default:
        return PredicateEvaluator.order(left.decimalValue, right.decimalValue)
      }
    }
  }

  // MARK: - LIKE and MATCHES

  /// `text LIKE pattern`: `*` matches any run, `?` one Unicode scalar, `\` makes the next character
  /// literal, over the whole string; `[c]`/`[d]` fold both first. Usable as a SQLite function.
  static func like(_ text: String, pattern: String, options: PredicateComparison.Options) -> Bool {
    LikeElement.matches(Array(fold(text, options).unicodeScalars), LikeElement.compile(fold(pattern, options)))
  }

  /// `text MATCHES pattern`: the ICU regular expression must match the whole string; `[c]` is
  /// case-insensitive matching, `[d]` strips diacritics from both. Usable as a SQLite function.
  /// - Throws: ``ObjectGraphPredicateSyntaxError`` naming the pattern when it does not compile.
  static func matches(_ text: String, pattern: String, options: PredicateComparison.Options) throws -> Bool {
    let regex = try wholeStringRegex(pattern, options: options)
    let subject =
      options.contains(.diacriticInsensitive) ? text.folding(options: .diacriticInsensitive, locale: nil) : text
    let range = NSRange(subject.startIndex..<subject.endIndex, in: subject)
    return regex.firstMatch(in: subject, options: [], range: range) != nil
  }

  /// Compiled whole-string expressions by pattern and options, so evaluating many objects compiles once.
  private static let regexCache = Locked<[String: NSRegularExpression]>([:])

  /// `pattern` compiled to match a whole string (`\A(?:pattern)\z`), case-insensitive for `[c]` and with
  /// diacritics stripped for `[d]`.
  private static func wholeStringRegex(
    _ pattern: String, options: PredicateComparison.Options
  ) throws -> NSRegularExpression {
    let source =
      options.contains(.diacriticInsensitive) ? pattern.folding(options: .diacriticInsensitive, locale: nil) : pattern
    let caseInsensitive = options.contains(.caseInsensitive)
    let key = (caseInsensitive ? "c:" : "-:") + source
    if let cached = regexCache.withLock({ $0[key] }) { return cached }

    let regexOptions: NSRegularExpression.Options = caseInsensitive ? [.caseInsensitive] : []
    let regex: NSRegularExpression
    do {
      // Compiling the pattern alone first rejects patterns that only the wrapping would make valid
      // (such as "a)(b").
      _ = try NSRegularExpression(pattern: source, options: regexOptions)
      regex = try NSRegularExpression(pattern: "\\A(?:" + source + ")\\z", options: regexOptions)
    } catch {
      throw ObjectGraphError(
        .predicateSyntax,
        "The MATCHES pattern \"\(pattern)\" is not a valid regular expression (ICU syntax): \(error.localizedDescription)"
      )
    }
    regexCache.withLock { cache in
      if cache.count >= 128 { cache.removeAll() }
      cache[key] = regex
    }
    return regex
  }
}

/// One element of a `LIKE` pattern: `*` matches any run of characters, `?` exactly one (one Unicode
/// scalar, as SQLite's GLOB counts them), `\` makes the next character literal.
private enum LikeElement: Equatable {
  case literal(Unicode.Scalar)
  case anyOne
  case anyRun

  static func compile(_ pattern: String) -> [LikeElement] {
    var elements: [LikeElement] = []
    var escaping = false
    for scalar in pattern.unicodeScalars {
      if escaping {
        elements.append(.literal(scalar))
        escaping = false
        continue
      }
      switch scalar {
      case "\\": escaping = true
      case "*": elements.append(.anyRun)
      case "?": elements.append(.anyOne)
      default: elements.append(.literal(scalar))
      }
    }
    if escaping { elements.append(.literal("\\")) }
    return elements
  }

  /// Whether `text` matches the whole pattern (the usual greedy star match with backtracking to the last
  /// star, linear in practice).
  static func matches(_ text: [Unicode.Scalar], _ pattern: [LikeElement]) -> Bool {
    var textIndex = 0
    var patternIndex = 0
    var starPattern: Int?
    var starText = 0
    while textIndex < text.count {
      if patternIndex < pattern.count {
        switch pattern[patternIndex] {
        case .anyRun:
          starPattern = patternIndex
          starText = textIndex
          patternIndex += 1
          continue
        case .anyOne:
          textIndex += 1
          patternIndex += 1
          continue
        case .literal(let scalar) where scalar == text[textIndex]:
          textIndex += 1
          patternIndex += 1
          continue
        case .literal:
          break
        }
      }
      guard let star = starPattern else { return false }
      patternIndex = star + 1
      starText += 1
      textIndex = starText
    }
    while patternIndex < pattern.count, pattern[patternIndex] == .anyRun {
      patternIndex += 1
    }
    return patternIndex == pattern.count
  }
}
