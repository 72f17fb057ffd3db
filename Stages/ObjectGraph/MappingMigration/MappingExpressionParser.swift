import Foundation

/// Reads a mapping expression's text (`NSExpression` format syntax) into a ``MappingExpression``, with the
/// predicate language's lexer (``PredicateLexer``): constants, `NOW()`, variables with key paths (collection
/// operators included) and `FUNCTION(operand, "selector:", arguments…)`. Anything else (arithmetic,
/// aggregates `{…}`, other built-in functions, format specifiers, bare key paths) is refused, naming it.
struct MappingExpressionParser {
  typealias Unsupported = MappingExpression.Unsupported

  private let text: String
  private var tokens: [PredicateToken] = []
  private var index = 0
  /// How deep `FUNCTION`s and parentheses nest, bounded so that no text can exhaust the stack.
  private var depth = 0
  private static let maximumDepth = 32

  init(_ text: String) {
    self.text = text
  }

  mutating func parseWhole() throws -> MappingExpression {
    do {
      var lexer = PredicateLexer(format: text, scalars: Array(text.unicodeScalars))
      tokens = try lexer.tokenize()
    } catch let error as ObjectGraphError {
      throw Unsupported(reason: "it cannot be read (\(error.message.split(separator: "\n").first ?? ""))")
    }
    // Predicates read Apple's printed function names (`uppercase:(x)`); a mapping's value expression does not.
    if let colon = tokens.first(where: { $0.kind == .symbol(":") }) {
      let error = PredicateLexer.syntaxError(
        format: text, scalars: Array(text.unicodeScalars), at: colon.position, "unexpected character ':'")
      throw Unsupported(reason: "it cannot be read (\(error.message.split(separator: "\n").first ?? ""))")
    }
    let expression = try parseExpression()
    guard case .end = current.kind else {
      if case .symbol(let symbol) = current.kind, ["+", "-", "*", "/"].contains(symbol) {
        throw Unsupported(reason: "ObjectGraph does not evaluate arithmetic ('\(symbol)' at position \(current.position))")
      }
      throw Unsupported(reason: "unexpected '\(current.text)' at position \(current.position) after a complete expression")
    }
    return expression
  }

  private var current: PredicateToken { tokens[min(index, tokens.count - 1)] }

  private mutating func advance() -> PredicateToken {
    let token = current
    if index < tokens.count - 1 { index += 1 }
    return token
  }

  private mutating func expect(_ symbol: String, _ what: String) throws {
    guard current.kind == .symbol(symbol) else {
      throw Unsupported(
        reason: "expected '\(symbol)' \(what) at position \(current.position), found \(Self.describe(current))")
    }
    _ = advance()
  }

  private static func describe(_ token: PredicateToken) -> String {
    if case .end = token.kind { return "the end of the expression" }
    return "'\(token.text)'"
  }

  private mutating func parseExpression() throws -> MappingExpression {
    depth += 1
    defer { depth -= 1 }
    guard depth <= Self.maximumDepth else {
      throw Unsupported(reason: "it nests more than \(Self.maximumDepth) levels deep")
    }
    let token = advance()
    switch token.kind {
    case .string(let text):
      return .constant(.string(text))
    case .number(let digits):
      return .constant(try Self.number(digits, negative: false))
    case .symbol("-"), .symbol("+"):
      guard case .number(let digits) = current.kind else {
        throw Unsupported(reason: "'\(token.text)' at position \(token.position) is not followed by a number")
      }
      _ = advance()
      return .constant(try Self.number(digits, negative: token.kind == .symbol("-")))
    case .symbol("("):
      let inner = try parseExpression()
      try expect(")", "to close the parenthesis")
      return inner
    case .variable(let name):
      guard let variable = MappingVariable(rawValue: name) else {
        throw Unsupported(
          reason:
            "it uses the variable $\(name); a property mapping has $source, $destination, $manager, $entityMapping, $propertyMapping and $entityPolicy"
        )
      }
      return .variable(variable, try parseKeyPath())
    case .word(let word):
      switch word.uppercased() {
      case "NIL", "NULL": return .constant(.null)
      case "TRUE", "YES": return .constant(.bool(true))
      case "FALSE", "NO": return .constant(.bool(false))
      case "FUNCTION": return try parseFunction()
      case "NOW" where current.kind == .symbol("("):
        _ = advance()
        try expect(")", "after NOW(")
        return .now
      default:
        if current.kind == .symbol("(") {
          throw Unsupported(
            reason: "it calls the function \(word)(), which ObjectGraph does not evaluate (it evaluates NOW() and "
              + "FUNCTION(…) with the selectors listed in NSPropertyMapping's documentation)")
        }
        throw Unsupported(
          reason: "the key path '\(word)' does not start at a variable; write $source.\(word) for the source "
            + "instance's value")
      }
    case .symbol("{"):
      throw Unsupported(reason: "ObjectGraph does not evaluate aggregate expressions {…}")
    case .specifier:
      throw Unsupported(reason: "it holds the format specifier '\(token.text)', which only a format with arguments fills")
    case .end:
      throw Unsupported(reason: "it ends where an expression was expected")
    default:
      throw Unsupported(reason: "unexpected \(Self.describe(token)) at position \(token.position)")
    }
  }

  /// `.key.@operator.key…` after a variable.
  private mutating func parseKeyPath() throws -> MappingKeyPath {
    var steps: [MappingKeyPath.Step] = []
    while current.kind == .symbol(".") {
      _ = advance()
      let token = advance()
      switch token.kind {
      case .word(let key), .escapedWord(let key):
        steps.append(.key(key))
      case .atWord(let name):
        guard let collectionOperator = MappingCollectionOperator(name: name) else {
          throw Unsupported(
            reason: "@\(name) is not a Key-Value Coding collection operator ("
              + MappingCollectionOperator.allCases.map(\.rawValue).joined(separator: ", ") + ")")
        }
        steps.append(.collection(collectionOperator))
      default:
        throw Unsupported(reason: "expected a key after '.' at position \(token.position), found \(Self.describe(token))")
      }
    }
    return MappingKeyPath(steps: steps)
  }

  /// `FUNCTION(operand, "selector:", arguments…)`, after `FUNCTION`.
  private mutating func parseFunction() throws -> MappingExpression {
    try expect("(", "after FUNCTION")
    let operand = try parseExpression()
    try expect(",", "after FUNCTION's operand")
    let selectorToken = advance()
    guard case .string(let selector) = selectorToken.kind, !selector.isEmpty else {
      throw Unsupported(
        reason: "FUNCTION's second argument must be the selector as a quoted string, found \(Self.describe(selectorToken))")
    }
    var arguments: [MappingExpression] = []
    while current.kind == .symbol(",") {
      _ = advance()
      arguments.append(try parseExpression())
    }
    try expect(")", "to close FUNCTION(")
    return .function(operand: operand, selector: selector, arguments: arguments)
  }

  /// A number literal (`12`, `-2.5`, `1e3`, `0x1F`): an integer when it is one and fits, else a double.
  private static func number(_ digits: String, negative: Bool) throws -> MappingConstant {
    let sign: Int64 = negative ? -1 : 1
    let radixes: [String: Int] = ["0x": 16, "0X": 16, "0o": 8, "0O": 8, "0b": 2, "0B": 2]
    if let radix = radixes[String(digits.prefix(2))] {
      guard let value = Int64(digits.dropFirst(2), radix: radix) else {
        throw Unsupported(reason: "the number \(digits) does not fit in 64 bits")
      }
      return .integer(sign * value)
    }
    if let value = Int64(digits) { return .integer(sign * value) }
    guard let value = Double(digits) else { throw Unsupported(reason: "'\(digits)' is not a number") }
    return .double(negative ? -value : value)
  }
}
