import Foundation

/// A context's unsaved changes to the objects one fetch or count asks for, laid over what its store (the
/// coordinator, or a parent context) answers: Core Data's `includesPendingChanges`.
///
/// The store is asked with the request's predicate, sort and limit, so SQLite does the work; the overlay
/// then removes the rows of objects changed or deleted here (the *displaced* objects) and merges in the
/// objects changed or inserted here that match the predicate now (the *candidates*). With a limit, the
/// store is asked for `offset + limit + displaced` rows from the start: each displaced object removes at
/// most one of them, so at least `offset + limit` remain, and every row after them comes after all of
/// them in the result too. A count is the store's count, minus the displaced objects the store counts
/// (one more `COUNT` with `SELF IN`), plus the candidates.
///
/// Order on equal sort keys (and without sort descriptors): the store's rows first, in the store's order
/// (primary key, then the parent's own candidates), then this context's candidates, saved objects by
/// primary key and then new ones in the order they were made. The rule does not depend on how many rows
/// were read, so a limited fetch returns a prefix of the unlimited one.
struct PendingOverlay {
  /// Objects changed or deleted here whose stored rows may be among the store's answer.
  let displaced: Set<ObjectIdentifier>
  /// Their IDs, as this context names them (for the count's `SELF IN`).
  let displacedIDs: [ManagedObjectID]
  /// Objects changed or inserted here that match the predicate, in the order they join the results.
  let candidates: [ManagedObject]
  private let candidateKeys: [[PredicateValue]]
  let descriptors: [FetchSortDescriptor]

  init(
    displaced: [ManagedObject], candidates: [ManagedObject], descriptors: [FetchSortDescriptor]
  ) throws {
    self.displaced = Set(displaced.map(ObjectIdentifier.init))
    displacedIDs = displaced.map(\.objectID)
    self.descriptors = descriptors
    // Saved objects by primary key, then new ones in the order they were made; then, stably, by the sort.
    let byID = candidates.sorted { Self.idOrder($0.objectID, $1.objectID) }
    let keyed = try byID.map { object in
      (object, try descriptors.map { try InMemorySort.sortValue(object, $0.keyPath) })
    }
    let sorted = keyed.enumerated().sorted { lhs, rhs in
      let order = Self.compare(lhs.element.1, rhs.element.1, descriptors)
      return order != 0 ? order < 0 : lhs.offset < rhs.offset
    }
    self.candidates = sorted.map(\.element.0)
    candidateKeys = sorted.map(\.element.1)
  }

  var isEmpty: Bool { displaced.isEmpty && candidates.isEmpty }

  /// What to ask the store for: from the first row, enough rows that the displaced objects cannot push
  /// any result out of the window (all of them without a limit). `needsValues`: rows must carry their
  /// values even for an IDs-only plan, because candidates are placed among them by their sort keys.
  func storePlan(for plan: StoreFetchPlan, keepsIDsOnly: Bool) -> StoreFetchPlan {
    let limit = plan.fetchLimit > 0 ? plan.fetchOffset + plan.fetchLimit + displaced.count : 0
    let idsOnly = plan.idsOnly && (keepsIDsOnly || descriptors.isEmpty || candidates.isEmpty)
    return plan.with(fetchLimit: limit, fetchOffset: 0, idsOnly: idsOnly)
  }

  /// The store's rows (displaced ones already removed, in the store's order) with the candidates merged
  /// in. `key` gives a row's sort values; it is called for about log(rows) rows per candidate only.
  func merge<Row>(_ rows: [Row], key: (Row) throws -> [PredicateValue], row: (ManagedObject) throws -> Row?) throws -> [Row] {
    guard !candidates.isEmpty else { return rows }
    guard !descriptors.isEmpty else { return rows + (try candidates.compactMap(row)) }
    var keys: [Int: [PredicateValue]] = [:]
    func keyOfRow(_ index: Int) throws -> [PredicateValue] {
      if let known = keys[index] { return known }
      let made = try key(rows[index])
      keys[index] = made
      return made
    }
    var result: [Row] = []
    result.reserveCapacity(rows.count + candidates.count)
    var start = 0
    for (candidate, candidateKey) in zip(candidates, candidateKeys) {
      // The first row that sorts strictly after the candidate (on equal keys, rows come first).
      var low = start
      var high = rows.count
      while low < high {
        let middle = (low + high) / 2
        if Self.compare(candidateKey, try keyOfRow(middle), descriptors) < 0 { high = middle } else { low = middle + 1 }
      }
      result += rows[start..<low]
      start = low
      if let made = try row(candidate) { result.append(made) }
    }
    result += rows[start...]
    return result
  }

  /// The number of objects a plan matches with these changes laid over the store's answer.
  func count(in store: any ObjectStore, plan: StoreFetchPlan) throws -> Int {
    let unbounded = plan.with(fetchLimit: 0, fetchOffset: 0, idsOnly: true)
    var total = try store.count(unbounded)
    // SQLite takes a bounded number of parameters: the displaced IDs go in chunks.
    for start in stride(from: 0, to: displacedIDs.count, by: 500) {
      let chunk = displacedIDs[start..<min(start + 500, displacedIDs.count)]
      let among = PredicateNode.comparison(
        PredicateComparison(lhs: .keyPath([]), op: .in, rhs: .constant(.collection(chunk.map { .objectID($0) }))))
      let predicate = plan.predicate.map { PredicateNode.and([$0, among]) } ?? among
      total -= try store.count(unbounded.with(predicate: predicate))
    }
    total += candidates.count
    let afterOffset = max(0, total - plan.fetchOffset)
    return plan.fetchLimit > 0 ? min(afterOffset, plan.fetchLimit) : afterOffset
  }

  /// `rows` cut to a fetch's offset and limit.
  static func window<Row>(_ rows: [Row], offset: Int, limit: Int) -> [Row] {
    let tail = rows.dropFirst(offset)
    return Array(limit > 0 ? tail.prefix(limit) : tail)
  }

  /// Lexicographic order of two lists of sort values under the descriptors: negative, zero or positive.
  static func compare(_ lhs: [PredicateValue], _ rhs: [PredicateValue], _ descriptors: [FetchSortDescriptor]) -> Int {
    for (index, descriptor) in descriptors.enumerated() {
      let order = InMemorySort.compare(lhs[index], rhs[index])
      if order != 0 { return descriptor.ascending ? order : -order }
    }
    return 0
  }

  /// Saved objects by primary key, then new ones in the order their IDs were made.
  private static func idOrder(_ lhs: ManagedObjectID, _ rhs: ManagedObjectID) -> Bool {
    switch (lhs.key, rhs.key) {
    case (.permanent(_, _, let a), .permanent(_, _, let b)): a < b
    case (.permanent, .temporary): true
    case (.temporary, .permanent): false
    case (.temporary(let a), .temporary(let b)): a < b
    }
  }
}

extension ManagedObjectContext {
  /// This context's unsaved changes as a fetch or count with `plan` sees them. Call `propagateDeletes`
  /// first, so cascaded deletes count.
  func pendingOverlay(for plan: StoreFetchPlan, _ confined: Confined) throws -> PendingOverlay {
    let entity = plan.entity
    let includesSubentities = plan.includesSubentities
    let predicate = plan.predicate
    func isFetched(_ object: ManagedObject) -> Bool {
      includesSubentities ? object.entity.isKind(of: entity) : object.entity === entity
    }
    func matches(_ object: ManagedObject) throws -> Bool {
      guard let predicate else { return true }
      return try PredicateEvaluator.evaluate(predicate, on: object)
    }
    var displaced: [ManagedObject] = []
    var candidates: [ManagedObject] = []
    for object in confined.updated where isFetched(object) {
      displaced.append(object)
      if !object.state.isDeleted, try matches(object) { candidates.append(object) }
    }
    for object in confined.deleted where isFetched(object) { displaced.append(object) }
    for object in confined.inserted.inOrder where isFetched(object) && !object.state.isDeleted {
      if try matches(object) { candidates.append(object) }
    }
    return try PendingOverlay(displaced: displaced, candidates: candidates, descriptors: plan.sortDescriptors)
  }
}
