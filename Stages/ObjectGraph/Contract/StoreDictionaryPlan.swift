import Foundation

/// What a context asks its store for in a dictionary fetch: the rows of a fetch plan, as columns.
struct StoreDictionaryPlan {
  /// The entity, predicate, order, limits and subentity rule.
  var rows: StoreFetchPlan
  /// The columns of each dictionary (never empty: the context fills in every property for `nil`).
  let columns: [FetchColumn]
  /// The columns rows are grouped by (empty: no grouping).
  let groupBy: [FetchColumn]
  /// Which groups are kept.
  let having: PredicateNode?
  /// Whether duplicate rows are dropped.
  let distinct: Bool
}
