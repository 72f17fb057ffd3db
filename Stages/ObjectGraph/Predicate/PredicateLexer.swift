import Foundation

// The predicate format language's lexer: it turns a format string into tokens (words, numbers, strings,
// operators, format specifiers) for `PredicateParser`.

/// Splits a format string into ``PredicateToken``s.
struct PredicateLexer {
  /// Reserved words (upper-cased). `#` makes any of them a plain key name.
  static var keywords: Set<String> { PredicateParser.reservedWords }

  /// Two-character symbols, matched before single ones.
  private static let twoCharacterSymbols: Set<String> = ["==", "!=", "<>", "<=", "=<", ">=", "=>", "&&", "||", "**"]
  /// Single-character symbols.
  private static let oneCharacterSymbols: Set<Unicode.Scalar> = [
    "=", "<", ">", "!", "(", ")", "{", "}", ",", ".", "[", "]", "-", "+", "*", "/", ":",
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
    Self.string(scalars[start..<end])
  }

  /// The text of some scalars of a format: from their bytes when they are ASCII (a short one is a small
  /// string, made without an allocation), else scalar by scalar.
  static func string(_ scalars: ArraySlice<Unicode.Scalar>) -> String {
    guard scalars.allSatisfy(\.isASCII) else {
      var view = String.UnicodeScalarView()
      view.append(contentsOf: scalars)
      return String(view)
    }
    return String(unsafeUninitializedCapacity: scalars.count) { bytes in
      for (offset, scalar) in scalars.enumerated() { bytes[offset] = UInt8(truncatingIfNeeded: scalar.value) }
      return scalars.count
    }
  }

  // The ASCII answers of the checks below are written out (Unicode's property tables are slow to ask for
  // every character): the letters are alphabetic, the digits numeric, and `^` and `` ` `` diacritics.

  private static func isNameStart(_ scalar: Unicode.Scalar) -> Bool {
    if scalar.isASCII { return isASCIILetter(scalar.value) || scalar == "_" }
    return scalar.properties.isAlphabetic
  }

  private static func isNameContinue(_ scalar: Unicode.Scalar) -> Bool {
    if scalar.isASCII {
      let value = scalar.value
      return isASCIILetter(value) || (48...57).contains(value) || scalar == "_" || scalar == "^" || scalar == "`"
    }
    return scalar.properties.isAlphabetic || scalar.properties.numericType != nil || scalar.properties.isDiacritic
  }

  private static func isASCIILetter(_ value: UInt32) -> Bool {
    (65...90).contains(value) || (97...122).contains(value)
  }

  private static func isWhitespace(_ scalar: Unicode.Scalar) -> Bool {
    scalar.isASCII ? scalar.value <= 32 : scalar.properties.isWhitespace
  }

  private static func isDigit(_ scalar: Unicode.Scalar?, radix: Int = 10) -> Bool {
    guard let scalar, scalar.isASCII else { return false }
    let value = scalar.value
    let digit: UInt32 =
      (48...57).contains(value) ? value - 48 : isASCIILetter(value) ? (value | 0x20) - 97 + 10 : UInt32.max
    return digit < radix
  }

  /// All tokens, ending with `.end`.
  mutating func tokenize() throws -> [PredicateToken] {
    var tokens: [PredicateToken] = []
    while true {
      while let scalar = scalar(at: index), Self.isWhitespace(scalar) || scalar.value < 0x20 {
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
