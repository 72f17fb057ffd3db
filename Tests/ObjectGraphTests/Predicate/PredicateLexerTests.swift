import Foundation
import Testing

@testable import ObjectGraph

/// The lexer reads ASCII, nearly every format's alphabet, without asking Unicode's property tables: these
/// check that its answers for every ASCII character are the tables' own.
@Suite("The predicate lexer's ASCII answers are Unicode's")
struct PredicateLexerTests {
  private func tokens(_ format: String) throws -> [PredicateToken.Kind] {
    var lexer = PredicateLexer(format: format, scalars: Array(format.unicodeScalars))
    return try lexer.tokenize().map(\.kind)
  }

  /// Every printable ASCII character but the quotes and the specifier sign, which start tokens of their own.
  private static let printable = (0x21...0x7E).compactMap(Unicode.Scalar.init).filter { !"\"'%$#@".unicodeScalars.contains($0) }

  @Test("A character continues a name exactly when it is alphabetic, numeric, a diacritic or '_'")
  func nameContinuation() throws {
    for scalar in Self.printable {
      let continues =
        scalar == "_" || scalar.properties.isAlphabetic || scalar.properties.numericType != nil || scalar.properties.isDiacritic
      let first = try? tokens("a\(scalar)b == 1").first
      #expect((first == .word("a\(scalar)b")) == continues, "'\(scalar)': \(String(describing: first))")
    }
  }

  @Test("A character starts a name exactly when it is alphabetic or '_'")
  func nameStart() throws {
    for scalar in Self.printable {
      let starts = scalar == "_" || scalar.properties.isAlphabetic
      let first = try? tokens("\(scalar)x == 1").first
      #expect((first == .word("\(scalar)x")) == starts, "'\(scalar)': \(String(describing: first))")
    }
  }

  @Test("Whitespace and control characters separate tokens; other characters do not")
  func whitespace() throws {
    for value in 0...0x7F {
      guard let scalar = Unicode.Scalar(value), scalar != "\0" else { continue }
      let separates = scalar.properties.isWhitespace || value < 0x20
      let kinds = try? tokens("a\(scalar)b")
      #expect((kinds == [.word("a"), .word("b"), .end]) == separates, "U+\(String(value, radix: 16)): \(String(describing: kinds))")
    }
  }

  @Test("Digits in every radix, and names and text beyond ASCII, read as before")
  func numbersAndUnicode() throws {
    #expect(try tokens("0x1fA9 0o17 0b101 12.5e-3") == [.number("0x1fA9"), .number("0o17"), .number("0b101"), .number("12.5e-3"), .end])
    #expect(throws: ObjectGraphError.self) { try tokens("0x") }
    #expect(throws: ObjectGraphError.self) { try tokens("0b2") }
    #expect(try tokens("café == 'thé'") == [.word("café"), .symbol("=="), .string("thé"), .end])
    #expect(
      try tokens("größe2 >= %lld") == [
        .word("größe2"), .symbol(">="), .specifier(PredicateFormatSpecifier(conversion: .integer, position: nil)), .end,
      ])
  }
}
