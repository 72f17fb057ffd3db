import Foundation

/// A row a context read from its own store, as the predicate evaluator and the in-memory sort see it: the
/// values the store ordered it by, without making an object for it. A context serving a child's fetch
/// places its own unsaved objects among such rows (``PendingOverlay/merge(_:key:row:)``).
///
/// Attributes and to-one IDs come from the row; a key path that goes further (`notebook.name`) continues
/// through the context's objects, and anything else (a to-many, `SELF`) asks the row's object itself.
struct StoredRowValues: PredicateEvaluable {
  let id: NSManagedObjectID
  let values: [StoredValue]
  let context: NSManagedObjectContext

  func predicateValue(atKeyPath path: [String]) throws -> PredicateKeyPathValue {
    var path = path
    if path.first == "SELF" { path.removeFirst() }
    let layout = id.entity.layout
    if let key = path.first, let index = layout.index(of: key), index < values.count {
      let rest = Array(path.dropFirst())
      switch layout.slots[index].kind {
      case .attribute where rest.isEmpty:
        return .single(NSManagedObject.predicateValue(values[index]))
      case .toOne:
        guard let related = values[index].objectID else {
          return .single(rest == ["@count"] ? .integer(0) : .null)
        }
        if rest.isEmpty { return .single(.objectID(related)) }
        return try context.object(with: related).predicateValue(atKeyPath: rest)
      default:
        break
      }
    }
    return try context.object(with: id).predicateValue(atKeyPath: path)
  }

  func predicateObjects(atKeyPath path: [String]) throws -> [any PredicateEvaluable] {
    try context.object(with: id).predicateObjects(atKeyPath: path)
  }
}
