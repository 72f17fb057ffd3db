import Foundation

/// One lexical token of a predicate format string.
struct PredicateToken {
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
