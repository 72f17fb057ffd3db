import Foundation

/// Parses `NSPredicate`'s format-string language into a ``PredicateNode``.
///
/// ```swift
/// let node = try PredicateParser.parse(format: "category.name ==[c] %@ AND rating > %d", arguments: ["Work", 3])
/// ```
///
/// Supported: the comparison operators `== = != <> < <= =< > >= =>`, `BETWEEN`, `IN`, `CONTAINS`,
/// `BEGINSWITH`, `ENDSWITH`, `LIKE`, `MATCHES` (string operators take `[c]`, `[d]`, `[l]` and their combinations; `[n]` is
/// accepted and ignored), `AND OR NOT && || !`, parentheses, `ANY SOME ALL NONE`, `nil NULL TRUE YES
/// FALSE NO SELF TRUEPREDICATE FALSEPREDICATE` (keywords in any case), numbers (decimal, `0x`, `0o`, `0b`,
/// negative, with a fraction or exponent for a double), single- or double-quoted strings with backslash
/// escapes, aggregates `{a, b}`, key paths with `@count` or `@sum`/`@avg`/`@min`/`@max` (or a gathering
/// operator, `@distinctUnionOfObjects`, `@unionOfObjects`, `@distinctUnionOfArrays`, `@unionOfArrays`,
/// `@distinctUnionOfSets`) before a key,
/// `#`-escaped reserved words (`#in`), arithmetic `+ - * /` (with unary minus and parenthesized
/// expressions), `$variables`, `SUBQUERY(collection, $x, predicate).@count`,
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
  private let arguments: [Any?]
  /// The managed objects given as arguments whose IDs were still temporary, by those IDs.
  private let objects: PredicateObjectCapture
  private var index = 0
  private var nextSequentialArgument = 0
  /// How deep the parse is nested (parentheses, braces, `NOT`s, signs), against ``maximumDepth``.
  private var depth = 0

  /// The deepest a format may nest, and the deepest tree it may give: ``PredicateNode/maximumDepth``.
  /// More is refused (900002) rather than parsed by ever deeper recursion, which would exhaust the
  /// thread's stack. Real predicates nest a handful of levels.
  static var maximumDepth: Int { PredicateNode.maximumDepth }

  /// Counts one more level of nesting, refusing a format nested deeper than ``maximumDepth``.
  private mutating func enterNesting() throws {
    depth += 1
    guard depth <= Self.maximumDepth else {
      throw syntaxError(
        at: current.position,
        "the predicate nests more than \(Self.maximumDepth) levels deep (parentheses, braces, NOT or signs); write it with fewer levels"
      )
    }
  }

  /// The error for a tree deeper than ``maximumDepth`` without that much nesting: a long chain of
  /// arithmetic (`1 + 1 + 1 …`), each operator of which is a level.
  private func tooDeep(at position: Int) -> ObjectGraphError {
    syntaxError(
      at: position,
      "the predicate is more than \(Self.maximumDepth) levels deep: each NOT, AND or OR inside another, comparison and arithmetic operator is a level, so a chain 'a + b + c' is three; write it with fewer operators (IN {…} instead of many ORs, for one)"
    )
  }

  /// `lhs op rhs`, refused when it would be as deep as ``maximumDepth``: the comparison around it adds a
  /// level. `lhsDepth` is `lhs`'s depth, and becomes the result's, so a chain is measured as it is built.
  private func arithmetic(
    _ op: PredicateArithmetic, _ lhs: PredicateExpression, depth lhsDepth: inout Int, _ rhs: PredicateExpression,
    at token: PredicateToken
  ) throws -> PredicateExpression {
    lhsDepth = max(lhsDepth, rhs.depth) + 1
    guard lhsDepth < Self.maximumDepth else { throw tooDeep(at: token.position) }
    return .arithmetic(op, lhs, rhs)
  }

  private init(
    format: String, scalars: [Unicode.Scalar], tokens: [PredicateToken], arguments: [Any?], objects: PredicateObjectCapture
  ) {
    self.format = format
    self.scalars = scalars
    self.tokens = tokens
    self.arguments = arguments
    self.objects = objects
  }

  /// Parses `format`, substituting `arguments` for its format specifiers in order.
  /// - Throws: ``ObjectGraphPredicateSyntaxError`` for a syntax error (the message gives the
  ///   character offset and a caret line) or a wrong number of arguments;
  ///   ``ObjectGraphInvalidValueError`` for an argument of the wrong kind (`%K` not given a string,
  ///   `%d` given a string, `IN %@` given a single value, ...).
  static func parse(format: String, arguments: [Any?]) throws -> PredicateNode {
    try parse(format: format, arguments: arguments, objects: PredicateObjectCapture())
  }

  /// The same, noting in `objects` each managed object argument whose ID is still temporary.
  static func parse(format: String, arguments: [Any?], objects: PredicateObjectCapture) throws -> PredicateNode {
    let scalars = Array(format.unicodeScalars)
    var lexer = PredicateLexer(format: format, scalars: scalars)
    let tokens = try lexer.tokenize()
    try checkArgumentCount(format: format, tokens: tokens, given: arguments.count)
    var parser = PredicateParser(format: format, scalars: scalars, tokens: tokens, arguments: arguments, objects: objects)
    return try parser.parseWhole()
  }

  /// Parses `format` as one expression (`NSExpression(format:)`): a key path, a constant, a variable,
  /// arithmetic, `SUBQUERY(…).@count`, substituting `arguments` in order.
  /// - Throws: ``ObjectGraphPredicateSyntaxError`` for a syntax error or text after the expression.
  static func parseExpression(format: String, arguments: [Any?], objects: PredicateObjectCapture) throws -> PredicateExpression {
    let scalars = Array(format.unicodeScalars)
    var lexer = PredicateLexer(format: format, scalars: scalars)
    let tokens = try lexer.tokenize()
    try checkArgumentCount(format: format, tokens: tokens, given: arguments.count)
    var parser = PredicateParser(format: format, scalars: scalars, tokens: tokens, arguments: arguments, objects: objects)
    if parser.current.kind == .end { throw parser.syntaxError(at: 0, "the expression is empty") }
    let (expression, _) = try parser.parseExpression(context: "in the expression")
    guard parser.current.kind == .end else {
      throw parser.syntaxError(
        at: parser.current.position, "unexpected \(Self.describe(parser.current)) after a complete expression")
    }
    return expression
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
    return PredicateLexer.string(scalars[start..<end])
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
    guard node.depth <= Self.maximumDepth else { throw tooDeep(at: 0) }
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
    try enterNesting()
    defer { depth -= 1 }
    if isKeyword("NOT") || isSymbol("!") {
      advance()
      return .not(try parseNot())
    }
    return try parsePrimary()
  }

  /// primary := '(' or ')' | TRUEPREDICATE | FALSEPREDICATE | comparison
  private mutating func parsePrimary() throws -> PredicateNode {
    if isSymbol("(") {
      let start = self
      do {
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
      } catch let groupError {
        // `(wordCount + 1) * 2 > 5`: the parenthesis opens an arithmetic expression, not a predicate.
        let grouped = self
        self = start
        if let comparison = try? parseComparison() { return .comparison(comparison) }
        self = grouped
        throw groupError
      }
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
      // A key path alone (a Boolean attribute as the whole predicate) is not a predicate in Foundation's
      // grammar either: NSPredicate(format:) refuses "isFavorite" and "%K".
      var hint = ""
      if case .keyPath = lhs, modifier == .direct {
        hint = "; a key path alone is not a predicate: compare a Boolean attribute explicitly, as in '\(lhsText) == YES'"
      }
      throw syntaxError(
        at: current.position,
        "expected a comparison operator (==, !=, <, <=, >, >=, BETWEEN, IN, CONTAINS, BEGINSWITH, ENDSWITH, LIKE, MATCHES) after '\(lhsText)', found \(Self.describe(current))\(hint)"
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
      case .variable:
        break
      case .function(let function, _) where function.givesCollection || function == .noindex:
        // `x IN mode:(notes.rating)`: one of the values the function gives (or the hinted collection).
        break
      case .constant, .arithmetic, .subqueryCount, .function, .index:
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
      case "l", "L": options.insert(.localized)
      // Core Data's hint that the strings are already normalized: it changes nothing here.
      case "n", "N": break
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
    case .keyPath, .variable:
      return
    case .constant, .arithmetic, .subqueryCount, .function, .index:
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

  /// Parses one side of a comparison: operands joined by `+ - * /` (`*` and `/` bind tighter). Returns
  /// whether it is a single `%@`-style argument.
  /// - Parameter context: where the expression was expected, for error messages ("after '=='").
  private mutating func parseExpression(context: String) throws -> (PredicateExpression, fromArgument: Bool) {
    var (expression, fromArgument) = try parseTerm(context: context)
    var expressionDepth = expression.depth
    while isSymbol("+") || isSymbol("-") {
      let op = advance()
      let (rhs, _) = try parseTerm(context: "after '\(op.text)'")
      expression = try arithmetic(op.text == "+" ? .add : .subtract, expression, depth: &expressionDepth, rhs, at: op)
      fromArgument = false
    }
    return (expression, fromArgument)
  }

  /// term := operand (('*' | '/') operand)*
  private mutating func parseTerm(context: String) throws -> (PredicateExpression, fromArgument: Bool) {
    var (expression, fromArgument) = try parsePower(context: context)
    var expressionDepth = expression.depth
    while isSymbol("*") || isSymbol("/") {
      let op = advance()
      let (rhs, _) = try parsePower(context: "after '\(op.text)'")
      expression = try arithmetic(op.text == "*" ? .multiply : .divide, expression, depth: &expressionDepth, rhs, at: op)
      fromArgument = false
    }
    return (expression, fromArgument)
  }

  /// power := operand ('**' operand)*: `x ** y` is `raise:toPower:(x, y)`, binding tighter than `*` and `/`,
  /// and grouping from the right as in mathematics (`2 ** 3 ** 2` is `2 ** 9`).
  private mutating func parsePower(context: String) throws -> (PredicateExpression, fromArgument: Bool) {
    let (first, fromArgument) = try parseIndexed(context: context)
    guard isSymbol("**") else { return (first, fromArgument) }
    var operands = [first]
    var operators: [PredicateToken] = []
    while isSymbol("**") {
      let op = advance()
      operators.append(op)
      operands.append(try parseIndexed(context: "after '**'").0)
    }
    var expression = operands.removeLast()
    var expressionDepth = expression.depth
    while let base = operands.popLast(), let op = operators.popLast() {
      expressionDepth = max(expressionDepth, base.depth) + 1
      guard expressionDepth < Self.maximumDepth else { throw tooDeep(at: op.position) }
      expression = .function(.raise, [base, expression])
    }
    return (expression, false)
  }

  /// indexed := operand ('[' (FIRST | LAST | SIZE | integer) ']')*: an array expression (`{1, 2}[LAST]`,
  /// `tags[SIZE]`, `%@[0]`).
  private mutating func parseIndexed(context: String) throws -> (PredicateExpression, fromArgument: Bool) {
    var (expression, fromArgument) = try parseOperand(context: context)
    var expressionDepth = expression.depth
    while isSymbol("[") {
      let open = advance()
      let index: PredicateIndex
      switch current.kind {
      case .word(let word) where ["FIRST", "LAST", "SIZE"].contains(word.uppercased()):
        index = word.uppercased() == "FIRST" ? .first : word.uppercased() == "LAST" ? .last : .size
      case .number(let text):
        guard case .integer(let position) = try numberValue(text, negative: false, token: current) else {
          throw syntaxError(at: current.position, "an index is a whole number counted from 0, FIRST, LAST or SIZE, found '\(text)'")
        }
        index = .position(position)
      default:
        throw syntaxError(
          at: current.position, "expected FIRST, LAST, SIZE or a whole number after '[', found \(Self.describe(current))")
      }
      advance()
      guard isSymbol("]") else {
        throw syntaxError(
          at: current.position, "expected ']' to close the index opened at position \(open.position), found \(Self.describe(current))")
      }
      advance()
      expressionDepth += 1
      guard expressionDepth < Self.maximumDepth else { throw tooDeep(at: open.position) }
      expression = .index(expression, index)
      fromArgument = false
    }
    return (expression, fromArgument)
  }

  /// One operand: a key path, a value, an argument, an aggregate, a variable, `SUBQUERY(…).@count`,
  /// `CAST(…)`, a negated operand or a parenthesized expression.
  private mutating func parseOperand(context: String) throws -> (PredicateExpression, fromArgument: Bool) {
    try enterNesting()
    defer { depth -= 1 }
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
      return (PredicateExpression.expression(for: value), true)
    case .string(let text):
      advance()
      return (.constant(.string(text)), false)
    case .number(let text):
      advance()
      return (.constant(try numberValue(text, negative: false, token: token)), false)
    case .symbol("-"), .symbol("+"):
      guard case .number(let text) = next.kind else {
        // `-wordCount`: the operand negated.
        advance()
        let (operand, _) = try parseOperand(context: "after '\(token.text)'")
        return (token.text == "-" ? .arithmetic(.multiply, .constant(.integer(-1)), operand) : operand, false)
      }
      advance()
      let numberToken = advance()
      return (.constant(try numberValue(text, negative: token.text == "-", token: numberToken)), false)
    case .symbol("("):
      let open = advance()
      let (inner, _) = try parseExpression(context: "after '('")
      guard isSymbol(")") else {
        throw syntaxError(
          at: current.position,
          "expected ')' to close the '(' at position \(open.position), found \(Self.describe(current))"
        )
      }
      advance()
      return (inner, false)
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
      if next.kind == .symbol("(") || next.kind == .symbol(":") {
        if word.uppercased() == "CAST" {
          return (try parseCast(), false)
        }
        if word.uppercased() == "SUBQUERY" {
          return (try parseSubquery(), false)
        }
        return (try parseFunction(), false)
      }
      advance()
      return (.keyPath(try continueKeyPath([word])), false)
    case .atWord:
      throw syntaxError(
        at: token.position,
        "'\(token.text)' must follow a to-many key path, as in 'tags.@count'"
      )
    case .variable(let name):
      advance()
      return (.variable(name, path: try continueKeyPath([])), false)
    case .end:
      throw syntaxError(at: token.position, "expected a key path or value \(context)")
    default:
      throw syntaxError(
        at: token.position,
        "expected a key path or value \(context), found \(Self.describe(token))"
      )
    }
  }

  /// function := name (':' [name])* '(' [expression (',' expression)*] ')': one of `NSExpression`'s
  /// predefined functions (``PredicateFunction``), by its bare name (`sqrt(x)`, `raise(x, y)`, `now()`) or as
  /// Apple prints it (`sqrt:(x)`, `raise:toPower:(x, y)`).
  private mutating func parseFunction() throws -> PredicateExpression {
    let nameToken = advance()
    var name = nameToken.text
    while isSymbol(":") {
      advance()
      name += ":"
      if case .word(let part) = current.kind, next.kind == .symbol(":") {
        name += part
        advance()
      }
    }
    guard isSymbol("(") else {
      throw syntaxError(at: current.position, "expected '(' after the function name '\(name)', found \(Self.describe(current))")
    }
    if name.uppercased() == "FUNCTION" {
      throw syntaxError(
        at: nameToken.position,
        "FUNCTION(receiver, 'selector', ...) calls an Objective-C method by its name, and Swift on Linux has no runtime to find a method by name; use the function itself (lowercase(x), uppercase(x), sqrt(x), ...) or compute the value before the fetch"
      )
    }
    let open = advance()
    var arguments: [PredicateExpression] = []
    if isSymbol(")") {
      advance()
    } else {
      while true {
        arguments.append(try parseExpression(context: arguments.isEmpty ? "after '\(name)('" : "after ','").0)
        if isSymbol(",") {
          advance()
          continue
        }
        guard isSymbol(")") else {
          throw syntaxError(
            at: current.position,
            "expected ',' or ')' in the arguments of '\(name)' opened at position \(open.position), found \(Self.describe(current))"
          )
        }
        advance()
        break
      }
    }
    if let reason = PredicateFunction.refused[name] ?? PredicateFunction.refused[name + ":"] {
      throw syntaxError(at: nameToken.position, "the function '\(name)' \(reason)")
    }
    // `add:to:(a, b)` and `count:(notes)`, as NSExpression prints its arithmetic and aggregate functions.
    if let expression = PredicateExpression.arithmeticOrCollection(name, arguments) { return expression }
    if let collectionOperator = PredicateCollectionOperator(functionName: name) {
      throw syntaxError(
        at: nameToken.position,
        "'\(name)' takes one key path through a to-many relationship, as in \(name)(notes\(collectionOperator == .count ? "" : ".wordCount"))"
      )
    }
    guard let function = PredicateFunction(name: name) else {
      throw syntaxError(
        at: nameToken.position,
        "'\(name)(...)' is not a function a predicate can compute here; the functions are \(PredicateFunction.allCases.map { $0.word + "()" }.joined(separator: ", ")), with SUBQUERY(...).@count and CAST(..., \"NSDate\")"
      )
    }
    guard arguments.count == function.arity else {
      throw syntaxError(
        at: nameToken.position,
        "'\(name)' takes \(function.arity) argument\(function.arity == 1 ? "" : "s"), found \(arguments.count)"
      )
    }
    return .function(function, arguments)
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

  /// subquery := SUBQUERY '(' collection ',' variable ',' predicate ')' '.' '@count'
  ///
  /// The collection is a to-many key path (from the object, or from an outer subquery's variable); inside
  /// the predicate, `$variable` is the member being tested. Only the size of the result can be used.
  private mutating func parseSubquery() throws -> PredicateExpression {
    let subqueryToken = advance()
    advance()  // '('
    let collectionToken = current
    let (collection, _) = try parseExpression(context: "after 'SUBQUERY('")
    switch collection {
    case .keyPath(let path) where !path.isEmpty && !path.contains(where: { $0.hasPrefix("@") }): break
    case .variable(_, let path) where !path.isEmpty && !path.contains(where: { $0.hasPrefix("@") }): break
    default:
      throw syntaxError(
        at: collectionToken.position,
        "SUBQUERY needs a to-many key path first, as in SUBQUERY(notes, $note, $note.wordCount > 100)"
      )
    }
    guard isSymbol(",") else {
      throw syntaxError(at: current.position, "expected ',' after SUBQUERY's collection, found \(Self.describe(current))")
    }
    advance()
    guard case .variable(let variable) = current.kind else {
      throw syntaxError(
        at: current.position,
        "expected SUBQUERY's variable, such as $note, after the collection, found \(Self.describe(current))"
      )
    }
    advance()
    guard isSymbol(",") else {
      throw syntaxError(at: current.position, "expected ',' after SUBQUERY's variable, found \(Self.describe(current))")
    }
    advance()
    let predicate = try parseOr()
    guard isSymbol(")") else {
      throw syntaxError(
        at: current.position,
        "expected ')' to close the SUBQUERY at position \(subqueryToken.position), found \(Self.describe(current))"
      )
    }
    advance()
    let subquery = PredicateSubquery(collection: collection, variable: variable, predicate: predicate)
    guard isSymbol("."), case .atWord(let name) = next.kind, name.lowercased() == "count" else {
      throw syntaxError(
        at: current.position,
        "a SUBQUERY is a collection: compare its size, as in SUBQUERY(...).@count > 0"
      )
    }
    advance()
    advance()
    return .subqueryCount(subquery)
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

  /// Continues a key path with `.name`, `.#name`, `.%K` (the argument's key path), a final `.@count`, or
  /// `.@sum`, `.@avg`, `.@min`, `.@max` followed by the key they reduce (`notes.@sum.wordCount`).
  private mutating func continueKeyPath(_ start: [String]) throws -> [String] {
    var path = start
    var operatorToken: PredicateToken?
    while isSymbol(".") {
      let dot = advance()
      if path.last == "@count" {
        throw syntaxError(at: dot.position, "'@count' must be the last element of a key path")
      }
      let token = current
      switch token.kind {
      case .word(let name), .escapedWord(let name):
        path.append(name)
      case .specifier(let specifier) where specifier.conversion == .keyPath:
        // `%K.%K`, `$x.%K`: the argument's key path continues this one (as tutorials write them).
        let argumentIndex = nextArgumentIndex(for: specifier)
        path.append(contentsOf: try keyPathArgument(at: argumentIndex, token: token))
      case .atWord(let name):
        guard let collectionOperator = PredicateCollectionOperator(element: "@" + name) else {
          throw syntaxError(
            at: token.position,
            "the collection operator '@\(name)' is not supported; \(PredicateCollectionOperator.allCases.map(\.rawValue).joined(separator: ", ")) are"
          )
        }
        if let earlier = operatorToken {
          throw syntaxError(
            at: token.position,
            "a key path takes one collection operator; '\(earlier.text)' came first"
          )
        }
        operatorToken = token
        path.append(collectionOperator.rawValue)
      default:
        throw syntaxError(at: token.position, "expected a key name after '.', found \(Self.describe(token))")
      }
      advance()
    }
    if let operatorToken, let last = path.last, last != "@count", last.hasPrefix("@") {
      throw syntaxError(
        at: operatorToken.position,
        "'\(operatorToken.text)' needs the key it reduces after it, as in notes.\(last).wordCount"
      )
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
  private func rawArgument(at argumentIndex: Int, token: PredicateToken) throws -> Any? {
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
      throw argumentError(argumentIndex, token, "must be a String key path, not a \(Self.typeName(raw)).")
    }
    guard case .string(let text) = value else {
      throw argumentError(argumentIndex, token, "must be a String key path, not a \(Self.typeName(raw)).")
    }
    let path = text.split(separator: ".", omittingEmptySubsequences: false).map(String.init)
    guard !text.isEmpty, path.allSatisfy({ !$0.isEmpty }) else {
      throw argumentError(argumentIndex, token, "is \"\(text)\", which is not a key path (empty key name).")
    }
    let operators = path.enumerated().filter { $0.element.hasPrefix("@") }
    for (offset, component) in operators {
      let known = PredicateCollectionOperator(element: component)
      let placed =
        known == .count ? offset == path.count - 1 : offset < path.count - 1 && !path[offset + 1].hasPrefix("@")
      guard known != nil, operators.count == 1, offset > 0, placed else {
        throw argumentError(
          argumentIndex, token,
          "is \"\(text)\": a key path takes one collection operator after a to-many, '@count' last or '@sum', '@avg', '@min', '@max', '@distinctUnionOfObjects' (or another array or set operator) before the key they apply to."
        )
      }
    }
    // "SELF.name" names the same key path as the literal SELF.name: ["name"].
    let keys = path.first?.uppercased() == "SELF" ? Array(path.dropFirst()) : path
    return keys.map { PredicateCollectionOperator(element: $0)?.rawValue ?? $0 }
  }

  /// The value an argument gives for a value specifier, checked against the specifier's kind.
  private func argumentValue(
    at argumentIndex: Int, specifier: PredicateFormatSpecifier, token: PredicateToken
  ) throws -> PredicateValue {
    let raw = try rawArgument(at: argumentIndex, token: token)
    let value: PredicateValue
    do {
      value = try PredicateValue(argument: raw, objects: objects)
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
      throw argumentError(argumentIndex, token, "must be an integer, not a \(Self.typeName(raw)).")
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
        throw argumentError(argumentIndex, token, "must be a number, not a \(Self.typeName(raw)).")
      }
    case .cString:
      switch value {
      case .string, .null:
        return value
      default:
        throw argumentError(argumentIndex, token, "must be a String, not a \(Self.typeName(raw)).")
      }
    }
  }

  /// The type of an argument, for messages ("String", "Optional<Int>" for a `nil` of that type).
  private static func typeName(_ raw: Any?) -> String {
    guard let raw else { return "nil" }
    return "\(type(of: raw))"
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
