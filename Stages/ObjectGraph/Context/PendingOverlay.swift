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
/// Order on equal sort keys (and without sort descriptors): saved objects by primary key, then unsaved
/// ones in the order their temporary IDs were made, whichever context holds the change. SQLite orders its
/// rows the same way (`ORDER BY …, Z_PK`), so the order does not depend on where an object's change
/// waits or on how many rows were read: a limited fetch returns a prefix of the unlimited one. An object
/// a child still names by a temporary ID that an ancestor has since saved sorts by the row's primary key.
struct PendingOverlay {
  /// Objects changed or deleted here whose stored rows may be among the store's answer.
  let displaced: Set<ObjectIdentifier>
  /// Their IDs, as this context names them (for the count's `SELF IN`).
  let displacedIDs: [NSManagedObjectID]
  /// Objects changed or inserted here that match the predicate, in result order.
  let candidates: [NSManagedObject]
  private let candidateKeys: [Key]
  let descriptors: [FetchSortDescriptor]

  /// Where a row or an object goes: its sort values, then its ID's place.
  struct Key {
    let values: [PredicateValue]
    let id: IDOrder
  }

  /// An ID's place on equal sort values: saved rows by primary key, then unsaved objects by the order
  /// their temporary IDs were made.
  struct IDOrder: Comparable {
    let isTemporary: Bool
    let number: UInt64

    init(_ id: NSManagedObjectID) {
      switch id.key {
      case .permanent(_, _, let primaryKey):
        isTemporary = false
        number = UInt64(bitPattern: primaryKey)
      case .temporary(let number):
        isTemporary = true
        self.number = number
      }
    }

    static func < (lhs: IDOrder, rhs: IDOrder) -> Bool {
      lhs.isTemporary != rhs.isTemporary ? !lhs.isTemporary : lhs.number < rhs.number
    }
  }

  init(
    displaced: [NSManagedObject], candidates: [NSManagedObject], descriptors: [FetchSortDescriptor],
    key: (NSManagedObject) throws -> Key
  )
    throws
  {
    self.displaced = Set(displaced.map(ObjectIdentifier.init))
    displacedIDs = displaced.map(\.objectID)
    self.descriptors = descriptors
    let keyed = try candidates.map { ($0, try key($0)) }.sorted { Self.compare($0.1, $1.1, descriptors) < 0 }
    self.candidates = keyed.map(\.0)
    candidateKeys = keyed.map(\.1)
  }

  var isEmpty: Bool { displaced.isEmpty && candidates.isEmpty }
  /// The overlay, or `nil` when it changes nothing.
  var nonEmpty: PendingOverlay? { isEmpty ? nil : self }

  /// What to ask the store for: from the first row, enough rows that the displaced objects cannot push
  /// any result out of the window (all of them without a limit).
  func storePlan(for plan: StoreFetchPlan) -> StoreFetchPlan {
    let limit = plan.fetchLimit > 0 ? plan.fetchOffset + plan.fetchLimit + displaced.count : 0
    return plan.with(fetchLimit: limit, fetchOffset: 0)
  }

  /// The store's rows (displaced ones already removed, in the store's order) with the candidates merged
  /// in. `key` gives a row's place; it is called for about log(rows) rows per candidate only.
  func merge<Row>(_ rows: [Row], key: (Row) throws -> Key, row: (NSManagedObject) throws -> Row?) throws -> [Row] {
    guard !candidates.isEmpty else { return rows }
    var keys: [Int: Key] = [:]
    func keyOfRow(_ index: Int) throws -> Key {
      if let known = keys[index] { return known }
      let made = try key(rows[index])
      keys[index] = made
      return made
    }
    var result: [Row] = []
    result.reserveCapacity(rows.count + candidates.count)
    var start = 0
    for (candidate, candidateKey) in zip(candidates, candidateKeys) {
      // The first row that sorts after the candidate.
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

  /// The order of two places under the descriptors: negative, zero or positive.
  static func compare(_ lhs: Key, _ rhs: Key, _ descriptors: [FetchSortDescriptor]) -> Int {
    for (index, descriptor) in descriptors.enumerated() {
      let order = InMemorySort.compare(lhs.values[index], rhs.values[index], descriptor.comparison)
      if order != 0 { return descriptor.ascending ? order : -order }
    }
    return lhs.id < rhs.id ? -1 : (lhs.id == rhs.id ? 0 : 1)
  }
}

extension NSManagedObjectContext {
  /// This context's unsaved changes as a fetch or count with `plan` sees them. Call `propagateDeletes`
  /// first, so cascaded deletes count.
  func pendingOverlay(for plan: StoreFetchPlan, _ confined: Confined) throws -> PendingOverlay {
    let entity = plan.entity
    let includesSubentities = plan.includesSubentities
    let predicate = plan.predicate
    func isFetched(_ object: NSManagedObject) -> Bool {
      includesSubentities ? object.entity.isKind(of: entity) : object.entity === entity
    }
    func matches(_ object: NSManagedObject) throws -> Bool {
      guard let predicate else { return true }
      return try PredicateEvaluator.evaluate(predicate, on: object)
    }
    var displaced: [NSManagedObject] = []
    var candidates: [NSManagedObject] = []
    for object in confined.updated where isFetched(object) {
      displaced.append(object)
      if !object.state.isDeleted, try matches(object) { candidates.append(object) }
    }
    for object in confined.deleted where isFetched(object) { displaced.append(object) }
    for object in confined.inserted.inOrder where isFetched(object) && !object.state.isDeleted {
      if try matches(object) { candidates.append(object) }
    }
    if let affected = plan.affectedStores { candidates = candidates.filter { isIn(affected, $0) } }
    // Objects fetched from an ancestor and changed here may carry temporary IDs an ancestor has replaced.
    let below = idsBelow(candidates.lazy.filter { !$0.state.isInserted }.map(\.objectID))
    return try PendingOverlay(displaced: displaced, candidates: candidates, descriptors: plan.sortDescriptors) {
      object in
      PendingOverlay.Key(
        values: try plan.sortDescriptors.map { try InMemorySort.sortValue(object, $0.keyPath) },
        id: PendingOverlay.IDOrder(below[object.objectID] ?? object.objectID))
    }
  }

  /// Whether `object` is in one of `stores` (a fetch's `affectedStores`): a saved object in its own store, an
  /// unsaved insert in the one a save will put it in.
  private func isIn(_ stores: [ObjectIdentifier], _ object: NSManagedObject) -> Bool {
    guard let identity = persistentStoreCoordinator?.storeIdentity(of: object.objectID, entity: object.entity) else { return false }
    return stores.contains(identity)
  }

  /// For temporary IDs this context uses: the permanent IDs ancestors have since saved those objects
  /// under, which is how the store orders them. One request per ancestor, and none without temporary IDs.
  func idsBelow(_ ids: some Sequence<NSManagedObjectID>) -> [NSManagedObjectID: NSManagedObjectID] {
    var current: [NSManagedObjectID: NSManagedObjectID] = [:]
    for id in ids where id.isTemporaryID { current[id] = id }
    var ancestor = settings.withLock { $0.parent }
    while let context = ancestor, !current.isEmpty {
      context.performAndWait {
        guard !context.confined.aliases.isEmpty else { return }
        for (original, id) in current {
          if let replaced = context.confined.aliases[id] { current[original] = replaced }
        }
      }
      ancestor = context.settings.withLock { $0.parent }
    }
    return current.filter { $0.key != $0.value }
  }
}
