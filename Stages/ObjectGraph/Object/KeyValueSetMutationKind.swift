import Foundation

/// How a to-many relationship's set changes, for ``NSManagedObject/willChangeValue(forKey:withSetMutation:using:)``
/// and ``NSManagedObject/didChangeValue(forKey:withSetMutation:using:)`` (Foundation's
/// `NSKeyValueSetMutationKind`, with its raw values; Linux's Foundation, having no key-value observing, does not
/// declare it).
public enum NSKeyValueSetMutationKind: UInt, Sendable {
  /// The objects are added to the set (`NSKeyValueUnionSetMutation`).
  case union = 1
  /// The objects are removed from the set (`NSKeyValueMinusSetMutation`).
  case minus = 2
  /// The set keeps only the objects also in the given set (`NSKeyValueIntersectSetMutation`).
  case intersect = 3
  /// The set is replaced by the given set (`NSKeyValueSetSetMutation`).
  case set = 4
}
