import Foundation

/// Which member an index expression names: `array[FIRST]`, `array[LAST]`, `array[SIZE]` (how many there
/// are) or `array[2]` (counted from 0), as the predicate format's array expressions write them.
enum PredicateIndex: Sendable, Equatable {
  case first
  case last
  case size
  case position(Int64)

  /// `FIRST`, `LAST`, `SIZE` or the number, as the format writes it between the brackets.
  var format: String {
    switch self {
    case .first: "FIRST"
    case .last: "LAST"
    case .size: "SIZE"
    case .position(let position): String(position)
    }
  }

  /// The member of `members` this names, `nil` past either end; or their count for `SIZE`.
  func pick(_ members: [PredicateValue]) -> PredicateValue {
    switch self {
    case .size: return .integer(Int64(members.count))
    case .first: return members.first ?? .null
    case .last: return members.last ?? .null
    case .position(let position):
      return position >= 0 && position < members.count ? members[Int(position)] : .null
    }
  }
}

extension PredicateExpression {
  /// For a key path (from the object or a variable) that an index applies to, the same key path counted
  /// (`tags[SIZE]` is `tags.@count`); `nil` for other expressions.
  /// - Throws: ``ObjectGraphPredicateSyntaxError`` for `[FIRST]`, `[LAST]` or `[n]` on a key path: a
  ///   relationship's members have no order a fetch and the in-memory check would share.
  func indexedKeyPath(_ index: PredicateIndex) throws -> PredicateExpression? {
    let counted = PredicateCollectionOperator.count.rawValue
    switch self {
    case .keyPath(let path) where !path.isEmpty:
      guard index == .size else { throw ObjectGraphError.indexOnRelationship(self, index) }
      return .keyPath(path + [counted])
    case .variable(let name, let path) where !path.isEmpty:
      guard index == .size else { throw ObjectGraphError.indexOnRelationship(self, index) }
      return .variable(name, path: path + [counted])
    default:
      return nil
    }
  }
}
