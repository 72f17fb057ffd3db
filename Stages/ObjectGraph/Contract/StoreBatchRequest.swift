import Foundation

/// A batch update or delete as a context hands it to the store: which rows, and what to do with them.
struct StoreBatchRequest {
  enum Action {
    /// Set these attribute slots to these values.
    case update([Int: StoredValue])
    /// Delete the rows, applying the relationships' delete rules.
    case delete
  }

  let entity: NSEntityDescription
  /// Which rows: those a predicate matches (`nil`: all)...
  let predicate: PredicateNode?
  /// ... or exactly these.
  let ids: [NSManagedObjectID]?
  let includesSubentities: Bool
  let action: Action
  /// Whether the caller wants the IDs of the rows changed (or only how many).
  var needsIDs = true
  /// Who runs it, for persistent history.
  var author: String?
  var contextName: String?
  /// For an update: the attribute slots computed for each row from its values (a batch update's
  /// `NSExpression` values), beside the constant ones of ``Action/update(_:)``.
  var computed: [Int: PredicateExpression] = [:]
  /// The identities of the stores it goes to (the request's `affectedStores`); `nil` for every store holding the entity.
  var affectedStores: [ObjectIdentifier]?
}
