import Foundation

/// A parsed predicate: the tree the format parser builds, which the SQL compiler and the in-memory
/// evaluator both walk.
indirect enum PredicateNode: Sendable, Equatable {
  /// `TRUEPREDICATE` / `FALSEPREDICATE`.
  case constant(Bool)
  case not(PredicateNode)
  case and([PredicateNode])
  case or([PredicateNode])
  case comparison(PredicateComparison)
  /// In place of a tree more than ``maximumDepth`` levels deep, which `NSPredicate`'s compound
  /// initialisers and operators (which cannot throw) do not build: compiling or evaluating it throws
  /// ``tooDeepError``.
  case tooDeep
}
