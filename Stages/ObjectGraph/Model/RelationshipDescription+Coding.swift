import Foundation

/// A relationship's archive: its name, its destination entity and inverse relationship by name (never the
/// entities themselves: an unarchived relationship is resolved again when a model is made of its entity), and
/// every setting (to-many, ordered, counts, delete rule, optionality, transience, user info, version hash
/// modifier, renaming identifier, validation predicates).
extension NSRelationshipDescription {
  private enum Key {
    static let destination = "NSDestinationEntityName"
    static let inverse = "NSInverseRelationshipName"
    static let isToMany = "ObjectGraphIsToMany"
    static let isOrdered = "NSIsOrdered"
    static let minCount = "NSMinCount"
    static let maxCount = "NSMaxCount"
    static let deleteRule = "NSDeleteRule"
  }

  /// Archives the relationship (``NSPropertyDescription/encode(with:)`` calls this).
  func encodeRelationship(with coder: NSCoder) {
    let state = state.value
    encodeCommon(with: coder, state: state)
    coder.encodeText(destinationEntity?.name ?? state.destinationName, forKey: Key.destination)
    coder.encodeText(inverseRelationship?.name ?? state.inverseName, forKey: Key.inverse)
    coder.encode(state.isToMany, forKey: Key.isToMany)
    coder.encode(state.isOrdered, forKey: Key.isOrdered)
    coder.encode(Int64(state.minCount), forKey: Key.minCount)
    coder.encode(Int64(state.maxCount), forKey: Key.maxCount)
    coder.encode(Int64(state.deleteRule.rawValue), forKey: Key.deleteRule)
  }

  /// The relationship's state read back from `coder`; `nil` (after failing the decode) when the archive is not
  /// a relationship's.
  static func decodedState(from coder: NSCoder) -> State? {
    guard let common = decodeCommon(from: coder, what: "a relationship") else { return nil }
    let what = "relationship \(common.name)"
    guard let destination = coder.decodeText(forKey: Key.destination) else {
      coder.failDecoding(what, "it has no destination entity name (\(Key.destination))")
      return nil
    }
    guard let deleteRule = UInt(exactly: coder.decodeInt64(forKey: Key.deleteRule)).flatMap(NSDeleteRule.init(rawValue:))
    else {
      coder.failDecoding(what, "its delete rule (\(Key.deleteRule)) is not one of NSDeleteRule's")
      return nil
    }
    guard let minCount = Int(exactly: coder.decodeInt64(forKey: Key.minCount)),
      let maxCount = Int(exactly: coder.decodeInt64(forKey: Key.maxCount)), minCount >= 0, maxCount >= 0
    else {
      coder.failDecoding(what, "its counts are negative")
      return nil
    }
    var state = State(
      name: common.name, destinationName: destination, inverseName: coder.decodeText(forKey: Key.inverse),
      isToMany: coder.decodeBool(forKey: Key.isToMany), deleteRule: deleteRule, isOptional: common.isOptional)
    common.apply(to: &state)
    state.isOrdered = coder.decodeBool(forKey: Key.isOrdered)
    state.minCount = minCount
    state.maxCount = maxCount
    return state
  }
}
