import Foundation

/// The inputs on which Foundation's `XMLParser` on Linux crashes the process instead of reporting an error,
/// found before the parser sees them. Every `XMLParser` the engine runs (a model's `contents`,
/// `.xccurrentversion`, a mapping model's `xcmapping.xml`) asks ``problem(in:)`` first and refuses such a
/// document in its own words.
///
/// - A name (of an element or an attribute) that is not UTF-8: the parser force-unwraps a `String` made from
///   its bytes. (Found by `FuzzTests` with a flipped byte.) Nothing that is not UTF-8 gets through: Xcode
///   writes UTF-8.
/// - A processing instruction with nothing after its name, `<?xml?>` or `<?name?>`: the parser calls `strlen`
///   on the null pointer libxml2 hands over for the missing data. (Found by the libFuzzer target, `Fuzz/`.)
enum XMLParserGuard {
  /// Why a document must not reach `XMLParser`.
  enum Problem: Equatable {
    /// The byte at `offset` (on `line`, from 1) is not part of a UTF-8 character.
    case notUTF8(offset: Int, line: Int)
    /// A processing instruction with nothing after its name starts on `line`.
    case emptyProcessingInstruction(line: Int)

    /// The problem in words, to follow "it is not …" or a colon in a message.
    var reason: String {
      switch self {
      case .notUTF8(let offset, let line):
        "it is not UTF-8 text: byte \(offset) (line \(line)) is not part of a UTF-8 character"
      case .emptyProcessingInstruction(let line):
        "it is not well-formed XML: line \(line) holds a processing instruction with nothing after its name "
          + "(such as <?xml?>)"
      }
    }
  }

  /// What keeps `data` from `XMLParser`, or `nil` when the parser may read it.
  static func problem(in data: Data) -> Problem? {
    if let offset = firstInvalidUTF8Byte(in: data) {
      let line = data.prefix(offset).reduce(1) { $0 + ($1 == UInt8(ascii: "\n") ? 1 : 0) }
      return .notUTF8(offset: offset, line: line)
    }
    if let line = emptyProcessingInstructionLine(in: data) {
      return .emptyProcessingInstruction(line: line)
    }
    return nil
  }

  /// The line of the first processing instruction outside comments that has a name and no data
  /// (`<?name?>`), or `nil` when there is none.
  static func emptyProcessingInstructionLine(in data: Data) -> Int? {
    let bytes = [UInt8](data)
    // Compares in place: no array is made per byte.
    func starts(_ text: String, at position: Int) -> Bool {
      position <= bytes.count && bytes[position...].starts(with: text.utf8)
    }
    let endOfName: Set<UInt8> = [UInt8(ascii: "?"), UInt8(ascii: " "), UInt8(ascii: "\t"), UInt8(ascii: "\n"), UInt8(ascii: "\r")]
    var index = 0
    var line = 1
    while index < bytes.count {
      if bytes[index] == UInt8(ascii: "\n") {
        line += 1
      } else if bytes[index] == UInt8(ascii: "<") {
        if starts("<!--", at: index) {
          // Skip the comment, counting its lines.
          var end = index + 4
          while end < bytes.count && !starts("-->", at: end) {
            if bytes[end] == UInt8(ascii: "\n") { line += 1 }
            end += 1
          }
          index = end + 3
          continue
        }
        if starts("<?", at: index) {
          var end = index + 2
          while end < bytes.count, !endOfName.contains(bytes[end]) { end += 1 }
          if starts("?>", at: end) { return line }
        }
      }
      index += 1
    }
    return nil
  }

  /// The offset of the first byte of `data` that does not belong to a well-formed UTF-8 character, or
  /// `nil` when all of it is UTF-8.
  static func firstInvalidUTF8Byte(in data: Data) -> Int? {
    var iterator = data.makeIterator()
    var decoder = UTF8()
    var offset = 0
    var consumed = 0
    while true {
      switch decoder.decode(&iterator) {
      case .scalarValue(let scalar):
        offset += UTF8.width(scalar)
        consumed = offset
      case .emptyInput: return nil
      case .error: return consumed
      }
    }
  }
}
