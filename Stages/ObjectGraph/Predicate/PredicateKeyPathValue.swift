import Foundation

/// The value of a key path on one object: one value, or the values reached through a to-many.
enum PredicateKeyPathValue: Sendable {
  /// An attribute, a to-one (`.objectID` or `.null`), SELF, or `@count`.
  case single(PredicateValue)
  /// The values at the end of a path through a to-many (one per related object).
  case many([PredicateValue])
}
