import Foundation
internal import Synchronization

/// The coordinator as the store of root contexts: every request a context makes (fetch, count, row
/// snapshots, related IDs, permanent IDs, save) runs here, one at a time, against the store(s) that hold
/// the entity. A context sees the same ``ObjectStore`` whether its store is this coordinator or a parent
/// context.
extension NSPersistentStoreCoordinator: ObjectStore {
  var canServeRequests: Bool { !persistentStores.isEmpty }
  var spansSeveralStores: Bool { persistentStores.count > 1 }
  var savesNeedObjects: Bool { objectSavingStores.load(ordering: .relaxed) > 0 }
  var settlesConflictsInMemory: Bool { savesNeedObjects && persistentStores.contains { $0.settlesConflictsInMemory } }

  /// Runs `body` with exclusive access to the stores.
  ///
  /// - Throws: ``NSPersistentStoreOperationError`` when called from code that runs while
  ///   a fetch is making its objects (an override of `init(entity:insertInto:)`), instead of re-entering
  ///   the store in the middle of its read.
  func serialized<T>(_ body: () throws -> T) throws -> T {
    gate.lock()
    defer { gate.unlock() }
    guard !streamingFetch.load(ordering: .relaxed) else {
      throw ObjectGraphError(
        .persistentStoreOperation,
        "A store was used while a fetch was making its objects, from an override of NSManagedObject's init(entity:insertInto:). Objects are made while the store is being read, and the store cannot serve another request until the read ends. As in Core Data, do not override that initializer to use a context: set up objects in awakeFromFetch() or awakeFromInsert() instead."
      )
    }
    return try body()
  }

  func store(for id: NSManagedObjectID) -> NSPersistentStore? {
    guard let group = id.storeAndTable else { return nil }
    return persistentStores.first { $0.number == group.store }
  }

  /// Of `candidates`, the stores a request names in its `affectedStores` (their identities; all when `nil`).
  ///
  /// - Throws: ``NSPersistentStoreOperationError`` when a named store is not one of this coordinator's.
  func affected(_ candidates: [NSPersistentStore], by named: [ObjectIdentifier]?) throws -> [NSPersistentStore] {
    guard let named else { return candidates }
    let own = Set(persistentStores.map(ObjectIdentifier.init))
    if named.contains(where: { !own.contains($0) }) {
      throw ObjectGraphError(
        .persistentStoreOperation,
        "The request's affectedStores name a store that is not one of this coordinator's stores (\(named.count - named.filter(own.contains).count) of \(named.count)). Name stores from coordinator.persistentStores, or set affectedStores to nil for all of them."
      )
    }
    return candidates.filter { named.contains(ObjectIdentifier($0)) }
  }

  /// The identity of the store `id`'s object is in, or, for an unsaved object of `entity`, of the store a
  /// save will put it in (the store it was assigned to, else the first holding its entity): what a fetch's
  /// `affectedStores` compare it with.
  func storeIdentity(of id: NSManagedObjectID, entity: NSEntityDescription) -> ObjectIdentifier? {
    if id.storeAndTable != nil { return store(for: id).map(ObjectIdentifier.init) }
    return (try? store(forInserting: id, entity: entity)).map(ObjectIdentifier.init)
  }

  /// The store new objects of `entity` go to: the first that holds the entity.
  func store(forInserting entity: NSEntityDescription) throws -> NSPersistentStore {
    guard let store = persistentStores.first(where: { $0.holds(entity) }) else {
      if persistentStores.isEmpty {
        throw ObjectGraphError(
          .noPersistentStore, "The coordinator has no store. Call addPersistentStore(type:at:) before saving.")
      }
      throw ObjectGraphError(
        .noPersistentStore, "No store of the coordinator holds entity \(entity.entityName) (check the stores' configurations).")
    }
    return store
  }

  func fetch(_ plan: StoreFetchPlan) throws -> [FetchedRow] { try fetch(plan, in: nil) }

  /// Reads objects matching a fetch plan; in `generation` when a pinned context reads (here and below: only
  /// the stores the generation covers, each in its snapshot), else the stores as they are now.
  func fetch(_ plan: StoreFetchPlan, in generation: QueryGeneration?) throws -> [FetchedRow] {
    try serialized {
      let holding = try affected(stores(in: generation).filter { $0.holds(plan.entity) }, by: plan.affectedStores)
      guard holding.count > 1 else {
        return try holding.first.map { try $0.fetch(plan, in: generation?.snapshot(of: $0)) } ?? []
      }
      // Several stores: read everything, then order and cut in memory. The plan keeps its request and
      // context, which an incremental store answers from.
      let unbounded = plan.with(fetchLimit: 0, fetchOffset: 0)
      let rows = try holding.flatMap { try $0.fetch(unbounded, in: generation?.snapshot(of: $0)) }
      return Array(rows.dropFirst(plan.fetchOffset).prefix(plan.fetchLimit > 0 ? plan.fetchLimit : Int.max))
    }
  }

  func fetch(_ plan: StoreFetchPlan, each body: (FetchedRow) -> Void) throws { try fetch(plan, in: nil, each: body) }

  func fetch(_ plan: StoreFetchPlan, in generation: QueryGeneration?, each body: (FetchedRow) -> Void) throws {
    let streamed = try serialized { () -> Bool in
      let holding = try affected(stores(in: generation).filter { $0.holds(plan.entity) }, by: plan.affectedStores)
      guard holding.count == 1, let store = holding.first else { return false }
      streamingFetch.store(true, ordering: .relaxed)
      defer { streamingFetch.store(false, ordering: .relaxed) }
      try store.fetch(plan, in: generation?.snapshot(of: store), each: body)
      return true
    }
    if !streamed {
      for row in try fetch(plan, in: generation) { body(row) }
    }
  }

  func count(_ plan: StoreFetchPlan) throws -> Int { try count(plan, in: nil) }

  func count(_ plan: StoreFetchPlan, in generation: QueryGeneration?) throws -> Int {
    try serialized {
      let holding = try affected(stores(in: generation).filter { $0.holds(plan.entity) }, by: plan.affectedStores)
      guard holding.count > 1 else { return try holding.first.map { try $0.count(plan, in: generation?.snapshot(of: $0)) } ?? 0 }
      // Across stores, a limit and an offset apply to the whole: count everything, then cut.
      let unbounded = plan.with(fetchLimit: 0, fetchOffset: 0, idsOnly: true)
      let total = try holding.reduce(0) { $0 + (try $1.count(unbounded, in: generation?.snapshot(of: $1))) }
      let afterOffset = max(0, total - plan.fetchOffset)
      return plan.fetchLimit > 0 ? min(afterOffset, plan.fetchLimit) : afterOffset
    }
  }

  func fetchDictionaries(_ plan: StoreDictionaryPlan) throws -> StoreDictionaryRows { try fetchDictionaries(plan, in: nil) }

  func fetchDictionaries(_ plan: StoreDictionaryPlan, in generation: QueryGeneration?) throws -> StoreDictionaryRows {
    try serialized {
      let holding = try affected(stores(in: generation).filter { $0.holds(plan.rows.entity) }, by: plan.rows.affectedStores)
      guard holding.count > 1 else {
        return try holding.first.map { try $0.fetchDictionaries(plan, in: generation?.snapshot(of: $0)) } ?? .empty
      }
      // Several stores: each store's rows, one after the other, for the context to order and cut. Groups and
      // aggregates are worked out by one store's SQL, and cannot be put together from several.
      guard plan.groupBy.isEmpty, plan.having == nil, !plan.columns.contains(where: \.aggregates) else {
        throw ObjectGraphError(
          .unsupportedFeature,
          "Entity \(plan.rows.entity.entityName) lives in \(holding.count) stores of this coordinator, and a dictionary fetch that groups or aggregates reads one store: its groups and aggregates are worked out in SQL. Set the request's affectedStores to one store, or give the entity one store (configurations)."
        )
      }
      var unbounded = plan
      unbounded.rows = plan.rows.with(fetchLimit: 0, fetchOffset: 0)
      var names: [String] = []
      var values: [StoredValue] = []
      for store in holding {
        let rows = try store.fetchDictionaries(unbounded, in: generation?.snapshot(of: store))
        guard rows.count > 0 else { continue }
        names = rows.names
        values += rows.values
      }
      var merged = StoreDictionaryRows(names: names.isEmpty ? plan.columns.map(\.name) : names, values: values)
      merged.fromSeveralStores = true
      return merged
    }
  }

  func snapshots(for ids: [NSManagedObjectID]) throws -> [NSManagedObjectID: RowSnapshot] { try snapshots(for: ids, in: nil) }

  func snapshots(for ids: [NSManagedObjectID], in generation: QueryGeneration?) throws -> [NSManagedObjectID: RowSnapshot] {
    try serialized {
      var groups: [NSManagedObjectID.StoreTable: [NSManagedObjectID]] = [:]
      for id in ids {
        if let group = id.storeAndTable { groups[group, default: []].append(id) }
      }
      var result: [NSManagedObjectID: RowSnapshot] = [:]
      for group in groups.values {
        guard let first = group.first, let store = store(for: first), generation?.covers(store) ?? true else { continue }
        result.merge(try store.snapshots(for: group, in: generation?.snapshot(of: store))) { a, _ in a }
      }
      return result
    }
  }

  func relatedIDs(of ids: [NSManagedObjectID], slot: EntityLayout.Slot, entity: NSEntityDescription) throws
    -> [NSManagedObjectID: [NSManagedObjectID]]
  {
    try relatedIDs(of: ids, slot: slot, entity: entity, in: nil)
  }

  func relatedIDs(
    of ids: [NSManagedObjectID], slot: EntityLayout.Slot, entity: NSEntityDescription, in generation: QueryGeneration?
  ) throws -> [NSManagedObjectID: [NSManagedObjectID]] {
    try serialized {
      var result: [NSManagedObjectID: [NSManagedObjectID]] = [:]
      var byStore: [String: [NSManagedObjectID]] = [:]
      for id in ids {
        if id.isTemporaryID { result[id] = [] } else { byStore[id.storeIdentifier ?? "", default: []].append(id) }
      }
      for (identifier, group) in byStore {
        guard let store = stores(in: generation).first(where: { $0.identifier == identifier }) else { continue }
        result.merge(try store.relatedIDs(of: group, slot: slot, entity: entity, in: generation?.snapshot(of: store))) { a, _ in a }
      }
      return result
    }
  }

  /// Gives permanent IDs to objects not yet saved, reserving their primary keys in the store that will
  /// hold each: one transaction per store.
  func obtainPermanentIDs(for objects: [(id: NSManagedObjectID, entity: NSEntityDescription)]) throws -> [NSManagedObjectID] {
    try serialized {
      // The store is looked up once per run of objects of one entity (a batch is usually one run), not
      // once per object: the lookup takes the stores' lock, and every entity touched is shared with the
      // other queues, whose reference counts each extra retain contends for.
      var byStore: [(store: NSPersistentStore, positions: [Int])] = []
      var run: (entity: NSEntityDescription, storeIndex: Int)?
      // Objects assigned to a store with assign(_:to:) are looked up one by one.
      let assigning = hasAssignments
      for position in objects.indices {
        let entity = objects[position].entity
        if let known = run, known.entity === entity, !assigning {
          byStore[known.storeIndex].positions.append(position)
          continue
        }
        let store = try assigning ? store(forInserting: objects[position].id, entity: entity) : store(forInserting: entity)
        let storeIndex: Int
        if let index = byStore.firstIndex(where: { $0.store === store }) {
          storeIndex = index
        } else {
          storeIndex = byStore.count
          byStore.append((store, []))
          byStore[storeIndex].positions.reserveCapacity(objects.count)
        }
        byStore[storeIndex].positions.append(position)
        run = (entity, storeIndex)
      }
      if byStore.count == 1, let only = byStore.first {
        let ids =
          try (only.store.isCustom ? only.store.answeredPermanentIDs(for: objects.map(\.id)) : nil)
          ?? only.store.reservePermanentIDs(for: objects.lazy.map(\.entity))
        if assigning { forgetAssignments(of: objects.lazy.map(\.id)) }
        return ids
      }
      var result = objects.map(\.id)
      for (store, positions) in byStore {
        let ids =
          try (store.isCustom ? store.answeredPermanentIDs(for: positions.map { objects[$0].id }) : nil)
          ?? store.reservePermanentIDs(for: positions.lazy.map { objects[$0].entity })
        for (position, id) in zip(positions, ids) { result[position] = id }
      }
      if assigning { forgetAssignments(of: objects.lazy.map(\.id)) }
      return result
    }
  }

  func save(_ request: StoreSaveRequest) throws -> StoreSaveResult {
    try serialized {
      guard let store = persistentStores.first else {
        throw ObjectGraphError(
          .noPersistentStore, "The coordinator has no store. Call addPersistentStore(type:at:) before saving.")
      }
      guard hasAssignments else {
        if persistentStores.count == 1 { return try store.save(request) }
        return try saveAcrossStores(request)
      }
      let result = try saveAcrossStores(request)
      forgetAssignments(of: request.inserts.lazy.map(\.temporaryID))
      return result
    }
  }

  /// With several stores, each store's part of the save is written in its own transaction, in order.
  /// Every part carries the whole save's settings (merge policies, and the author and context name each
  /// store's history records).
  private func saveAcrossStores(_ request: StoreSaveRequest) throws -> StoreSaveResult {
    var settings = request
    (settings.inserts, settings.updates, settings.deletes) = ([], [], [])
    var parts: [ObjectIdentifier: StoreSaveRequest] = [:]
    /// For each part, the position of each of its inserts in `request.inserts`.
    var insertPositions: [ObjectIdentifier: [Int]] = [:]
    var order: [NSPersistentStore] = []
    func part(_ store: NSPersistentStore) -> ObjectIdentifier {
      let key = ObjectIdentifier(store)
      if parts[key] == nil {
        parts[key] = settings
        order.append(store)
      }
      return key
    }
    for (position, insert) in request.inserts.enumerated() {
      let key = part(try store(forInserting: insert.temporaryID, entity: insert.entity))
      parts[key, default: settings].inserts.append(insert)
      insertPositions[key, default: []].append(position)
    }
    for update in request.updates {
      guard let store = store(for: update.id) else { continue }
      parts[part(store), default: settings].updates.append(update)
    }
    for delete in request.deletes {
      guard let store = store(for: delete.id) else { continue }
      parts[part(store), default: settings].deletes.append(delete)
    }
    var result = StoreSaveResult()
    result.insertedIDs = request.inserts.map(\.temporaryID)
    for store in order {
      guard let part = parts[ObjectIdentifier(store)] else { continue }
      let partial = try store.save(part)
      let positions = insertPositions[ObjectIdentifier(store)] ?? []
      for (position, id) in zip(positions, partial.insertedIDs) {
        result.insertedIDs[position] = id
      }
      for (local, merge) in partial.constraintMerges where local < positions.count {
        result.constraintMerges[positions[local]] = merge
      }
      result.versions.merge(partial.versions) { a, _ in a }
      result.refreshed.merge(partial.refreshed) { a, _ in a }
    }
    return result
  }
}
