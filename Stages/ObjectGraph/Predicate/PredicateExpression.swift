import Foundation

/// A side of a comparison.
indirect enum PredicateExpression: Sendable, Equatable {
  /// A key path from the evaluated object: `["category", "name"]`; `SELF` is the empty path `[]`;
  /// `tags.@count` is `["tags", "@count"]`.
  case keyPath([String])
  /// A literal or a substituted argument.
  case constant(PredicateValue)
  /// An aggregate literal, `{1, 2, 3}`, or an array argument.
  case aggregate([PredicateExpression])
  /// A variable: `$limit` (a substitution variable, given by ``NSPredicate/withSubstitutionVariables(_:)``)
  /// or, inside a `SUBQUERY`, its iteration variable with an optional key path from it (`$note.title` is
  /// `variable("note", path: ["title"])`).
  case variable(String, path: [String])
  /// Arithmetic on two numbers: `wordCount * 2`, `price - discount`.
  case arithmetic(PredicateArithmetic, PredicateExpression, PredicateExpression)
  /// `SUBQUERY(collection, $variable, predicate).@count`: how many members of a to-many match.
  case subqueryCount(PredicateSubquery)
  /// One of `NSExpression`'s predefined functions of other expressions: `sqrt:(wordCount)`, `now()`,
  /// `x ** y` (`raise:toPower:`).
  case function(PredicateFunction, [PredicateExpression])
  /// An array expression: `{1, 2, 3}[LAST]`, `tags[SIZE]` (a to-many's count, as `tags.@count`).
  case index(PredicateExpression, PredicateIndex)
}

extension PredicateExpression {
  /// `NSExpression`'s arithmetic and aggregate functions as the predicate tree holds them: `add:to:(a, b)` as
  /// `a + b`, `count:(notes)` as `notes.@count`, `sum:(notes.size)` as `notes.@sum.size`; `nil` for another
  /// name, or operands that do not fit (the caller says what was wrong).
  static func arithmeticOrCollection(_ name: String, _ operands: [PredicateExpression]) -> PredicateExpression? {
    if let arithmetic = PredicateArithmetic(functionName: name), operands.count == 2 {
      return .arithmetic(arithmetic, operands[0], operands[1])
    }
    if let collectionOperator = PredicateCollectionOperator(functionName: name), operands.count == 1,
      case .keyPath(let path) = operands[0], let reduced = collectionOperator.keyPath(applyingTo: path)
    {
      return .keyPath(reduced)
    }
    return nil
  }
}
