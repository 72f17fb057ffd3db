import Foundation

/// How deep a predicate's tree is, and the one limit the engine puts on it.
///
/// Printing, compiling to SQL, evaluating and substituting all follow the tree, and SQLite's own parser
/// takes about a hundred levels of nesting. So the engine never builds a tree deeper than
/// ``maximumDepth``: the parser refuses a deeper format (a syntax error), `NSPredicate`'s compound
/// initialisers and operators, which cannot throw, keep ``tooDeep`` in place of the tree (fetching or
/// evaluating it throws ``tooDeepError``), and ``NSPredicate/withSubstitutionVariables(_:)`` throws.
///
/// Each node counts one level: a `NOT`, an `AND` or `OR` (however many predicates it joins), a
/// comparison, an arithmetic operator, an aggregate, a `SUBQUERY`, and a key path or value at the bottom.
/// So `rating == 1 + 1 + 1` is four levels deep although it has no parentheses, and `a == 1 OR b == 2 OR
/// …` with ten thousand terms is three.
extension PredicateNode {
  /// The deepest tree a predicate may have. SQLite parses the SQL of every tree this deep except subqueries
  /// nested about ten deep and `-` or `/` nested about thirty deep on their right side (see
  /// `SQLPredicateCompiler.compile(_:)`).
  static let maximumDepth = 64

  /// How many levels deep the tree is (see above; ``tooDeep`` counts one more than ``maximumDepth``).
  /// Measured without recursion, so a tree of any depth can be measured.
  var depth: Int { PredicateDepth.measure(.predicate(self)) }

  /// What fetching or evaluating ``tooDeep`` throws.
  static var tooDeepError: ObjectGraphError {
    ObjectGraphError(
      .predicateSyntax,
      "A predicate built in code with NOT, AND or OR is more than \(maximumDepth) levels deep, so it was not built: fetching or evaluating with it throws this error. Join many predicates in one compound (|| and && append to an existing OR or AND, as FetchPredicate(orPredicateWithSubpredicates:) does) instead of nesting them."
    )
  }
}

extension PredicateExpression {
  /// How many levels deep the expression is (see ``PredicateNode/depth``).
  var depth: Int { PredicateDepth.measure(.expression(self)) }
}

/// Measures a predicate's depth with a stack of its own instead of recursion.
enum PredicateDepth {
  /// A node of either kind of tree.
  enum Item {
    case predicate(PredicateNode)
    case expression(PredicateExpression)
  }

  /// The depth of the tree under `root`.
  static func measure(_ root: Item) -> Int {
    var deepest = 0
    var pending: [(item: Item, level: Int)] = [(root, 1)]
    while let (item, level) = pending.popLast() {
      switch item {
      case .predicate(.tooDeep):
        deepest = max(deepest, level + PredicateNode.maximumDepth)
      case .predicate(let node):
        deepest = max(deepest, level)
        for child in children(of: node) { pending.append((child, level + 1)) }
      case .expression(let expression):
        deepest = max(deepest, level)
        for child in children(of: expression) { pending.append((child, level + 1)) }
      }
    }
    return deepest
  }

  /// The nodes right under a predicate node.
  static func children(of node: PredicateNode) -> [Item] {
    switch node {
    case .constant, .tooDeep: []
    case .not(let operand): [.predicate(operand)]
    case .and(let operands), .or(let operands): operands.map { .predicate($0) }
    case .comparison(let comparison): [.expression(comparison.lhs), .expression(comparison.rhs)]
    }
  }

  /// The nodes right under an expression.
  static func children(of expression: PredicateExpression) -> [Item] {
    switch expression {
    case .keyPath, .constant, .variable: []
    case .aggregate(let items): items.map { .expression($0) }
    case .arithmetic(_, let lhs, let rhs): [.expression(lhs), .expression(rhs)]
    case .subqueryCount(let subquery): [.expression(subquery.collection), .predicate(subquery.predicate)]
    case .function(_, let arguments): arguments.map { .expression($0) }
    case .index(let collection, _): [.expression(collection)]
    }
  }
}
