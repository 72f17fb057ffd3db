/// What the macro needs from the declaration it is attached to, read from the declaration's source text:
/// a stored-looking property (`public var title: String?`) or one of the relationship methods Xcode generates
/// (`public func addToTags(_ value: Tag)`).
///
/// The text is one declaration the compiler has already parsed, so a small tokenizer is enough: comments,
/// string literals and attribute arguments are skipped, and only the words and brackets at the top level count.
struct ManagedDeclaration {
  enum Kind: Equatable {
    case variable
    case constant
    case function
    case other
  }

  /// One token: a word (identifier, keyword, number) or a punctuation character, with its UTF-8 offset.
  struct Token: Equatable {
    let text: String
    let offset: Int
  }

  /// A function's parameter: its argument label (`_` for none) and its type's text.
  struct Parameter: Equatable {
    let label: String
    let name: String
    let type: String
  }

  private(set) var kind = Kind.other
  /// The declared name (without backticks), and where its keyword is.
  private(set) var name = ""
  private(set) var keywordOffset = 0
  /// `static`, `class` or `lazy` before the keyword, if any.
  private(set) var forbiddenModifier: Token?
  /// `= …` after a property's type.
  private(set) var initializer: Token?
  /// `{ … }` after a property's type, or a function's body.
  private(set) var body: Token?
  /// A property's type annotation, as written.
  private(set) var typeText = ""
  /// A function's parameters.
  private(set) var parameters: [Parameter] = []

  init(source: String) {
    let tokens = Self.tokens(of: source)
    var index = 0
    // Attributes (`@name` with optional arguments) and modifiers come first.
    while index < tokens.count {
      let token = tokens[index]
      if token.text == "@" {
        index += 2  // `@` and the attribute's name (possibly `Module.Name`, handled below)
        while index + 1 < tokens.count, tokens[index].text == "." { index += 2 }
        if index < tokens.count, tokens[index].text == "(" { index = Self.skipGroup(tokens, from: index) }
        continue
      }
      switch token.text {
      case "var": kind = .variable
      case "let": kind = .constant
      case "func": kind = .function
      case "static", "class", "lazy":
        forbiddenModifier = forbiddenModifier ?? token
        index += 1
        continue
      case "(":  // `private(set)` and the like
        index = Self.skipGroup(tokens, from: index)
        continue
      default:
        index += 1
        continue
      }
      keywordOffset = token.offset
      index += 1
      break
    }
    guard kind != .other, index < tokens.count else {
      kind = .other
      return
    }
    name = tokens[index].text.trimmingBackticks
    index += 1
    if kind == .function {
      readFunction(tokens, from: index)
    } else {
      readProperty(tokens, from: index)
    }
  }

  private mutating func readProperty(_ tokens: [Token], from start: Int) {
    var index = start
    guard index < tokens.count, tokens[index].text == ":" else { return }
    index += 1
    var depth = 0
    var type: [String] = []
    while index < tokens.count {
      let text = tokens[index].text
      if depth == 0, text == "=" {
        initializer = tokens[index]
        break
      }
      if depth == 0, text == "{" {
        body = tokens[index]
        break
      }
      if "([<".contains(text) { depth += 1 }
      if ")]>".contains(text) { depth -= 1 }
      type.append(text)
      index += 1
    }
    typeText = Self.joined(type)
  }

  private mutating func readFunction(_ tokens: [Token], from start: Int) {
    var index = start
    guard index < tokens.count, tokens[index].text == "(" else { return }
    let end = Self.skipGroup(tokens, from: index)
    index += 1
    var current: [String] = []
    var depth = 0
    func finish() {
      guard !current.isEmpty else { return }
      // `label name: Type` or `name: Type`.
      if let colon = current.firstIndex(of: ":") {
        let names = current[..<colon]
        let type = Self.joined(Array(current[(colon + 1)...]))
        if names.count >= 2 {
          parameters.append(Parameter(label: names[names.startIndex], name: names[names.startIndex + 1], type: type))
        } else if let only = names.first {
          parameters.append(Parameter(label: only, name: only, type: type))
        }
      }
      current = []
    }
    while index < end - 1 {
      let text = tokens[index].text
      if depth == 0, text == "," {
        finish()
      } else {
        if "([<".contains(text) { depth += 1 }
        if ")]>".contains(text) { depth -= 1 }
        current.append(text)
      }
      index += 1
    }
    finish()
    index = end
    while index < tokens.count {
      if tokens[index].text == "{" {
        body = tokens[index]
        break
      }
      index += 1
    }
  }

  /// The index just past the group that opens at `start` (`(`, `[` or `{`).
  private static func skipGroup(_ tokens: [Token], from start: Int) -> Int {
    var depth = 0
    var index = start
    while index < tokens.count {
      let text = tokens[index].text
      if "([{".contains(text) { depth += 1 }
      if ")]}".contains(text) {
        depth -= 1
        if depth == 0 { return index + 1 }
      }
      index += 1
    }
    return index
  }

  /// A type's tokens as text: words spaced, punctuation tight (`[String: Int]?`, `Set<Tag>`).
  private static func joined(_ parts: [String]) -> String {
    var text = ""
    for part in parts {
      let isWord = part.first.map { $0.isLetter || $0.isNumber || $0 == "_" || $0 == "`" } ?? false
      if isWord, let last = text.last, last.isLetter || last.isNumber || last == "_" || last == "`" || last == ":" || last == "," {
        text += " "
      }
      text += part
    }
    return text
  }

  /// The declaration's tokens, without comments, whitespace and string literals' contents.
  static func tokens(of source: String) -> [Token] {
    let bytes = Array(source.utf8)
    var tokens: [Token] = []
    var index = 0
    func isWordByte(_ byte: UInt8) -> Bool {
      (byte >= 0x30 && byte <= 0x39) || (byte >= 0x41 && byte <= 0x5A) || (byte >= 0x61 && byte <= 0x7A) || byte == 0x5F
        || byte >= 0x80
    }
    while index < bytes.count {
      let byte = bytes[index]
      switch byte {
      case 0x20, 0x09, 0x0A, 0x0D:
        index += 1
      case 0x2F where index + 1 < bytes.count && bytes[index + 1] == 0x2F:  // `//` to the end of the line
        while index < bytes.count, bytes[index] != 0x0A { index += 1 }
      case 0x2F where index + 1 < bytes.count && bytes[index + 1] == 0x2A:  // `/* … */`, nested
        var depth = 0
        repeat {
          if index + 1 < bytes.count, bytes[index] == 0x2F, bytes[index + 1] == 0x2A {
            depth += 1
            index += 2
          } else if index + 1 < bytes.count, bytes[index] == 0x2A, bytes[index + 1] == 0x2F {
            depth -= 1
            index += 2
          } else {
            index += 1
          }
        } while depth > 0 && index < bytes.count
      case 0x22:  // a string literal, skipped whole
        let start = index
        index += 1
        while index < bytes.count, bytes[index] != 0x22 {
          index += bytes[index] == 0x5C ? 2 : 1
        }
        index += 1
        tokens.append(Token(text: "\"\"", offset: start))
      case 0x60:  // `name`
        let start = index
        index += 1
        while index < bytes.count, bytes[index] != 0x60 { index += 1 }
        index += 1
        tokens.append(Token(text: String(decoding: bytes[start..<min(index, bytes.count)], as: UTF8.self), offset: start))
      default:
        if isWordByte(byte) {
          let start = index
          while index < bytes.count, isWordByte(bytes[index]) { index += 1 }
          tokens.append(Token(text: String(decoding: bytes[start..<index], as: UTF8.self), offset: start))
        } else {
          tokens.append(Token(text: String(UnicodeScalar(byte)), offset: index))
          index += 1
        }
      }
    }
    return tokens
  }
}

extension String {
  fileprivate var trimmingBackticks: String {
    hasPrefix("`") && hasSuffix("`") && count >= 2 ? String(dropFirst().dropLast()) : self
  }
}
