import Foundation

/// What a context asks its store for when it fetches.
struct StoreFetchPlan {
  let entity: NSEntityDescription
  let predicate: PredicateNode?
  let sortDescriptors: [FetchSortDescriptor]
  let fetchLimit: Int
  let fetchOffset: Int
  /// Only IDs and versions are needed (values are read later, in batches).
  let idsOnly: Bool
  var includesSubentities = true
  /// The identities of the stores to read (the request's `affectedStores`); `nil` for every store holding the entity.
  var affectedStores: [ObjectIdentifier]?
  /// The fetch request the plan was made from and the context fetching, for a store that answers requests
  /// itself (an `NSIncrementalStore` subclass); typed `AnyObject` because this layer sits below theirs.
  var request: AnyObject?
  var context: AnyObject?

  /// The same plan with some of its parts replaced.
  func with(
    predicate: PredicateNode?? = nil, fetchLimit: Int? = nil, fetchOffset: Int? = nil, idsOnly: Bool? = nil
  ) -> StoreFetchPlan {
    var plan = StoreFetchPlan(
      entity: entity, predicate: predicate ?? self.predicate, sortDescriptors: sortDescriptors,
      fetchLimit: fetchLimit ?? self.fetchLimit, fetchOffset: fetchOffset ?? self.fetchOffset, idsOnly: idsOnly ?? self.idsOnly)
    plan.includesSubentities = includesSubentities
    plan.affectedStores = affectedStores
    plan.request = request
    plan.context = context
    return plan
  }
}
