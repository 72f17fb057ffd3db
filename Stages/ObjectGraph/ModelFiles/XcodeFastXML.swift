import Foundation

/// Receives what ``XcodeFastXML`` reads, in the order Foundation's `XMLParser` would hand it to a delegate.
protocol XcodeFastXMLHandler {
  /// Whether character data is wanted (making its text costs time; a `contents` tree keeps none).
  static var wantsText: Bool { get }
  /// An element starts: `line` is the line its start tag's `>` is on, as `XMLParser.lineNumber` reads then.
  mutating func start(_ name: String, attributes: [String: String], line: Int)
  mutating func end(_ name: String)
  /// Character data (references replaced); one element's text may come in several pieces.
  mutating func characters(_ text: String)
}

/// A small reader for the XML Xcode writes (`contents` files and `.xccurrentversion`), for the launch path:
/// Foundation's `XMLParser` costs a fresh process most of a millisecond before it reads a byte (libxml2's set-up,
/// symbol binding, bridging), and loading a model is on every app's launch path.
///
/// It reads UTF-8 with elements, attributes quoted with `'` or `"`, self-closing tags, text, comments, the XML
/// declaration, a `<!DOCTYPE>` without an internal subset, CDATA sections, the five named entities and numeric
/// character references. On anything else (a processing instruction, a namespace, a carriage return, an entity
/// it does not know) and on any malformation it returns `false`, and the caller runs `XMLParser` as before,
/// whose errors it reports word for word. So it declines whatever it is not sure `XMLParser` reads without an
/// error, and what it accepts it hands over exactly as `XMLParser` does (`XcodeFastXMLTests` compares the two).
enum XcodeFastXML {
  /// Reads `data` into `handler`; `false` when the document has something this reader does not handle or is
  /// not well-formed (the handler may then hold part of the document).
  static func read<Handler: XcodeFastXMLHandler>(_ data: Data, into handler: inout Handler) -> Bool {
    data.withUnsafeBytes { bytes in
      guard acceptsCharacters(bytes) || acceptsNonASCII(data) else { return false }
      var reader = Reader(bytes: bytes)
      return reader.document(into: &handler)
    }
  }

  /// Whether every byte is a character XML allows, leaving non-ASCII text to ``acceptsNonASCII(_:)``: no
  /// control character but tab and newline (a carriage return, which XML turns into a newline, is left to
  /// `XMLParser`). `false` also when there is non-ASCII text, for the caller to check.
  private static func acceptsCharacters(_ bytes: UnsafeRawBufferPointer) -> Bool {
    for byte in bytes where byte < 0x20 || byte >= 0x80 {
      if byte != UInt8(ascii: "\n") && byte != UInt8(ascii: "\t") { return false }
    }
    return true
  }

  /// For text with non-ASCII bytes: whether it is UTF-8 without the noncharacters U+FFFE and U+FFFF and with no
  /// control character but tab and newline.
  private static func acceptsNonASCII(_ data: Data) -> Bool {
    guard XMLParserGuard.firstInvalidUTF8Byte(in: data) == nil else { return false }
    return String(decoding: data, as: UTF8.self).unicodeScalars.allSatisfy { scalar in
      switch scalar.value {
      case 0x9, 0xA: true
      case 0..<0x20, 0xFFFE, 0xFFFF: false
      default: true
      }
    }
  }

  private struct Reader {
    let bytes: UnsafeRawBufferPointer
    var index = 0
    var line = 1

    init(bytes: UnsafeRawBufferPointer) { self.bytes = bytes }

    /// The byte `offset` ahead, or 0 past the end (the text holds no 0 byte: ``acceptsCharacters(_:)``).
    func peek(_ offset: Int = 0) -> UInt8 {
      index + offset < bytes.count ? bytes[index + offset] : 0
    }

    func starts(with text: StaticString) -> Bool {
      let count = text.utf8CodeUnitCount
      guard index + count <= bytes.count else { return false }
      let start = text.utf8Start
      for offset in 0..<count where bytes[index + offset] != start[offset] { return false }
      return true
    }

    static func isSpace(_ byte: UInt8) -> Bool {
      byte == UInt8(ascii: " ") || byte == UInt8(ascii: "\n") || byte == UInt8(ascii: "\t")
    }

    /// Skips white space, counting lines; whether there was any.
    @discardableResult
    mutating func skipSpace() -> Bool {
      let start = index
      while index < bytes.count, Self.isSpace(bytes[index]) {
        if bytes[index] == UInt8(ascii: "\n") { line += 1 }
        index += 1
      }
      return index > start
    }

    static func isNameStart(_ byte: UInt8) -> Bool {
      (byte >= UInt8(ascii: "a") && byte <= UInt8(ascii: "z")) || (byte >= UInt8(ascii: "A") && byte <= UInt8(ascii: "Z"))
        || byte == UInt8(ascii: "_")
    }

    static func isName(_ byte: UInt8) -> Bool {
      isNameStart(byte) || (byte >= UInt8(ascii: "0") && byte <= UInt8(ascii: "9")) || byte == UInt8(ascii: "-")
        || byte == UInt8(ascii: ".")
    }

    /// An ASCII name without a namespace prefix; `nil` when there is none here.
    mutating func name() -> Range<Int>? {
      guard Self.isNameStart(peek()) else { return nil }
      let start = index
      index += 1
      while index < bytes.count, Self.isName(bytes[index]) { index += 1 }
      return start..<index
    }

    func string(_ range: Range<Int>) -> String {
      String(decoding: UnsafeRawBufferPointer(rebasing: bytes[range]), as: UTF8.self)
    }

    /// The whole document: prolog, root element, then only space and comments.
    mutating func document<Handler: XcodeFastXMLHandler>(into handler: inout Handler) -> Bool {
      if starts(with: "\u{FEFF}") { index += 3 }
      if starts(with: "<?xml"), Self.isSpace(peek(5)) {
        guard declaration() else { return false }
      }
      var sawDoctype = false
      while true {
        skipSpace()
        if starts(with: "<!--") {
          guard comment() else { return false }
        } else if starts(with: "<!DOCTYPE"), !sawDoctype {
          guard doctype() else { return false }
          sawDoctype = true
        } else if peek() == UInt8(ascii: "<"), Self.isNameStart(peek(1)) {
          break
        } else {
          return false
        }
      }
      guard content(into: &handler) else { return false }
      while true {
        skipSpace()
        if index == bytes.count { return true }
        guard starts(with: "<!--"), comment() else { return false }
      }
    }

    /// `<?xml version="1.0" encoding="UTF-8" standalone="yes"?>`, encoding and standalone optional.
    mutating func declaration() -> Bool {
      index += 5
      guard skipSpace(), pseudoAttribute("version", allowed: ["1.0"]) else { return false }
      for (key, allowed): (StaticString, [String]) in [("encoding", ["utf-8"]), ("standalone", ["yes", "no"])] {
        let mark = (index, line)
        if skipSpace(), starts(with: key) {
          guard pseudoAttribute(key, allowed: allowed) else { return false }
        } else {
          (index, line) = mark
        }
      }
      skipSpace()
      guard starts(with: "?>") else { return false }
      index += 2
      return true
    }

    /// `key="value"` in the XML declaration, with one of the `allowed` values (any case).
    mutating func pseudoAttribute(_ key: StaticString, allowed: [String]) -> Bool {
      guard starts(with: key) else { return false }
      index += key.utf8CodeUnitCount
      skipSpace()
      guard peek() == UInt8(ascii: "=") else { return false }
      index += 1
      skipSpace()
      guard let value = literal() else { return false }
      return allowed.contains(value.lowercased())
    }

    /// A quoted literal without `<` or `&` (for the declaration and the doctype).
    mutating func literal() -> String? {
      let quote = peek()
      guard quote == UInt8(ascii: "\"") || quote == UInt8(ascii: "'") else { return nil }
      index += 1
      let start = index
      while index < bytes.count, bytes[index] != quote {
        if bytes[index] == UInt8(ascii: "<") || bytes[index] == UInt8(ascii: "&") { return nil }
        if bytes[index] == UInt8(ascii: "\n") { line += 1 }
        index += 1
      }
      guard index < bytes.count else { return nil }
      index += 1
      return string(start..<index - 1)
    }

    /// `<!DOCTYPE name>`, `<!DOCTYPE name SYSTEM "…">` or `<!DOCTYPE name PUBLIC "…" "…">`.
    mutating func doctype() -> Bool {
      index += 9
      guard skipSpace(), name() != nil else { return false }
      let spaced = skipSpace()
      if spaced, starts(with: "SYSTEM") || starts(with: "PUBLIC") {
        let isPublic = starts(with: "PUBLIC")
        index += 6
        guard skipSpace() else { return false }
        if isPublic {
          guard let identifier = literal(), identifier.utf8.allSatisfy(Self.isPublicIdentifier), skipSpace() else {
            return false
          }
        }
        guard literal() != nil else { return false }
        skipSpace()
      }
      guard peek() == UInt8(ascii: ">") else { return false }
      index += 1
      return true
    }

    static func isPublicIdentifier(_ byte: UInt8) -> Bool {
      isName(byte) || byte == UInt8(ascii: " ") || byte == UInt8(ascii: "\n") || "'()+,/:=?;!*#@$%".utf8.contains(byte)
    }

    /// `<!-- … -->`, with no `--` inside.
    mutating func comment() -> Bool {
      index += 4
      while index < bytes.count {
        if bytes[index] == UInt8(ascii: "-"), peek(1) == UInt8(ascii: "-") {
          guard peek(2) == UInt8(ascii: ">") else { return false }
          index += 3
          return true
        }
        if bytes[index] == UInt8(ascii: "\n") { line += 1 }
        index += 1
      }
      return false
    }

    /// The root element and everything in it, without recursion.
    mutating func content<Handler: XcodeFastXMLHandler>(into handler: inout Handler) -> Bool {
      var open: [Range<Int>] = []
      var text: [UInt8] = []
      repeat {
        guard index < bytes.count else { return false }
        if bytes[index] != UInt8(ascii: "<") {
          guard characterData(into: &text) else { return false }
          if Handler.wantsText, !text.isEmpty { handler.characters(String(decoding: text, as: UTF8.self)) }
          text.removeAll(keepingCapacity: true)
        } else if peek(1) == UInt8(ascii: "/") {
          index += 2
          guard let name = name(), let start = open.popLast(),
            bytes[name].elementsEqual(bytes[start])
          else { return false }
          skipSpace()
          guard peek() == UInt8(ascii: ">") else { return false }
          index += 1
          handler.end(string(name))
        } else if starts(with: "<!--") {
          guard comment() else { return false }
        } else if starts(with: "<![CDATA[") {
          // XMLParser hands CDATA to a delegate method of its own, which the property list reader does not have.
          guard !Handler.wantsText, cdata() else { return false }
        } else {
          index += 1
          guard let name = name() else { return false }
          guard let isEmpty = startTag(name, into: &handler) else { return false }
          if isEmpty {
            handler.end(string(name))
          } else {
            open.append(name)
          }
        }
      } while !open.isEmpty
      return true
    }

    /// The rest of a start tag after its name, handed to `handler`: whether it was self-closing (`/>`), or `nil`
    /// when it is not well-formed or has something this reader does not handle.
    mutating func startTag<Handler: XcodeFastXMLHandler>(_ name: Range<Int>, into handler: inout Handler) -> Bool? {
      // Collected in order, then made a dictionary of the right size at once: growing one by one cost a third of
      // the reader's time (perf, stage 3's demo).
      var attributes: [(key: String, value: String)] = []
      var value: [UInt8] = []
      while true {
        let spaced = skipSpace()
        if peek() == UInt8(ascii: ">") {
          handler.start(string(name), attributes: Dictionary(uniqueKeysWithValues: attributes), line: line)
          index += 1
          return false
        }
        if peek() == UInt8(ascii: "/"), peek(1) == UInt8(ascii: ">") {
          handler.start(string(name), attributes: Dictionary(uniqueKeysWithValues: attributes), line: line)
          index += 2
          return true
        }
        guard spaced, let attribute = self.name() else { return nil }
        let key = string(attribute)
        guard !key.hasPrefix("xmlns"), !attributes.contains(where: { $0.key == key }) else { return nil }
        skipSpace()
        guard peek() == UInt8(ascii: "=") else { return nil }
        index += 1
        skipSpace()
        let quote = peek()
        guard quote == UInt8(ascii: "\"") || quote == UInt8(ascii: "'") else { return nil }
        index += 1
        let start = index
        var plain = true
        value.removeAll(keepingCapacity: true)
        while index < bytes.count, bytes[index] != quote {
          let byte = bytes[index]
          switch byte {
          case UInt8(ascii: "<"):
            return nil
          case UInt8(ascii: "&"):
            if plain { value.append(contentsOf: bytes[start..<index]) }
            plain = false
            guard reference(into: &value) else { return nil }
            continue
          case UInt8(ascii: "\n"), UInt8(ascii: "\t"):
            // Attribute-value normalisation: a literal tab or newline reads as a space.
            if byte == UInt8(ascii: "\n") { line += 1 }
            if plain { value.append(contentsOf: bytes[start..<index]) }
            plain = false
            value.append(UInt8(ascii: " "))
          default:
            if !plain { value.append(byte) }
          }
          index += 1
        }
        guard index < bytes.count else { return nil }
        attributes.append((key, plain ? string(start..<index) : String(decoding: value, as: UTF8.self)))
        index += 1
      }
    }

    /// Text up to the next `<`, references replaced, appended to `text` when the handler wants text.
    mutating func characterData(into text: inout [UInt8]) -> Bool {
      while index < bytes.count, bytes[index] != UInt8(ascii: "<") {
        let byte = bytes[index]
        if byte == UInt8(ascii: "&") {
          guard reference(into: &text) else { return false }
          continue
        }
        if byte == UInt8(ascii: "]"), starts(with: "]]>") { return false }
        if byte == UInt8(ascii: "\n") { line += 1 }
        text.append(byte)
        index += 1
      }
      return true
    }

    /// `<![CDATA[ … ]]>`. A `<?` inside is declined: `XMLTree.parse` refuses `<?name?>` anywhere outside
    /// comments, CDATA included, before XMLParser runs.
    mutating func cdata() -> Bool {
      index += 9
      while index < bytes.count {
        if starts(with: "]]>") {
          index += 3
          return true
        }
        if bytes[index] == UInt8(ascii: "<"), peek(1) == UInt8(ascii: "?") { return false }
        if bytes[index] == UInt8(ascii: "\n") { line += 1 }
        index += 1
      }
      return false
    }

    /// `&lt;`, `&gt;`, `&amp;`, `&apos;`, `&quot;`, `&#…;` or `&#x…;` at `index`: appends the character to
    /// `output` and moves past the `;`.
    mutating func reference(into output: inout [UInt8]) -> Bool {
      index += 1
      if peek() == UInt8(ascii: "#") {
        index += 1
        let isHex = peek() == UInt8(ascii: "x")
        if isHex { index += 1 }
        var value: UInt32 = 0
        var digits = 0
        while index < bytes.count, bytes[index] != UInt8(ascii: ";") {
          let byte = bytes[index]
          let digit: UInt8
          switch byte {
          case UInt8(ascii: "0")...UInt8(ascii: "9"): digit = byte - UInt8(ascii: "0")
          case UInt8(ascii: "a")...UInt8(ascii: "f") where isHex: digit = byte - UInt8(ascii: "a") + 10
          case UInt8(ascii: "A")...UInt8(ascii: "F") where isHex: digit = byte - UInt8(ascii: "A") + 10
          default: return false
          }
          value = value * (isHex ? 16 : 10) + UInt32(digit)
          digits += 1
          guard value <= 0x10FFFF else { return false }
          index += 1
        }
        guard digits > 0, peek() == UInt8(ascii: ";"), let scalar = Unicode.Scalar(value) else { return false }
        switch value {
        case 0x9, 0xA, 0xD, 0x20...0xD7FF, 0xE000...0xFFFD, 0x10000...0x10FFFF: break
        default: return false
        }
        index += 1
        UTF8.encode(scalar) { output.append($0) }
        return true
      }
      guard let name = name(), peek() == UInt8(ascii: ";") else { return false }
      index += 1
      let character: Character
      switch string(name) {
      case "lt": character = "<"
      case "gt": character = ">"
      case "amp": character = "&"
      case "apos": character = "'"
      case "quot": character = "\""
      default: return false
      }
      output.append(contentsOf: String(character).utf8)
      return true
    }
  }
}
