import Foundation

/// An arithmetic operator inside a predicate.
///
/// Integers stay integers under `+ - *` (turning into doubles when the result would overflow, as SQLite
/// does); `/` always divides as doubles (as `NSExpression` does in memory), and dividing by zero gives
/// `nil`, as SQLite does.
enum PredicateArithmetic: String, Sendable, Equatable {
  case add = "+"
  case subtract = "-"
  case multiply = "*"
  case divide = "/"

  /// The operator `NSExpression`'s function `name` computes (`add:to:`, `from:subtract:`, `multiply:by:`,
  /// `divide:by:`), if it is one of the four.
  init?(functionName name: String) {
    switch name {
    case "add:to:": self = .add
    case "from:subtract:": self = .subtract
    case "multiply:by:": self = .multiply
    case "divide:by:": self = .divide
    default: return nil
    }
  }
}
