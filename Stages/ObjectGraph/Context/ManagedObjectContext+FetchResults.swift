import Foundation

/// The result types of a fetch other than managed objects: IDs and dictionaries (a count is
/// ``ManagedObjectContext/count(for:)``'s).
extension ManagedObjectContext {
  /// The IDs of the objects a request matches.
  ///
  /// With no unsaved change touching the entity, only IDs are read and no object is made. Otherwise the
  /// objects are fetched (as faults without values) so that the changes count as they would for objects:
  /// inserted objects that match give their (temporary) IDs, deleted ones are left out.
  func fetchObjectIDs<Result>(_ request: FetchRequest<Result>, _ confined: Confined) throws -> [ManagedObjectID] {
    let entity = try entity(named: request.entityName)
    let store = try readableStore()
    propagateDeletes(confined)
    if (request.includesPendingChanges && hasPendingChanges(for: entity, confined)) || store.spansSeveralStores {
      let plain = FetchRequest<ManagedObject>(entityName: request.entityName)
      plain.predicate = request.predicate
      plain.sortDescriptors = request.sortDescriptors
      plain.fetchLimit = request.fetchLimit
      plain.fetchOffset = request.fetchOffset
      plain.includesSubentities = request.includesSubentities
      plain.includesPendingChanges = request.includesPendingChanges
      plain.includesPropertyValues = false
      return try fetchObjects(plain, confined).map(\.objectID)
    }
    var ids: [ManagedObjectID] = []
    try store.fetch(plan(for: request, entity: entity, unbounded: false).with(idsOnly: true)) { ids.append($0.id) }
    return ids
  }

  /// The dictionaries of a dictionary fetch, read from the persistent store as it is.
  func fetchDictionaries<Result>(_ request: FetchRequest<Result>) throws -> [[String: Any]] {
    let entity = try entity(named: request.entityName)
    let store = try readableStore()
    let rows = plan(for: request, entity: entity, unbounded: false)
    let columns =
      request.propertiesToFetch?.map(\.fetchColumn)
      ?? entity.layout.slots.filter { !$0.isTransient && ($0.attribute != nil || ($0.isRelationship && !$0.isToMany)) }.map {
        FetchColumn(kind: .keyPath($0.name))
      }
    guard !columns.isEmpty else {
      throw ObjectGraphError(.invalidValue, "A dictionary fetch of \(entity.name) has no properties to fetch.")
    }
    let plan = StoreDictionaryPlan(
      rows: rows, columns: columns, groupBy: request.propertiesToGroupBy?.map(\.fetchColumn) ?? [],
      having: request.havingPredicate?.resolvedNode, distinct: request.returnsDistinctResults)
    return try store.fetchDictionaries(plan).map { row in
      var dictionary: [String: Any] = [:]
      for (name, value) in row {
        // Numbers as NSNumber, as Core Data's dictionaries hold them; a nil value leaves its key out.
        dictionary[name] = if case .objectID(let id) = value { id } else { value.boxedValue }
      }
      return dictionary
    }
  }

  /// `values` as the request's `Result`s.
  /// - Throws: ``ObjectGraphError/Code/invalidValue`` when `Result` does not fit the result type.
  func results<Value, Result>(_ values: [Value], of request: FetchRequest<Result>) throws -> [Result] {
    if let results = values as? [Result] { return results }
    let what =
      switch request.resultType {
      case .managedObjectResultType: "managed objects"
      case .managedObjectIDResultType: "ManagedObjectIDs"
      case .dictionaryResultType: "dictionaries (NSDictionary or [String: Any])"
      case .countResultType: "one NSNumber"
      }
    throw resultTypeMismatch(request, returns: what)
  }

  func resultTypeMismatch<Result>(_ request: FetchRequest<Result>, returns what: String) -> ObjectGraphError {
    ObjectGraphError(
      .invalidValue,
      "FetchRequest<\(Result.self)> for \(request.entityName) has resultType .\(request.resultType), which returns \(what), not \(Result.self)s. Declare the request with the type its result type returns (FetchRequest<ManagedObjectID> for IDs, FetchRequest<NSDictionary> for dictionaries, FetchRequest<NSNumber> for a count), or leave resultType as the request's type sets it."
    )
  }
}
