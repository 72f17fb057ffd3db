import Foundation

// The evaluator's collection-valued expressions: the gathering operators (`@distinctUnionOfObjects`, …), the
// functions of a collection (`median:`, `mode:`, `stddev:`), and a to-many's members by position.
extension PredicateEvaluator {
  /// `notes.@distinctUnionOfObjects.title` (the gathering operator at `position` of `path`): the values the
  /// path without the operator reaches, gathered by it (``PredicateArithmeticEvaluation/gather(_:by:)``);
  /// with `@count` last (`[SIZE]` of a union), how many there are.
  static func union(
    atKeyPath path: [String], operatorAt position: Int, _ collectionOperator: PredicateCollectionOperator,
    on object: some PredicateEvaluable
  ) throws -> PredicateKeyPathValue {
    let counted = path.last == PredicateCollectionOperator.count.rawValue && path.count > position + 2
    let end = counted ? path.count - 1 : path.count
    let reached = try object.predicateValue(atKeyPath: Array(path[..<position] + path[(position + 1)..<end]))
    let values: [PredicateValue]
    switch reached {
    case .many(let many): values = many
    case .single(.collection(let items)): values = items
    case .single(let value): values = [value]
    }
    let gathered = PredicateArithmeticEvaluation.gather(values, by: collectionOperator)
    return counted ? .single(.integer(Int64(gathered.count))) : .many(gathered)
  }

  /// `median:`, `mode:` or `stddev:` of `argument`'s value: `.many` for `mode:`.
  /// - Throws: ``ObjectGraphPredicateSyntaxError`` when the argument is one value, not a collection;
  ///   ``ObjectGraphInvalidValueError`` for a member that is not a number.
  static func collectionFunction(_ function: PredicateFunction, of value: PredicateKeyPathValue, _ argument: PredicateExpression)
    throws -> PredicateKeyPathValue
  {
    let collection: PredicateValue
    switch value {
    case .many(let members): collection = .collection(members)
    case .single(.collection(let members)): collection = .collection(members)
    // No value (a nil argument, or a to-many beyond a nil to-one) is no members.
    case .single(.null): collection = .null
    case .single: throw ObjectGraphError.notACollection(function, argument.predicateFormat)
    }
    let result = try PredicateFunctionEvaluation.apply(function, [collection])
    if case .collection(let members) = result { return .many(members) }
    // `mode:` of no members is no members, as the store's empty list of them.
    return function.givesCollection ? .many([]) : .single(result)
  }

  /// `steps[FIRST]`, `steps.title[LAST]`, `steps[2]` for a key path through one ordered to-many: the value of
  /// the member at that place in the relationship's order (`nil` past either end); `nil` (not handled here)
  /// for `[SIZE]` and for other expressions.
  static func orderedMember(
    _ collection: PredicateExpression, _ index: PredicateIndex, on object: some PredicateEvaluable, bindings: PredicateBindings
  ) throws -> PredicateKeyPathValue? {
    guard index != .size else { return nil }
    let ordered: Bool
    switch collection {
    case .keyPath(let path): ordered = object.predicateReachesOrderedToMany(atKeyPath: path)
    case .variable(let name, let path) where !path.isEmpty:
      ordered = try bound(name, bindings).predicateReachesOrderedToMany(atKeyPath: path)
    default: return nil
    }
    guard ordered else { return nil }
    switch try resolve(collection, on: object, bindings: bindings) {
    case .many(let members): return .single(index.pick(members))
    case .single(.collection(let members)): return .single(index.pick(members))
    case .single: return .single(.null)
    }
  }
}
