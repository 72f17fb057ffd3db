import Foundation

/// Substitution variables (`$limit`) and the iteration variables of subqueries (`$note` in
/// `SUBQUERY(notes, $note, …)`), which look alike: a variable is free unless a subquery around it binds it.
extension PredicateNode {
  /// The names of the variables no subquery binds.
  var freeVariables: Set<String> { variables(bound: []) }

  func variables(bound: Set<String>) -> Set<String> {
    switch self {
    case .constant, .tooDeep: return []
    case .not(let node): return node.variables(bound: bound)
    case .and(let nodes), .or(let nodes): return nodes.reduce(into: []) { $0.formUnion($1.variables(bound: bound)) }
    case .comparison(let comparison):
      return comparison.lhs.variables(bound: bound).union(comparison.rhs.variables(bound: bound))
    }
  }

  /// The key paths that follow free variables (`$FETCH_SOURCE.author.name` gives `["FETCH_SOURCE", "author",
  /// "name"]`), for a caller that answers them itself (see ``substituting(_:bound:)``).
  func variableKeyPaths(bound: Set<String> = []) -> Set<[String]> {
    switch self {
    case .constant, .tooDeep: return []
    case .not(let node): return node.variableKeyPaths(bound: bound)
    case .and(let nodes), .or(let nodes): return nodes.reduce(into: []) { $0.formUnion($1.variableKeyPaths(bound: bound)) }
    case .comparison(let comparison):
      return comparison.lhs.variableKeyPaths(bound: bound).union(comparison.rhs.variableKeyPaths(bound: bound))
    }
  }

  /// The predicate with each free variable replaced by its value (a collection becomes an aggregate, as
  /// an array argument does).
  /// - Throws: ``ObjectGraphPredicateSyntaxError`` for a substitution variable followed by a key
  ///   path (`$notebook.name`): a value has no keys.
  func substituting(_ values: [String: PredicateValue], bound: Set<String> = []) throws -> PredicateNode {
    switch self {
    case .constant, .tooDeep: return self
    case .not(let node): return .not(try node.substituting(values, bound: bound))
    case .and(let nodes): return .and(try nodes.map { try $0.substituting(values, bound: bound) })
    case .or(let nodes): return .or(try nodes.map { try $0.substituting(values, bound: bound) })
    case .comparison(var comparison):
      comparison.lhs = try comparison.lhs.substituting(values, bound: bound)
      comparison.rhs = try comparison.rhs.substituting(values, bound: bound)
      return .comparison(comparison)
    }
  }
}

extension PredicateExpression {
  fileprivate func variables(bound: Set<String>) -> Set<String> {
    switch self {
    case .keyPath, .constant: return []
    case .variable(let name, _): return bound.contains(name) ? [] : [name]
    case .aggregate(let items): return items.reduce(into: []) { $0.formUnion($1.variables(bound: bound)) }
    case .arithmetic(_, let lhs, let rhs): return lhs.variables(bound: bound).union(rhs.variables(bound: bound))
    case .subqueryCount(let subquery):
      return subquery.collection.variables(bound: bound)
        .union(subquery.predicate.variables(bound: bound.union([subquery.variable])))
    case .function(_, let arguments): return arguments.reduce(into: []) { $0.formUnion($1.variables(bound: bound)) }
    case .index(let collection, _): return collection.variables(bound: bound)
    }
  }

  fileprivate func variableKeyPaths(bound: Set<String>) -> Set<[String]> {
    switch self {
    case .keyPath, .constant: return []
    case .variable(let name, let path): return bound.contains(name) || path.isEmpty ? [] : [[name] + path]
    case .aggregate(let items): return items.reduce(into: []) { $0.formUnion($1.variableKeyPaths(bound: bound)) }
    case .arithmetic(_, let lhs, let rhs): return lhs.variableKeyPaths(bound: bound).union(rhs.variableKeyPaths(bound: bound))
    case .subqueryCount(let subquery):
      return subquery.collection.variableKeyPaths(bound: bound)
        .union(subquery.predicate.variableKeyPaths(bound: bound.union([subquery.variable])))
    case .function(_, let arguments): return arguments.reduce(into: []) { $0.formUnion($1.variableKeyPaths(bound: bound)) }
    case .index(let collection, _): return collection.variableKeyPaths(bound: bound)
    }
  }

  fileprivate func substituting(_ values: [String: PredicateValue], bound: Set<String>) throws -> PredicateExpression {
    switch self {
    case .keyPath, .constant:
      return self
    case .variable(let name, let path):
      guard !bound.contains(name), let value = values[name] else { return self }
      guard path.isEmpty else {
        // A value given for the whole key path (`"FETCH_SOURCE.name"`: a fetched property's source object
        // answers its key paths before the fetch).
        if let value = values[([name] + path).joined(separator: ".")] { return Self.expression(for: value) }
        throw ObjectGraphError(
          .predicateSyntax,
          "$\(name).\(path.joined(separator: ".")) follows a key path from a substitution variable; a variable stands for a value, so compare the value itself (or name the key path on the object)."
        )
      }
      return Self.expression(for: value)
    case .aggregate(let items):
      return .aggregate(try items.map { try $0.substituting(values, bound: bound) })
    case .arithmetic(let op, let lhs, let rhs):
      return .arithmetic(op, try lhs.substituting(values, bound: bound), try rhs.substituting(values, bound: bound))
    case .subqueryCount(var subquery):
      subquery.collection = try subquery.collection.substituting(values, bound: bound)
      subquery.predicate = try subquery.predicate.substituting(values, bound: bound.union([subquery.variable]))
      return .subqueryCount(subquery)
    case .function(let function, let arguments):
      return .function(function, try arguments.map { try $0.substituting(values, bound: bound) })
    case .index(let collection, let index):
      return .index(try collection.substituting(values, bound: bound), index)
    }
  }

  /// A substituted value as an expression: collections become aggregates of constants.
  static func expression(for value: PredicateValue) -> PredicateExpression {
    if case .collection(let items) = value {
      return .aggregate(items.map { expression(for: $0) })
    }
    return .constant(value)
  }
}
