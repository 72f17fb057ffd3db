import Foundation

/// A root context's pin to a query generation, and the ``ObjectStore`` the context reads through while
/// pinned: fetches, counts and faults read the generation, while saves (and the permanent IDs they need) go
/// to the coordinator as an unpinned context's do ("Query generations are for fetched data only; they are not
/// used during saving", Core Data's header says).
///
/// Pinned to ``NSQueryGenerationToken/current``, it takes the generation at its first read, as Core Data's
/// context "will pin itself to the generation of the database when it first loads data". After a save it is
/// pinned to the generation right after that save, taken before any other save of the coordinator can come
/// in ("If a pinned context saves, its query generation will be updated after the save").
final class QueryGenerationPin: ObjectStore {
  /// The coordinator the context reads and saves through.
  let coordinator: NSPersistentStoreCoordinator
  private let state: Locked<QueryGeneration?>

  /// A pin to `generation`, or (`nil`) to the generation current at the first read.
  init(coordinator: NSPersistentStoreCoordinator, generation: QueryGeneration?) {
    self.coordinator = coordinator
    state = Locked(generation)
  }

  /// A pin to what `token` names: the generation current at the first read for
  /// ``NSQueryGenerationToken/current``, else the live generation of `coordinator` the token names.
  ///
  /// - Throws: ``NSPersistentStoreOperationError`` when that generation has ended or belongs to another
  ///   coordinator; `who` (`"Context 'view'"`) starts the message.
  convenience init(coordinator: NSPersistentStoreCoordinator, token: NSQueryGenerationToken, for who: String) throws {
    guard !token.isCurrent else {
      self.init(coordinator: coordinator, generation: nil)
      return
    }
    guard let generation = token.generation else {
      throw ObjectGraphError(
        .persistentStoreOperation,
        "\(who) cannot be set to \(token): that generation has ended (no context is pinned to it any more, and a token alone does not keep it). Set the context from a pinned context's queryGenerationToken while that context still reads it, or use NSQueryGenerationToken.current."
      )
    }
    guard generation.coordinator === coordinator else {
      throw ObjectGraphError(
        .persistentStoreOperation,
        "\(who) cannot be set to \(token): that generation belongs to another coordinator. Take tokens only from contexts of the same coordinator, or use NSQueryGenerationToken.current."
      )
    }
    self.init(coordinator: coordinator, generation: generation)
  }

  /// The token of what the context is pinned to: the generation, or ``NSQueryGenerationToken/current`` before
  /// the first read.
  var token: NSQueryGenerationToken {
    state.withLock { $0 }.map(NSQueryGenerationToken.init) ?? .current
  }

  /// The generation to read, taken now when the pin has none yet.
  func generation() throws -> QueryGeneration {
    if let pinned = state.withLock({ $0 }) { return pinned }
    let made = try coordinator.makeQueryGeneration()
    return state.withLock { current -> QueryGeneration in
      if let pinned = current { return pinned }
      current = made
      return made
    }
  }

  // MARK: ObjectStore

  var canServeRequests: Bool { coordinator.canServeRequests }
  var spansSeveralStores: Bool { (try? coordinator.stores(in: generation()).count > 1) ?? coordinator.spansSeveralStores }

  func fetch(_ plan: StoreFetchPlan) throws -> [FetchedRow] {
    try coordinator.fetch(plan, in: generation())
  }

  func fetch(_ plan: StoreFetchPlan, each body: (FetchedRow) -> Void) throws {
    try coordinator.fetch(plan, in: generation(), each: body)
  }

  func count(_ plan: StoreFetchPlan) throws -> Int {
    try coordinator.count(plan, in: generation())
  }

  func fetchDictionaries(_ plan: StoreDictionaryPlan) throws -> StoreDictionaryRows {
    try coordinator.fetchDictionaries(plan, in: generation())
  }

  func snapshots(for ids: [NSManagedObjectID]) throws -> [NSManagedObjectID: RowSnapshot] {
    try coordinator.snapshots(for: ids, in: generation())
  }

  func relatedIDs(of ids: [NSManagedObjectID], slot: EntityLayout.Slot, entity: NSEntityDescription) throws
    -> [NSManagedObjectID: [NSManagedObjectID]]
  {
    try coordinator.relatedIDs(of: ids, slot: slot, entity: entity, in: generation())
  }

  func obtainPermanentIDs(for objects: [(id: NSManagedObjectID, entity: NSEntityDescription)]) throws -> [NSManagedObjectID] {
    try coordinator.obtainPermanentIDs(for: objects)
  }

  /// Saves to the coordinator, then moves the pin to the generation right after the save, inside the
  /// coordinator's lock so that no other save of the coordinator comes in between. When that generation
  /// cannot be made, the pin takes the current one at the next read instead.
  func save(_ request: StoreSaveRequest) throws -> StoreSaveResult {
    try coordinator.serialized {
      let result = try coordinator.save(request)
      let next = try? coordinator.makeQueryGeneration()
      let previous = state.withLock { pinned -> QueryGeneration? in
        defer { pinned = next }
        return pinned
      }
      // The generation the context leaves ends here when no other context holds it: outside the state's
      // lock, as ending it closes its connections.
      withExtendedLifetime(previous) {}
      return result
    }
  }
}
