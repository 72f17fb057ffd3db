import Foundation

/// What a context asks its store for when it fetches.
struct StoreFetchPlan {
  let entity: EntityDescription
  let predicate: PredicateNode?
  let sortDescriptors: [FetchSortDescriptor]
  let fetchLimit: Int
  let fetchOffset: Int
  /// Only IDs and versions are needed (values are read later, in batches).
  let idsOnly: Bool
  var includesSubentities = true

  /// The same plan with some of its parts replaced.
  func with(
    predicate: PredicateNode?? = nil, fetchLimit: Int? = nil, fetchOffset: Int? = nil, idsOnly: Bool? = nil
  ) -> StoreFetchPlan {
    var plan = StoreFetchPlan(
      entity: entity, predicate: predicate ?? self.predicate, sortDescriptors: sortDescriptors,
      fetchLimit: fetchLimit ?? self.fetchLimit, fetchOffset: fetchOffset ?? self.fetchOffset, idsOnly: idsOnly ?? self.idsOnly)
    plan.includesSubentities = includesSubentities
    return plan
  }
}

/// One row read from a store: the object it belongs to and its values.
struct FetchedRow {
  /// Who the row is: an ID, or (from a store's fetch) its table and primary key, the ID not made yet.
  enum Identity {
    case id(ManagedObjectID)
    case row(RowSource, primaryKey: Int64)
  }

  let identity: Identity
  let snapshot: RowSnapshot

  init(id: ManagedObjectID, snapshot: RowSnapshot) {
    identity = .id(id)
    self.snapshot = snapshot
  }

  init(source: RowSource, primaryKey: Int64, snapshot: RowSnapshot) {
    identity = .row(source, primaryKey: primaryKey)
    self.snapshot = snapshot
  }

  /// The row's ID (made now when the row has none yet; equal to any other made for the same row).
  var id: ManagedObjectID {
    switch identity {
    case .id(let id): id
    case .row(let source, let primaryKey): source.makeID(primaryKey: primaryKey)
    }
  }

  var entity: EntityDescription {
    switch identity {
    case .id(let id): id.entity
    case .row(let source, _): source.entity
    }
  }
}
