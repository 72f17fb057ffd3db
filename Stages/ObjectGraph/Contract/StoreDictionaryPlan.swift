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

/// One dictionary of a dictionary fetch: each column's name and value; a `nil` value is left out, as
/// Core Data leaves it out of its `NSDictionary`.
typealias StoreDictionaryRow = [(name: String, value: SlotValue)]
