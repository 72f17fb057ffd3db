import Foundation

/// Parses `NSPredicate`'s format-string language into a ``PredicateNode``.
///
/// ```swift
/// let node = try PredicateParser.parse(format: "category.name ==[c] %@ AND rating > %d", arguments: ["Work", 3])
/// ```
///
/// Supported: the comparison operators `== = != <> < <= =< > >= =>`, `BETWEEN`, `IN`, `CONTAINS`,
/// `BEGINSWITH`, `ENDSWITH`, `LIKE`, `MATCHES` (string operators take `[c]`, `[d]`, `[cd]`; `[n]` and `[l]`
/// are accepted and ignored), `AND OR NOT && || !`, parentheses, `ANY SOME ALL NONE`, `nil NULL TRUE YES
/// FALSE NO SELF TRUEPREDICATE FALSEPREDICATE` (keywords in any case), numbers (decimal, `0x`, `0o`, `0b`,
/// negative, with a fraction or exponent for a double), single- or double-quoted strings with backslash
/// escapes, aggregates `{a, b}`, key paths with `@count`, `#`-escaped reserved words (`#in`),
/// `CAST(<seconds since 2001>, "NSDate")`, and the format specifiers `%@ %K %d %i %u %x %o %f %e %g %s`
/// with the length modifiers `h hh l ll q z t j L`, positional forms such as `%1$@`, and `%%` (a literal
/// percent sign inside a quoted string). Specifiers inside quoted strings are not substituted.
///
/// `x IN keypath` (a key path on the right of `IN`) is rewritten to `ANY keypath == x`. Array and set
/// arguments become ``PredicateExpression/aggregate(_:)`` of constants, never a `.collection` constant.
struct PredicateParser {
  private let format: String
  private let scalars: [Unicode.Scalar]
  private let tokens: [PredicateToken]
  private let arguments: [any Sendable]
  private var index = 0
  private var nextSequentialArgument = 0

  private init(format: String, scalars: [Unicode.Scalar], tokens: [PredicateToken], arguments: [any Sendable]) {
    self.format = format
    self.scalars = scalars
    self.tokens = tokens
    self.arguments = arguments
  }

  /// Parses `format`, substituting `arguments` for its format specifiers in order.
  /// - Throws: ``ObjectGraphError/Code/predicateSyntax`` for a syntax error (the message gives the
  ///   character offset and a caret line) or a wrong number of arguments;
  ///   ``ObjectGraphError/Code/invalidValue`` for an argument of the wrong kind (`%K` not given a string,
  ///   `%d` given a string, `IN %@` given a single value, ...).
  static func parse(format: String, arguments: [any Sendable]) throws -> PredicateNode {
    let scalars = Array(format.unicodeScalars)
    var lexer = PredicateLexer(format: format, scalars: scalars)
    let tokens = try lexer.tokenize()
    try checkArgumentCount(format: format, tokens: tokens, given: arguments.count)
    var parser = PredicateParser(format: format, scalars: scalars, tokens: tokens, arguments: arguments)
    return try parser.parseWhole()
  }

  /// Checks that the format's specifiers need exactly as many arguments as were given.
  private static func checkArgumentCount(format: String, tokens: [PredicateToken], given: Int) throws {
    var sequential = 0
    var highestPosition = 0
    for token in tokens {
      guard case .specifier(let specifier) = token.kind else { continue }
      if let position = specifier.position {
        highestPosition = max(highestPosition, position)
      } else {
        sequential += 1
      }
    }
    let expected = max(sequential, highestPosition)
    guard expected != given else { return }
    let expectedText = expected == 1 ? "1 argument" : "\(expected) arguments"
    let givenText = given == 1 ? "1 was given" : "\(given) were given"
    throw ObjectGraphError(
      .predicateSyntax,
      "Predicate \"\(format)\" expects \(expectedText) for its format specifiers, but \(givenText)."
    )
  }

  /// The reserved words of the language, upper-cased; they are matched in any case, and a key with one
  /// of these names is written with a `#` in front (`#in`).
  static let reservedWords: Set<String> = [
    "AND", "OR", "NOT", "ANY", "SOME", "ALL", "NONE", "IN", "CONTAINS", "BEGINSWITH", "ENDSWITH", "LIKE",
    "MATCHES", "BETWEEN", "NIL", "NULL", "TRUE", "YES", "FALSE", "NO", "SELF", "TRUEPREDICATE",
    "FALSEPREDICATE",
  ]

  // MARK: - Token access

  /// The token under the cursor (the `.end` token once everything is consumed).
  private var current: PredicateToken { tokens[index] }

  /// The token after the current one (or `.end`).
  private var next: PredicateToken { tokens[min(index + 1, tokens.count - 1)] }

  /// The token before the current one, if any.
  private var previous: PredicateToken? { index > 0 ? tokens[index - 1] : nil }

  /// Moves past the current token and returns it.
  @discardableResult
  private mutating func advance() -> PredicateToken {
    let token = tokens[index]
    if index < tokens.count - 1 { index += 1 }
    return token
  }

  /// The upper-cased keyword `token` is, or `nil` for any other token.
  private static func keyword(_ token: PredicateToken) -> String? {
    guard case .word(let word) = token.kind else { return nil }
    let upper = word.uppercased()
    return PredicateLexer.keywords.contains(upper) ? upper : nil
  }

  private func isKeyword(_ keyword: String) -> Bool { Self.keyword(current) == keyword }

  private func isSymbol(_ symbol: String) -> Bool { current.kind == .symbol(symbol) }

  /// "'x'" for a token, "the end of the predicate" for the end.
  private static func describe(_ token: PredicateToken) -> String {
    token.kind == .end ? "the end of the predicate" : "'\(token.text)'"
  }

  /// The source text between two tokens, inclusive.
  private func sourceText(from first: PredicateToken, through last: PredicateToken) -> String {
    let start = min(first.position, scalars.count)
    let end = min(max(last.position + last.length, start), scalars.count)
    var text = String.UnicodeScalarView()
    text.append(contentsOf: scalars[start..<end])
    return String(text)
  }

  /// A syntax error at `position`, quoting the format with a caret under the position.
  private func syntaxError(at position: Int, _ reason: String) -> ObjectGraphError {
    PredicateLexer.syntaxError(format: format, scalars: scalars, at: position, reason)
  }

  // MARK: - Predicates

  /// predicate := or-expression <end>
  private mutating func parseWhole() throws -> PredicateNode {
    if current.kind == .end {
      throw syntaxError(at: 0, "the predicate is empty; use TRUEPREDICATE to match everything")
    }
    let node = try parseOr()
    guard current.kind == .end else {
      if isSymbol(")") {
        throw syntaxError(at: current.position, "')' has no matching '('")
      }
      throw syntaxError(
        at: current.position,
        "unexpected \(Self.describe(current)) after a complete predicate; join predicates with AND or OR"
      )
    }
    return node
  }

  /// or := and ((OR | ||) and)*
  private mutating func parseOr() throws -> PredicateNode {
    var parts = [try parseAnd()]
    while isKeyword("OR") || isSymbol("||") {
      advance()
      parts.append(try parseAnd())
    }
    return parts.count == 1 ? parts[0] : .or(parts)
  }

  /// and := not ((AND | &&) not)*
  private mutating func parseAnd() throws -> PredicateNode {
    var parts = [try parseNot()]
    while isKeyword("AND") || isSymbol("&&") {
      advance()
      parts.append(try parseNot())
    }
    return parts.count == 1 ? parts[0] : .and(parts)
  }

  /// not := (NOT | !) not | primary
  private mutating func parseNot() throws -> PredicateNode {
    if isKeyword("NOT") || isSymbol("!") {
      advance()
      return .not(try parseNot())
    }
    return try parsePrimary()
  }

  /// primary := '(' or ')' | TRUEPREDICATE | FALSEPREDICATE | comparison
  private mutating func parsePrimary() throws -> PredicateNode {
    if isSymbol("(") {
      let open = advance()
      let inner = try parseOr()
      guard isSymbol(")") else {
        throw syntaxError(
          at: current.position,
          "expected ')' to close the '(' at position \(open.position), found \(Self.describe(current))"
        )
      }
      advance()
      return inner
    }
    if isKeyword("TRUEPREDICATE") {
      advance()
      return .constant(true)
    }
    if isKeyword("FALSEPREDICATE") {
      advance()
      return .constant(false)
    }
    return .comparison(try parseComparison())
  }

  /// comparison := [ANY | SOME | ALL | NONE] expression operator ['[' options ']'] expression
  private mutating func parseComparison() throws -> PredicateComparison {
    if current.kind == .end || isSymbol(")") || Self.keyword(current).map({ ["AND", "OR"].contains($0) }) == true
      || isSymbol("&&") || isSymbol("||")
    {
      let after = previous.map { " after '\($0.text)'" } ?? ""
      throw syntaxError(at: current.position, "expected a predicate\(after), found \(Self.describe(current))")
    }

    var modifier = PredicateComparison.Modifier.direct
    var lhsContext = "at the start of a comparison"
    if let keyword = Self.keyword(current), let parsed = Self.modifiers[keyword] {
      let token = advance()
      modifier = parsed
      lhsContext = "after '\(token.text)'"
    }

    let lhsStart = current
    let (lhs, _) = try parseExpression(context: lhsContext)
    let lhsText = previous.map { sourceText(from: lhsStart, through: $0) } ?? lhsStart.text

    let operatorToken = current
    guard let op = Self.comparisonOperator(operatorToken) else {
      throw syntaxError(
        at: current.position,
        "expected a comparison operator (==, !=, <, <=, >, >=, BETWEEN, IN, CONTAINS, BEGINSWITH, ENDSWITH, LIKE, MATCHES) after '\(lhsText)', found \(Self.describe(current))"
      )
    }
    advance()
    let options = try parseOptions()
    let operatorText = previous.map { sourceText(from: operatorToken, through: $0) } ?? operatorToken.text

    let rhsStart = current
    let (rhs, fromArgument) = try parseExpression(context: "after '\(operatorText)'")

    var comparison = PredicateComparison(modifier: modifier, lhs: lhs, op: op, rhs: rhs, options: options)
    switch op {
    case .between:
      try checkBetweenBounds(rhs, fromArgument: fromArgument, at: rhsStart)
    case .in:
      switch rhs {
      case .aggregate:
        break
      case .keyPath:
        // `x IN tags.name` asks whether x is one of the to-many's values: `ANY tags.name == x`.
        if modifier == .direct {
          comparison = PredicateComparison(modifier: .any, lhs: rhs, op: .equal, rhs: lhs, options: options)
        }
      case .constant:
        if fromArgument {
          throw ObjectGraphError(
            .invalidValue,
            "In predicate \"\(format)\", the argument after IN at position \(rhsStart.position) must be an array or set, not a single value."
          )
        }
        throw syntaxError(
          at: rhsStart.position,
          "IN needs a collection on its right, such as {1, 2, 3}, an array argument or a to-many key path"
        )
      }
    default:
      break
    }
    return comparison
  }

  /// `ANY`, `SOME`, `ALL`, `NONE`.
  private static let modifiers: [String: PredicateComparison.Modifier] = [
    "ANY": .any, "SOME": .any, "ALL": .all, "NONE": .none,
  ]

  /// The operator `token` spells, if it is one.
  private static func comparisonOperator(_ token: PredicateToken) -> PredicateComparison.Operator? {
    switch token.kind {
    case .symbol(let symbol):
      switch symbol {
      case "==", "=": return .equal
      case "!=", "<>": return .notEqual
      case "<": return .less
      case "<=", "=<": return .lessOrEqual
      case ">": return .greater
      case ">=", "=>": return .greaterOrEqual
      default: return nil
      }
    case .word:
      switch keyword(token) {
      case "BETWEEN": return .between
      case "IN": return .in
      case "CONTAINS": return .contains
      case "BEGINSWITH": return .beginsWith
      case "ENDSWITH": return .endsWith
      case "LIKE": return .like
      case "MATCHES": return .matches
      default: return nil
      }
    default:
      return nil
    }
  }

  /// options := '[' letters ']' where letters are c, d, n or l (n and l are accepted and ignored).
  private mutating func parseOptions() throws -> PredicateComparison.Options {
    guard isSymbol("[") else { return [] }
    let open = advance()
    guard case .word(let letters) = current.kind else {
      throw syntaxError(
        at: current.position,
        "expected comparison options such as c, d or cd after '[', found \(Self.describe(current))"
      )
    }
    var options: PredicateComparison.Options = []
    for (offset, letter) in letters.unicodeScalars.enumerated() {
      switch letter {
      case "c", "C": options.insert(.caseInsensitive)
      case "d", "D": options.insert(.diacriticInsensitive)
      case "n", "N", "l", "L": break
      default:
        throw syntaxError(
          at: current.position + offset,
          "unknown comparison option '\(letter)' in '[\(letters)]'; use c (case-insensitive), d (diacritic-insensitive) or n"
        )
      }
    }
    advance()
    guard isSymbol("]") else {
      throw syntaxError(
        at: current.position,
        "expected ']' to close the options opened at position \(open.position), found \(Self.describe(current))"
      )
    }
    advance()
    return options
  }

  /// Checks the right side of `BETWEEN`: two bounds, or a key path.
  private func checkBetweenBounds(_ rhs: PredicateExpression, fromArgument: Bool, at start: PredicateToken) throws {
    let count: Int
    switch rhs {
    case .aggregate(let items):
      if items.count == 2 { return }
      count = items.count
    case .keyPath:
      return
    case .constant:
      count = 1
    }
    if fromArgument {
      throw ObjectGraphError(
        .invalidValue,
        "In predicate \"\(format)\", the argument after BETWEEN at position \(start.position) must be an array of exactly two bounds [low, high]; it has \(count) value\(count == 1 ? "" : "s")."
      )
    }
    throw syntaxError(
      at: start.position,
      "BETWEEN needs exactly two bounds, as in {1, 5}; found \(count) value\(count == 1 ? "" : "s")"
    )
  }

  // MARK: - Expressions

  /// Parses one side of a comparison. Returns whether it came from a `%@`-style argument.
  /// - Parameter context: where the expression was expected, for error messages ("after '=='").
  private mutating func parseExpression(context: String) throws -> (PredicateExpression, fromArgument: Bool) {
    let token = current
    switch token.kind {
    case .specifier(let specifier):
      advance()
      let argumentIndex = nextArgumentIndex(for: specifier)
      if specifier.conversion == .keyPath {
        let path = try keyPathArgument(at: argumentIndex, token: token)
        return (.keyPath(try continueKeyPath(path)), false)
      }
      let value = try argumentValue(at: argumentIndex, specifier: specifier, token: token)
      return (Self.expression(for: value), true)
    case .string(let text):
      advance()
      return (.constant(.string(text)), false)
    case .number(let text):
      advance()
      return (.constant(try numberValue(text, negative: false, token: token)), false)
    case .symbol("-"), .symbol("+"):
      guard case .number(let text) = next.kind else {
        throw syntaxError(at: next.position, "expected a number after '\(token.text)', found \(Self.describe(next))")
      }
      advance()
      let numberToken = advance()
      return (.constant(try numberValue(text, negative: token.text == "-", token: numberToken)), false)
    case .symbol("{"):
      return (try parseAggregate(), false)
    case .escapedWord(let name):
      advance()
      return (.keyPath(try continueKeyPath([name])), false)
    case .word(let word):
      if let keyword = Self.keyword(token) {
        switch keyword {
        case "NIL", "NULL":
          advance()
          return (.constant(.null), false)
        case "TRUE", "YES":
          advance()
          return (.constant(.bool(true)), false)
        case "FALSE", "NO":
          advance()
          return (.constant(.bool(false)), false)
        case "SELF":
          advance()
          return (.keyPath(try continueKeyPath([])), false)
        default:
          throw syntaxError(
            at: token.position,
            "expected a key path or value \(context), found the keyword '\(word)' (write '#\(word)' for a key named \(word))"
          )
        }
      }
      if next.kind == .symbol("(") {
        if word.uppercased() == "CAST" {
          return (try parseCast(), false)
        }
        throw syntaxError(
          at: token.position,
          "function expressions such as '\(word)(...)' are not supported; compare key paths with values"
        )
      }
      advance()
      return (.keyPath(try continueKeyPath([word])), false)
    case .atWord:
      throw syntaxError(
        at: token.position,
        "'\(token.text)' must follow a to-many key path, as in 'tags.@count'"
      )
    case .variable:
      throw syntaxError(
        at: token.position,
        "substitution variables such as '\(token.text)' are not supported; pass values with %@"
      )
    case .end:
      throw syntaxError(at: token.position, "expected a key path or value \(context)")
    default:
      throw syntaxError(
        at: token.position,
        "expected a key path or value \(context), found \(Self.describe(token))"
      )
    }
  }

  /// The expression for a substituted value: collections become aggregates of constants.
  private static func expression(for value: PredicateValue) -> PredicateExpression {
    if case .collection(let items) = value {
      return .aggregate(items.map { expression(for: $0) })
    }
    return .constant(value)
  }

  /// aggregate := '{' [expression (',' expression)*] '}'
  private mutating func parseAggregate() throws -> PredicateExpression {
    let open = advance()
    var items: [PredicateExpression] = []
    if isSymbol("}") {
      advance()
      return .aggregate(items)
    }
    while true {
      let (item, _) = try parseExpression(context: items.isEmpty ? "after '{'" : "after ','")
      items.append(item)
      if isSymbol(",") {
        advance()
        continue
      }
      if isSymbol("}") {
        advance()
        return .aggregate(items)
      }
      throw syntaxError(
        at: current.position,
        "expected ',' or '}' in the aggregate opened at position \(open.position), found \(Self.describe(current))"
      )
    }
  }

  /// cast := CAST '(' expression ',' "NSDate" ')': a date given as seconds since 2001-01-01 (the form
  /// Core Data's `predicateFormat` prints dates in).
  private mutating func parseCast() throws -> PredicateExpression {
    let castToken = advance()
    advance()  // '('
    let valueToken = current
    let (value, _) = try parseExpression(context: "after 'CAST('")
    guard isSymbol(",") else {
      throw syntaxError(at: current.position, "expected ',' after the value in CAST, found \(Self.describe(current))")
    }
    advance()
    let typeToken = current
    guard case .string(let typeName) = typeToken.kind, typeName == "NSDate" else {
      throw syntaxError(
        at: typeToken.position,
        "only CAST(<seconds since 2001-01-01>, \"NSDate\") is supported, found \(Self.describe(typeToken))"
      )
    }
    advance()
    guard isSymbol(")") else {
      throw syntaxError(
        at: current.position,
        "expected ')' to close the CAST at position \(castToken.position), found \(Self.describe(current))"
      )
    }
    advance()
    let seconds: Double
    switch value {
    case .constant(.integer(let number)): seconds = Double(number)
    case .constant(.double(let number)): seconds = number
    case .constant(.date(let date)): return .constant(.date(date))
    default:
      throw syntaxError(at: valueToken.position, "CAST to NSDate needs a number of seconds since 2001-01-01")
    }
    return .constant(.date(Date(timeIntervalSinceReferenceDate: seconds)))
  }

  /// Continues a key path with `.name`, `.#name` and a final `.@count`.
  private mutating func continueKeyPath(_ start: [String]) throws -> [String] {
    var path = start
    while isSymbol(".") {
      let dot = advance()
      if path.last == "@count" {
        throw syntaxError(at: dot.position, "'@count' must be the last element of a key path")
      }
      let token = current
      switch token.kind {
      case .word(let name), .escapedWord(let name):
        path.append(name)
      case .atWord(let name):
        guard name.lowercased() == "count" else {
          throw syntaxError(
            at: token.position,
            "the collection operator '@\(name)' is not supported; only @count is"
          )
        }
        path.append("@count")
      default:
        throw syntaxError(at: token.position, "expected a key name after '.', found \(Self.describe(token))")
      }
      advance()
    }
    return path
  }

  // MARK: - Arguments and literals

  /// The argument index a specifier takes: its explicit position, or the next in sequence.
  private mutating func nextArgumentIndex(for specifier: PredicateFormatSpecifier) -> Int {
    if let position = specifier.position { return position - 1 }
    defer { nextSequentialArgument += 1 }
    return nextSequentialArgument
  }

  /// The raw argument at `argumentIndex` (the count was checked before parsing).
  private func rawArgument(at argumentIndex: Int, token: PredicateToken) throws -> any Sendable {
    guard arguments.indices.contains(argumentIndex) else {
      throw syntaxError(
        at: token.position,
        "'\(token.text)' needs argument \(argumentIndex + 1), but only \(arguments.count) were given"
      )
    }
    return arguments[argumentIndex]
  }

  /// An `.invalidValue` error about the argument at `argumentIndex`.
  private func argumentError(_ argumentIndex: Int, _ token: PredicateToken, _ problem: String) -> ObjectGraphError {
    ObjectGraphError(
      .invalidValue,
      "In predicate \"\(format)\", argument \(argumentIndex + 1) (for '\(token.text)' at position \(token.position)) \(problem)"
    )
  }

  /// The key path a `%K` argument names: a string, split at dots.
  private func keyPathArgument(at argumentIndex: Int, token: PredicateToken) throws -> [String] {
    let raw = try rawArgument(at: argumentIndex, token: token)
    let value: PredicateValue
    do {
      value = try PredicateValue(argument: raw)
    } catch {
      throw argumentError(argumentIndex, token, "must be a String key path, not a \(type(of: raw)).")
    }
    guard case .string(let text) = value else {
      throw argumentError(argumentIndex, token, "must be a String key path, not a \(type(of: raw)).")
    }
    let path = text.split(separator: ".", omittingEmptySubsequences: false).map(String.init)
    guard !text.isEmpty, path.allSatisfy({ !$0.isEmpty }) else {
      throw argumentError(argumentIndex, token, "is \"\(text)\", which is not a key path (empty key name).")
    }
    for (offset, component) in path.enumerated() where component.hasPrefix("@") {
      guard component.lowercased() == "@count", offset == path.count - 1, offset > 0 else {
        throw argumentError(
          argumentIndex, token,
          "is \"\(text)\": only '@count' is supported as a collection operator, at the end of a to-many key path."
        )
      }
    }
    // "SELF.name" names the same key path as the literal SELF.name: ["name"].
    let keys = path.first?.uppercased() == "SELF" ? Array(path.dropFirst()) : path
    return keys.map { $0.lowercased() == "@count" ? "@count" : $0 }
  }

  /// The value an argument gives for a value specifier, checked against the specifier's kind.
  private func argumentValue(
    at argumentIndex: Int, specifier: PredicateFormatSpecifier, token: PredicateToken
  ) throws -> PredicateValue {
    let raw = try rawArgument(at: argumentIndex, token: token)
    let value: PredicateValue
    do {
      value = try PredicateValue(argument: raw)
    } catch let error as ObjectGraphError {
      throw argumentError(argumentIndex, token, "cannot be used: \(error.message)")
    }
    switch specifier.conversion {
    case .object, .keyPath:
      return value
    case .integer:
      switch value {
      case .integer, .bool, .null:
        return value
      case .double(let number):
        if let integer = Int64(exactly: number) { return .integer(integer) }
      case .decimal(let number):
        if let integer = Int64(exactly: NSDecimalNumber(decimal: number).doubleValue) { return .integer(integer) }
      default:
        break
      }
      throw argumentError(argumentIndex, token, "must be an integer, not a \(type(of: raw)).")
    case .double:
      switch value {
      case .double, .null:
        return value
      case .integer(let number):
        return .double(Double(number))
      case .bool(let flag):
        return .double(flag ? 1 : 0)
      case .decimal(let number):
        return .double(NSDecimalNumber(decimal: number).doubleValue)
      default:
        throw argumentError(argumentIndex, token, "must be a number, not a \(type(of: raw)).")
      }
    case .cString:
      switch value {
      case .string, .null:
        return value
      default:
        throw argumentError(argumentIndex, token, "must be a String, not a \(type(of: raw)).")
      }
    }
  }

  /// The value of a number literal (its text never has a sign; `negative` says whether a '-' preceded it).
  private func numberValue(_ text: String, negative: Bool, token: PredicateToken) throws -> PredicateValue {
    let lower = text.lowercased()
    let radix: Int? =
      lower.hasPrefix("0x") ? 16 : lower.hasPrefix("0o") ? 8 : lower.hasPrefix("0b") ? 2 : nil
    if let radix {
      guard let magnitude = UInt64(lower.dropFirst(2), radix: radix) else {
        throw syntaxError(at: token.position, "the number '\(text)' is too large for a 64-bit integer")
      }
      if negative {
        if magnitude == UInt64(Int64.max) + 1 { return .integer(Int64.min) }
        guard let positive = Int64(exactly: magnitude) else {
          throw syntaxError(at: token.position, "the number '-\(text)' is too small for a 64-bit integer")
        }
        return .integer(-positive)
      }
      guard let integer = Int64(exactly: magnitude) else {
        throw syntaxError(at: token.position, "the number '\(text)' is too large for a 64-bit integer")
      }
      return .integer(integer)
    }
    let signed = negative ? "-" + text : text
    if lower.contains(".") || lower.contains("e") {
      guard let number = Double(signed) else {
        throw syntaxError(at: token.position, "'\(signed)' is not a valid number")
      }
      return .double(number)
    }
    guard let integer = Int64(signed) else {
      throw syntaxError(
        at: token.position,
        "the number '\(signed)' does not fit a 64-bit integer; write it with a decimal point for a double"
      )
    }
    return .integer(integer)
  }
}

// MARK: - Lexer

/// A format specifier such as `%@`, `%K`, `%ld` or `%2$@`.
private struct PredicateFormatSpecifier: Equatable {
  /// What the specifier substitutes.
  enum Conversion: Equatable {
    /// `%@`: any object.
    case object
    /// `%K`: a key path.
    case keyPath
    /// `%d %i %u %x %o` with any length modifier.
    case integer
    /// `%f %e %g` with any length modifier.
    case double
    /// `%s`: a C string (a `String` argument here).
    case cString
  }

  var conversion: Conversion
  /// The explicit 1-based argument position of `%N$…`, if given.
  var position: Int?
}

/// One lexical token of a predicate format string.
private struct PredicateToken {
  /// What the token is.
  enum Kind: Equatable {
    /// A name or keyword, as written.
    case word(String)
    /// `#name`: a name, never a keyword.
    case escapedWord(String)
    /// `@count` (without the `@`).
    case atWord(String)
    /// A number literal without sign, as written.
    case number(String)
    /// A quoted string, escapes decoded.
    case string(String)
    /// A format specifier.
    case specifier(PredicateFormatSpecifier)
    /// `$name`, a substitution variable (not supported; the parser reports it).
    case variable(String)
    /// Punctuation or an operator symbol.
    case symbol(String)
    /// The end of the format string.
    case end
  }

  var kind: Kind
  /// Offset of the first character, in Unicode scalars.
  var position: Int
  /// Length in Unicode scalars.
  var length: Int
  /// The token as written.
  var text: String
}

/// Splits a format string into ``PredicateToken``s.
private struct PredicateLexer {
  /// Reserved words (upper-cased). `#` makes any of them a plain key name.
  static var keywords: Set<String> { PredicateParser.reservedWords }

  /// Two-character symbols, matched before single ones.
  private static let twoCharacterSymbols: Set<String> = ["==", "!=", "<>", "<=", "=<", ">=", "=>", "&&", "||"]
  /// Single-character symbols.
  private static let oneCharacterSymbols: Set<Unicode.Scalar> = [
    "=", "<", ">", "!", "(", ")", "{", "}", ",", ".", "[", "]", "-", "+",
  ]

  let format: String
  let scalars: [Unicode.Scalar]
  private var index = 0

  init(format: String, scalars: [Unicode.Scalar]) {
    self.format = format
    self.scalars = scalars
  }

  /// The error for a syntax problem at `position`, quoting the format with a caret under the position.
  static func syntaxError(
    format: String, scalars: [Unicode.Scalar], at position: Int, _ reason: String
  ) -> ObjectGraphError {
    var echo = String.UnicodeScalarView()
    for scalar in scalars {
      echo.append(scalar.properties.isWhitespace || scalar.value < 0x20 ? " " : scalar)
    }
    let caret = String(repeating: " ", count: max(0, min(position, scalars.count))) + "^"
    return ObjectGraphError(
      .predicateSyntax,
      "Predicate syntax error at position \(position) in \"\(format)\": \(reason)\n  \(String(echo))\n  \(caret)"
    )
  }

  private func error(at position: Int, _ reason: String) -> ObjectGraphError {
    Self.syntaxError(format: format, scalars: scalars, at: position, reason)
  }

  private func scalar(at offset: Int) -> Unicode.Scalar? {
    scalars.indices.contains(offset) ? scalars[offset] : nil
  }

  private func text(_ start: Int, _ end: Int) -> String {
    var view = String.UnicodeScalarView()
    view.append(contentsOf: scalars[start..<end])
    return String(view)
  }

  private static func isNameStart(_ scalar: Unicode.Scalar) -> Bool {
    scalar == "_" || scalar.properties.isAlphabetic
  }

  private static func isNameContinue(_ scalar: Unicode.Scalar) -> Bool {
    isNameStart(scalar) || scalar.properties.numericType != nil || scalar.properties.isDiacritic
  }

  private static func isDigit(_ scalar: Unicode.Scalar?, radix: Int = 10) -> Bool {
    guard let scalar, scalar.isASCII else { return false }
    return Int(String(scalar), radix: radix) != nil
  }

  /// All tokens, ending with `.end`.
  mutating func tokenize() throws -> [PredicateToken] {
    var tokens: [PredicateToken] = []
    while true {
      while let scalar = scalar(at: index), scalar.properties.isWhitespace || scalar.value < 0x20 {
        index += 1
      }
      guard index < scalars.count else {
        tokens.append(PredicateToken(kind: .end, position: scalars.count, length: 0, text: ""))
        return tokens
      }
      let start = index
      let kind = try nextKind()
      tokens.append(PredicateToken(kind: kind, position: start, length: index - start, text: text(start, index)))
    }
  }

  /// Reads the token at `index` and moves past it.
  private mutating func nextKind() throws -> PredicateToken.Kind {
    let start = index
    guard let first = scalar(at: index) else { return .end }

    if Self.isNameStart(first) {
      return .word(readName())
    }
    if Self.isDigit(first) {
      return try readNumber()
    }
    switch first {
    case "#":
      index += 1
      guard let next = scalar(at: index), Self.isNameStart(next) else {
        throw error(at: start, "expected a key name after '#'")
      }
      return .escapedWord(readName())
    case "@":
      index += 1
      guard let next = scalar(at: index), Self.isNameStart(next) else {
        throw error(at: start, "expected a collection operator such as '@count' after '@'")
      }
      return .atWord(readName())
    case "\"", "'":
      return .string(try readString(quote: first))
    case "%":
      return try readSpecifier()
    case "$":
      index += 1
      guard let next = scalar(at: index), Self.isNameStart(next) else {
        throw error(at: start, "expected a variable name after '$'")
      }
      return .variable(readName())
    default:
      break
    }
    if index + 2 <= scalars.count, Self.twoCharacterSymbols.contains(text(index, index + 2)) {
      index += 2
      return .symbol(text(start, index))
    }
    if Self.oneCharacterSymbols.contains(first) {
      index += 1
      return .symbol(String(first))
    }
    if first == "&" || first == "|" {
      throw error(at: start, "unexpected '\(first)'; use '\(first)\(first)' or \(first == "&" ? "AND" : "OR")")
    }
    throw error(at: start, "unexpected character '\(first)'")
  }

  private mutating func readName() -> String {
    let start = index
    index += 1
    while let scalar = scalar(at: index), Self.isNameContinue(scalar) {
      index += 1
    }
    return text(start, index)
  }

  /// A number: `12`, `1.5`, `2e10`, `1.5E-3`, `0x1F`, `0o17`, `0b101`. The sign is a separate token.
  private mutating func readNumber() throws -> PredicateToken.Kind {
    let start = index
    if scalar(at: index) == "0", let marker = scalar(at: index + 1),
      let radix = ["x": 16, "X": 16, "o": 8, "O": 8, "b": 2, "B": 2][marker]
    {
      index += 2
      guard Self.isDigit(scalar(at: index), radix: radix) else {
        throw error(at: start, "expected digits after '0\(marker)'")
      }
      while Self.isDigit(scalar(at: index), radix: radix) { index += 1 }
    } else {
      while Self.isDigit(scalar(at: index)) { index += 1 }
      if scalar(at: index) == ".", Self.isDigit(scalar(at: index + 1)) {
        index += 1
        while Self.isDigit(scalar(at: index)) { index += 1 }
      }
      if let marker = scalar(at: index), marker == "e" || marker == "E" {
        if Self.isDigit(scalar(at: index + 1)) {
          index += 1
        } else if let sign = scalar(at: index + 1), sign == "+" || sign == "-", Self.isDigit(scalar(at: index + 2)) {
          index += 2
        } else {
          throw error(at: index, "expected the exponent's digits after '\(marker)'")
        }
        while Self.isDigit(scalar(at: index)) { index += 1 }
      }
    }
    if let trailing = scalar(at: index), Self.isNameContinue(trailing) {
      throw error(at: index, "unexpected '\(trailing)' in the number '\(text(start, index + 1))'")
    }
    return .number(text(start, index))
  }

  /// A quoted string; `\n \t \r \0 \\ \' \" \uXXXX \u{X…}` are decoded, any other backslash pair is kept
  /// as written (so `LIKE '\*'` still escapes the star), and `%%` is a single `%`.
  private mutating func readString(quote: Unicode.Scalar) throws -> String {
    let start = index
    index += 1
    var result = String.UnicodeScalarView()
    while true {
      guard let scalar = scalar(at: index) else {
        throw error(at: start, "unterminated string starting at position \(start); close it with \(quote)")
      }
      index += 1
      if scalar == quote { return String(result) }
      if scalar == "%", self.scalar(at: index) == "%" {
        index += 1
        result.append("%")
        continue
      }
      guard scalar == "\\" else {
        result.append(scalar)
        continue
      }
      guard let escaped = self.scalar(at: index) else {
        throw error(at: start, "unterminated string starting at position \(start); close it with \(quote)")
      }
      index += 1
      switch escaped {
      case "n": result.append("\n")
      case "t": result.append("\t")
      case "r": result.append("\r")
      case "0": result.append("\0")
      case "\\", "\"", "'": result.append(escaped)
      case "u": result.append(try readUnicodeEscape(escapeStart: index - 2))
      default:
        result.append("\\")
        result.append(escaped)
      }
    }
  }

  /// The scalar of `\uXXXX` or `\u{X…}` (the cursor is after the `u`).
  private mutating func readUnicodeEscape(escapeStart: Int) throws -> Unicode.Scalar {
    var digits = ""
    if scalar(at: index) == "{" {
      index += 1
      while let scalar = scalar(at: index), scalar != "}", digits.count < 8 {
        digits.unicodeScalars.append(scalar)
        index += 1
      }
      guard scalar(at: index) == "}" else {
        throw error(at: escapeStart, "expected '}' to end the \\u{...} escape")
      }
      index += 1
    } else {
      for _ in 0..<4 {
        guard let scalar = scalar(at: index), Self.isDigit(scalar, radix: 16) else {
          throw error(at: escapeStart, "expected four hexadecimal digits after \\u")
        }
        digits.unicodeScalars.append(scalar)
        index += 1
      }
    }
    guard let value = UInt32(digits, radix: 16), let scalar = Unicode.Scalar(value) else {
      throw error(at: escapeStart, "'\\u\(digits)' is not a valid Unicode scalar")
    }
    return scalar
  }

  /// A format specifier: `%@ %K %d %ld %lld %u %lu %f %lf %s`, with an optional `N$` position.
  private mutating func readSpecifier() throws -> PredicateToken.Kind {
    let start = index
    index += 1
    if scalar(at: index) == "%" {
      throw error(at: start, "'%%' (a literal percent sign) may only appear inside a quoted string")
    }
    var position: Int?
    var probe = index
    while Self.isDigit(scalar(at: probe)) { probe += 1 }
    if probe > index, scalar(at: probe) == "$" {
      guard let number = Int(text(index, probe)), number >= 1 else {
        throw error(at: start, "argument positions in '%N$' start at 1")
      }
      position = number
      index = probe + 1
    }
    for modifier in ["hh", "ll", "h", "l", "q", "L", "z", "t", "j"] {
      let length = modifier.unicodeScalars.count
      if index + length <= scalars.count, text(index, index + length) == modifier {
        index += length
        break
      }
    }
    guard let conversion = scalar(at: index) else {
      throw error(at: start, "the format specifier '\(text(start, index))' is incomplete")
    }
    index += 1
    let kind: PredicateFormatSpecifier.Conversion
    switch conversion {
    case "@": kind = .object
    case "K": kind = .keyPath
    case "d", "i", "u", "x", "X", "o", "D", "U", "O": kind = .integer
    case "f", "F", "e", "E", "g", "G", "a", "A": kind = .double
    case "s": kind = .cString
    default:
      throw error(
        at: start,
        "'\(text(start, index))' is not a supported format specifier; use %@, %K, %d, %ld, %u, %f or %s"
      )
    }
    return .specifier(PredicateFormatSpecifier(conversion: kind, position: position))
  }
}
