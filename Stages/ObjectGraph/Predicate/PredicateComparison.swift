import Foundation

/// One comparison: `lhs op rhs`, maybe under `ANY`/`ALL`/`NONE`, with string options.
struct PredicateComparison: Sendable, Equatable {
  enum Operator: String, Sendable, Equatable {
    case equal = "=="
    case notEqual = "!="
    case less = "<"
    case lessOrEqual = "<="
    case greater = ">"
    case greaterOrEqual = ">="
    case between = "BETWEEN"
    case `in` = "IN"
    case contains = "CONTAINS"
    case beginsWith = "BEGINSWITH"
    case endsWith = "ENDSWITH"
    case like = "LIKE"
    case matches = "MATCHES"
  }

  enum Modifier: Sendable, Equatable {
    /// A plain comparison.
    case direct
    /// `ANY keypath op value`: true when some member of the to-many matches.
    case any
    /// `ALL keypath op value`: true when every member matches (and vacuously for an empty set).
    case all
    /// `NONE keypath op value`: true when no member matches.
    case none
  }

  struct Options: OptionSet, Sendable, Equatable {
    let rawValue: Int
    /// `[c]`
    static let caseInsensitive = Options(rawValue: 1)
    /// `[d]`
    static let diacriticInsensitive = Options(rawValue: 2)
    /// `[l]`: locale-sensitive. Strings are compared in Unicode's canonical composed form (so "é" typed as one
    /// character equals "e" and a combining accent), and ordered (`<`, `>=`, …) by the current locale's rules,
    /// as Foundation's `compare(_:options:range:locale:)` orders them.
    static let localized = Options(rawValue: 8)
  }

  var modifier: Modifier = .direct
  var lhs: PredicateExpression
  var op: Operator
  var rhs: PredicateExpression
  var options: Options = []
}
