import Foundation

/// The errors the SQL compiler and the in-memory evaluator both raise for one misuse, made in one place
/// so the two always say the same thing.
extension ObjectGraphError {
  /// A `$name` used with no subquery binding it and no substituted value.
  static func unboundVariable(_ name: String) -> ObjectGraphError {
    ObjectGraphError(
      .predicateSyntax,
      "The predicate uses $\(name), which has no value. Fill it in with withSubstitutionVariables([\"\(name)\": ...]) before fetching or evaluating."
    )
  }

  /// `+ - * /`, `@sum` or `@avg` (`operation`) meeting something that is not a number (`what`: `"\"one\" is
  /// not one"`, `"title is a String attribute"`).
  static func notANumber(_ operation: String, _ what: String) -> ObjectGraphError {
    ObjectGraphError(
      .invalidValue,
      "'\(operation)' works on numbers, and \(what). Use it with integer, double, float, decimal or boolean attributes and number values."
    )
  }

  /// A transformable attribute named where only its bytes could be compared: a sort, an expression.
  static func transformableInFetch(entity: String, key: String) -> ObjectGraphError {
    ObjectGraphError(
      .unsupportedFeature,
      "\(entity).\(key) is transformable: the store keeps its transformer's bytes, which a predicate can only compare with values (==, !=, <, <=, >, >=, IN, BETWEEN, as Core Data does); a fetch cannot sort on them or use them in an expression. Filter the fetched objects in memory, or store the part you query in an attribute of its own."
    )
  }

  /// A key path naming a composite attribute itself (or not ending at one of its elements) in a predicate or sort.
  static func compositeInPredicate(entity: String, keyPath: String) -> ObjectGraphError {
    ObjectGraphError(
      .unsupportedFeature,
      "\(entity).\(keyPath) is a composite attribute (or no element of one): a predicate or sort compares its elements, one at a time. Name an element, as in 'location.latitude'."
    )
  }
}

extension ObjectGraphError {
  /// `lowercase:` or `uppercase:` given something that is not a string.
  static func notAString(_ function: String, _ value: PredicateValue) -> ObjectGraphError {
    ObjectGraphError(
      .invalidValue,
      "\(function) takes a string, and \(value.predicateFormat) is not one. Give it a String attribute or value."
    )
  }
}

extension ObjectGraphError {
  /// `notes[FIRST]`, `notes[2]`: an unordered to-many's members by position (or a path through two
  /// to-manys, or through a collection operator), which have no order for the store and the in-memory check
  /// to share.
  static func indexOnRelationship(_ collection: PredicateExpression, _ index: PredicateIndex) -> ObjectGraphError {
    ObjectGraphError(
      .predicateSyntax,
      "\(collection.predicateFormat)[\(index.format)] picks a relationship's member by position, and its members have no order: an unordered to-many is a set (Core Data's answer would be any member), as are the values gathered through two to-manys or a collection operator. Pick by position in an ordered to-many only (mark it Ordered in the model); otherwise use \(collection.predicateFormat)[SIZE] or @count, ANY, or a SUBQUERY, or sort the fetch and take its first result."
    )
  }

  /// `title[FIRST]`: an index on one value.
  static func indexOnValue(_ collection: PredicateExpression, _ index: PredicateIndex) -> ObjectGraphError {
    ObjectGraphError(
      .predicateSyntax,
      "[\(index.format)] picks from a collection (an aggregate such as {1, 2}, an array argument or a to-many's [SIZE]), and \(collection.predicateFormat) is not one."
    )
  }
}

extension ObjectGraphError {
  /// `median:`, `mode:` or `stddev:` given one value (`what`: its format) where it reduces a collection.
  static func notACollection(_ function: PredicateFunction, _ what: String) -> ObjectGraphError {
    ObjectGraphError(
      .predicateSyntax,
      "\(function.rawValue) reduces a collection of numbers, and \(what) is one value. Give it a to-many's values (\(function.rawValue)(notes.rating)), an aggregate ({1, 2, 3}) or an array argument."
    )
  }

  /// A collection operator that gathers values (`@distinctUnionOfObjects`, …) or `mode:`, used where one
  /// value is needed (`what`: the expression's format).
  static func collectionWhereValueNeeded(_ what: String) -> ObjectGraphError {
    ObjectGraphError(
      .predicateSyntax,
      "\(what) is a collection, and one value is needed here. Compare its members with ANY, ALL, NONE or IN, count them with [SIZE], or reduce them with median:, stddev: (or @count, @sum, @avg, @min, @max on the to-many)."
    )
  }
}
