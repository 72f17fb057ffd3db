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
}
