import Foundation

extension PredicateNode {
  /// The same predicate with every object ID it names replaced by `transform(id)`.
  ///
  /// A child context keeps the temporary IDs of the objects it inserted after its parent has saved them
  /// under permanent ones (Core Data's rule). A fetch the child sends up to its parent names those objects
  /// by the child's IDs, so the parent translates them to its own before it asks the store, as it does
  /// for the IDs in a child's save.
  func mappingObjectIDs(_ transform: (NSManagedObjectID) -> NSManagedObjectID) -> PredicateNode {
    switch self {
    case .constant, .tooDeep: return self
    case .not(let node): return .not(node.mappingObjectIDs(transform))
    case .and(let nodes): return .and(nodes.map { $0.mappingObjectIDs(transform) })
    case .or(let nodes): return .or(nodes.map { $0.mappingObjectIDs(transform) })
    case .comparison(var comparison):
      comparison.lhs = comparison.lhs.mappingObjectIDs(transform)
      comparison.rhs = comparison.rhs.mappingObjectIDs(transform)
      return .comparison(comparison)
    }
  }
}

extension PredicateExpression {
  fileprivate func mappingObjectIDs(_ transform: (NSManagedObjectID) -> NSManagedObjectID) -> PredicateExpression {
    switch self {
    case .keyPath, .variable:
      return self
    case .constant(let value):
      return .constant(value.mappingObjectIDs(transform))
    case .aggregate(let items):
      return .aggregate(items.map { $0.mappingObjectIDs(transform) })
    case .arithmetic(let op, let lhs, let rhs):
      return .arithmetic(op, lhs.mappingObjectIDs(transform), rhs.mappingObjectIDs(transform))
    case .subqueryCount(var subquery):
      subquery.collection = subquery.collection.mappingObjectIDs(transform)
      subquery.predicate = subquery.predicate.mappingObjectIDs(transform)
      return .subqueryCount(subquery)
    case .function(let function, let arguments):
      return .function(function, arguments.map { $0.mappingObjectIDs(transform) })
    case .index(let collection, let index):
      return .index(collection.mappingObjectIDs(transform), index)
    }
  }
}

extension PredicateValue {
  fileprivate func mappingObjectIDs(_ transform: (NSManagedObjectID) -> NSManagedObjectID) -> PredicateValue {
    switch self {
    case .objectID(let id): .objectID(transform(id))
    case .collection(let items): .collection(items.map { $0.mappingObjectIDs(transform) })
    default: self
    }
  }
}
