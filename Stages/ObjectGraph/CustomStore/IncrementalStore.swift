import Foundation

// @unchecked Sendable: every stored property added here is read and written only inside `lock`.

/// The superclass of a store that answers each request itself (Core Data's `NSIncrementalStore`): subclass it
/// to keep a Core Data object graph in a database, a web service or a file format of your own, read and
/// written a piece at a time.
///
/// ```swift
/// final class DictionaryStore: NSIncrementalStore {
///   override func loadMetadata() throws { metadata = [NSStoreTypeKey: "DictionaryStore", NSStoreUUIDKey: uuid] }
///   override func execute(_ request: any NSPersistentStoreRequest, with context: NSManagedObjectContext?) throws -> Any {
///     // a fetch: [NSManagedObject] (context.object(with: newObjectID(for:referenceObject:))), IDs or a count;
///     // a save (NSSaveChangesRequest): write its objects, return [].
///   }
///   override func newValuesForObject(with objectID: NSManagedObjectID, with context: NSManagedObjectContext) throws
///     -> NSIncrementalStoreNode { ... }  // a fault fires
///   override func newValue(forRelationship relationship: NSRelationshipDescription, forObjectWith objectID: NSManagedObjectID,
///     with context: NSManagedObjectContext?) throws -> Any { ... }  // a to-many fault fires: its members' IDs
///   override func obtainPermanentIDs(for array: [NSManagedObject]) throws -> [NSManagedObjectID] { ... }
/// }
/// NSPersistentStoreCoordinator.registerStoreClass(DictionaryStore.self, forStoreType: "DictionaryStore")
/// ```
///
/// The coordinator makes the store with ``init(persistentStoreCoordinator:configurationName:at:options:)``,
/// calls ``loadMetadata()`` and checks ``NSPersistentStore/metadata`` (the type, the UUID, the model's version
/// hashes, as for an atomic store). Then every request of a root context goes to the subclass: a fetch of
/// objects, IDs or a count to ``execute(_:with:)`` with an `NSFetchRequest<any NSFetchRequestResult>` (its
/// predicate and sort descriptors are the store's to apply: `predicate.evaluate(with:)` works on a dictionary
/// of values), a fault to ``newValuesForObject(with:with:)``, a to-many relationship to
/// ``newValue(forRelationship:forObjectWith:with:)``, the IDs of inserted objects to
/// ``obtainPermanentIDs(for:)`` (before each save), and a save to ``execute(_:with:)`` with an
/// ``NSSaveChangesRequest``. An error a subclass throws reaches the caller of the fetch or the save; a save
/// that throws keeps nothing and leaves the context's changes in place.
///
/// A dictionary fetch goes to ``execute(_:with:)`` too (its `propertiesToFetch`, `propertiesToGroupBy`,
/// `havingPredicate` and `returnsDistinctResults` copied), and the store returns the dictionaries. Before a save
/// reaches the subclass, each updated or deleted object's version in the store is read with
/// ``newValuesForObject(with:with:)`` and compared with the version the context read (optimistic locking): a
/// conflict fails the save with the error a SQLite store gives (133020, `NSMergeConflict`s under
/// `"conflictList"`) unless the context's merge policy settles it. Contexts report the objects they register
/// and let go of with ``managedObjectContextDidRegisterObjects(with:)`` and
/// ``managedObjectContextDidUnregisterObjects(with:)``.
///
/// Not answered (refused with an error naming the request): batch requests and persistent history. Every
/// override but the two registration ones runs with the coordinator's lock held, one at a time, on the
/// requesting context's queue; state of your own that other threads read needs your own lock.
open class NSIncrementalStore: NSPersistentStore, StoreRegistrationObserver, @unchecked Sendable {
  /// Guards the reference tables below.
  private let lock = NSRecursiveLock()
  /// Each object's reference object, and the IDs made for them.
  private var references = StoreReferences()

  /// Makes the store (Core Data's designated initializer; see ``NSPersistentStore``'s). Set
  /// ``NSPersistentStore/metadata`` here or in ``loadMetadata()``.
  public required init(
    persistentStoreCoordinator coordinator: NSPersistentStoreCoordinator?, configurationName: String?, at url: URL,
    options: [AnyHashable: Any]? = nil
  ) {
    super.init(persistentStoreCoordinator: coordinator, configurationName: configurationName, at: url, options: options)
  }

  // MARK: - What a subclass overrides

  /// The identifier (`NSStoreUUIDKey`) for a new store at `storeURL` (Core Data's class method
  /// `identifierForNewStore(at:)`): a new UUID string. Call it from ``loadMetadata()`` when the store has no
  /// data yet.
  open class func identifierForNewStore(at storeURL: URL) -> Any {
    UUID().uuidString
  }

  /// Reads the store's metadata (Core Data's `loadMetadata()`): set ``NSPersistentStore/metadata`` to at least
  /// `NSStoreTypeKey` (the type the store was registered as) and `NSStoreUUIDKey` (kept from a previous run, or
  /// ``identifierForNewStore(at:)`` for a new store), and check that the store's data can be read. A subclass
  /// must override it; the default throws.
  /// - Throws: what the subclass throws (the store is then not added).
  open override func loadMetadata() throws {
    throw ObjectGraphError(
      .persistentStoreOperation,
      "\(Swift.type(of: self)) does not override loadMetadata(): an NSIncrementalStore subclass sets metadata (NSStoreTypeKey and NSStoreUUIDKey) there.",
      url: url)
  }

  /// Answers a request (Core Data's `execute(_:with:)`), called with the coordinator's lock held.
  ///
  /// - An `NSFetchRequest<any NSFetchRequestResult>`: by its ``NSFetchRequest/resultType``, an array of managed
  ///   objects (`context.object(with:)` of an ID from ``newObjectID(for:referenceObject:)``: faults, filled
  ///   later by ``newValuesForObject(with:with:)``), of ``NSManagedObjectID``s, of dictionaries (`[String: Any]`
  ///   or `NSDictionary`, keyed by the names of ``NSFetchRequest/propertiesToFetch``, every property when it is
  ///   `nil`; a to-one's value an ``NSManagedObjectID``; a value left out is `nil`), or of one `NSNumber` (or
  ///   `Int`), the count. The store applies the predicate, the sort descriptors, `fetchOffset` and `fetchLimit`
  ///   (and, for dictionaries, the grouping, `havingPredicate` and `returnsDistinctResults`).
  /// - An ``NSSaveChangesRequest``: write its inserted, updated and deleted objects (inserted ones have
  ///   permanent IDs from ``obtainPermanentIDs(for:)`` already), and store each saved object's version one higher
  ///   than before (the version the next ``newValuesForObject(with:with:)`` reports); return an empty array. The
  ///   versions were checked before: the request holds no object that changed in the store since its context
  ///   read it, unless the context's merge policy settled the conflict (the objects then hold the merged
  ///   values; a deleted object the policy keeps is left out).
  ///
  /// The default throws: a subclass must override it.
  /// - Throws: what the subclass throws; it reaches the fetch's or the save's caller.
  open func execute(_ request: any NSPersistentStoreRequest, with context: NSManagedObjectContext?) throws -> Any {
    throw ObjectGraphError(
      .persistentStoreOperation,
      "\(Swift.type(of: self)) does not override execute(_:with:): an NSIncrementalStore subclass answers fetches and saves there.",
      url: url)
  }

  /// The values of the object `objectID` names, for a fault that fires (Core Data's
  /// `newValuesForObject(with:with:)`): a node with each attribute's value and each to-one's destination ID
  /// (or `NSNull`), by property name, and the object's version. A to-many left out of the values is asked of
  /// ``newValue(forRelationship:forObjectWith:with:)`` when it is first read. A save asks it too, for each
  /// updated or deleted object, to compare the node's version with the one the context read. The default
  /// throws.
  /// - Throws: what the subclass throws; for an object it does not hold, Cocoa's
  ///   `NSManagedObjectReferentialIntegrityError` or ``ObjectGraphObjectNotFoundError`` (a save then treats the
  ///   object as deleted in the store).
  open func newValuesForObject(with objectID: NSManagedObjectID, with context: NSManagedObjectContext) throws
    -> NSIncrementalStoreNode
  {
    throw ObjectGraphError(
      .persistentStoreOperation,
      "\(Swift.type(of: self)) does not override newValuesForObject(with:with:): an NSIncrementalStore subclass returns the values of a fault there.",
      url: url)
  }

  /// The destination of `relationship` of the object `objectID` names (Core Data's
  /// `newValue(forRelationship:forObjectWith:with:)`): for a to-many, an array (or set, or ordered set) of the
  /// members' IDs; for a to-one, the destination's ID or `NSNull`. The default throws.
  /// - Throws: what the subclass throws.
  open func newValue(
    forRelationship relationship: NSRelationshipDescription, forObjectWith objectID: NSManagedObjectID,
    with context: NSManagedObjectContext?
  ) throws -> Any {
    throw ObjectGraphError(
      .persistentStoreOperation,
      "\(Swift.type(of: self)) does not override newValue(forRelationship:forObjectWith:with:): an NSIncrementalStore subclass returns a relationship's destination IDs there.",
      url: url)
  }

  /// Permanent IDs for newly inserted objects, in the same order (Core Data's `obtainPermanentIDs(for:)`):
  /// usually ``newObjectID(for:referenceObject:)`` with a new key of your own. Called before each save that
  /// inserts objects, and by `NSManagedObjectContext.obtainPermanentIDs(for:)`. The default throws.
  /// - Throws: what the subclass throws; the save fails and keeps nothing.
  open func obtainPermanentIDs(for array: [NSManagedObject]) throws -> [NSManagedObjectID] {
    throw ObjectGraphError(
      .persistentStoreOperation,
      "\(Swift.type(of: self)) does not override obtainPermanentIDs(for:): an NSIncrementalStore subclass gives inserted objects their permanent IDs there.",
      url: url)
  }

  /// Told that a context registered objects of this store (Core Data's
  /// `managedObjectContextDidRegisterObjects(with:)`): each ID counts one more context using the object, as a
  /// reference count does, until ``managedObjectContextDidUnregisterObjects(with:)`` names it. A context
  /// reports an object when a fetch, `object(with:)` or `existingObject(with:)` registers it, and an inserted
  /// one once it has its permanent ID (``obtainPermanentIDs(for:)``); a fetch's objects come in one call.
  ///
  /// Called on the context's queue, without the coordinator's lock, while the context updates its own
  /// bookkeeping: keep the count (under a lock of your own) and do not call back into the context. The
  /// default does nothing.
  open func managedObjectContextDidRegisterObjects(with objectIDs: [NSManagedObjectID]) {}

  /// Told that a context let go of objects of this store (Core Data's
  /// `managedObjectContextDidUnregisterObjects(with:)`), each one registered before: the object left the
  /// context (`reset()`, an unchanged object no one references any more, an object deleted by a save, an
  /// inserted one rolled back), or the context itself went away. When every registration of an ID
  /// has been matched, no context uses the object and the store may drop what it caches for it.
  ///
  /// Called as ``managedObjectContextDidRegisterObjects(with:)`` is (for a context that goes away, on the
  /// thread that releases it). The default does nothing.
  open func managedObjectContextDidUnregisterObjects(with objectIDs: [NSManagedObjectID]) {}

  // MARK: - What the store gives a subclass

  /// The object ID of the object of `entity` that `data`, your own key (a string, a number, a UUID), names
  /// (Core Data's `newObjectID(for:referenceObject:)`): the same ID each time for the same entity and key.
  ///
  /// A key that is not `Hashable`, or an entity the store does not hold, is a programmer error.
  open func newObjectID(for entity: NSEntityDescription, referenceObject data: Any) -> NSManagedObjectID {
    lock.withLock {
      references.id(for: entity, reference: data, method: "newObjectID(for:referenceObject:)") { try reserveID(for: entity) }
    }
  }

  /// The reference object the ID was made from (Core Data's `referenceObject(for:)`); `NSNull` for an ID this
  /// store did not make.
  open func referenceObject(for objectID: NSManagedObjectID) -> Any {
    lock.withLock { references.reference(for: objectID) }
  }

  // MARK: - The engine's side

  override var savesNeedObjects: Bool { true }

  var registrationStoreNumber: Int { number }

  func contextDidRegister(_ ids: [NSManagedObjectID]) { managedObjectContextDidRegisterObjects(with: ids) }

  func contextDidUnregister(_ ids: [NSManagedObjectID]) { managedObjectContextDidUnregisterObjects(with: ids) }

  override func answeredFetch(_ plan: StoreFetchPlan) throws -> [FetchedRow]? {
    let context = try requestingContext(plan.context)
    let results = try execute(try storeRequest(for: plan, counting: false), with: context)
    guard let items = results as? [Any] else {
      throw ObjectGraphError(
        .persistentStoreOperation,
        "execute(_:with:) of \(Swift.type(of: self)) returned \(Swift.type(of: results)) for a fetch of \(plan.entity.entityName). Return an array of managed objects or of NSManagedObjectIDs.",
        url: url)
    }
    return try items.map { item in
      let id: NSManagedObjectID
      switch item {
      case let object as NSManagedObject: id = object.objectID
      case let objectID as NSManagedObjectID: id = objectID
      default:
        throw ObjectGraphError(
          .persistentStoreOperation,
          "execute(_:with:) of \(Swift.type(of: self)) returned \(item) in the results of a fetch of \(plan.entity.entityName). Return managed objects or NSManagedObjectIDs.",
          url: url)
      }
      return FetchedRow(id: id, snapshot: RowSnapshot(version: 0, values: []))
    }
  }

  override func answeredCount(_ plan: StoreFetchPlan) throws -> Int? {
    let context = try requestingContext(plan.context)
    let results = try execute(try storeRequest(for: plan, counting: true), with: context)
    switch results {
    case let count as Int: return count
    case let number as NSNumber: return number.intValue
    case let array as [Any]:
      if let count = array.first as? Int { return count }
      if let number = array.first as? NSNumber { return number.intValue }
    default: break
    }
    throw ObjectGraphError(
      .persistentStoreOperation,
      "execute(_:with:) of \(Swift.type(of: self)) returned \(results) for a count of \(plan.entity.entityName). Return [NSNumber(value: count)].",
      url: url)
  }

  override func answeredSnapshots(for ids: [NSManagedObjectID]) throws -> [NSManagedObjectID: RowSnapshot]? {
    let context = try requestingContext(nil)
    var result: [NSManagedObjectID: RowSnapshot] = [:]
    for id in ids {
      let node = try newValuesForObject(with: id, with: context)
      result[id] = IncrementalStoreRows.snapshot(of: node, for: id)
    }
    return result
  }

  override func answeredRelatedIDs(of ids: [NSManagedObjectID], slot: EntityLayout.Slot) throws -> [NSManagedObjectID: [NSManagedObjectID]]?
  {
    guard let relationship = slot.relationship else { return [:] }
    let context = try? requestingContext(nil)
    var result: [NSManagedObjectID: [NSManagedObjectID]] = [:]
    for id in ids {
      result[id] = IncrementalStoreRows.members(try newValue(forRelationship: relationship, forObjectWith: id, with: context))
    }
    return result
  }

  override func answeredPermanentIDs(for ids: [NSManagedObjectID]) throws -> [NSManagedObjectID]? {
    let context = try requestingContext(nil)
    var objects: [NSManagedObject] = []
    objects.reserveCapacity(ids.count)
    for id in ids {
      guard let object = context.registeredObject(for: id) else {
        throw ObjectGraphError(
          .persistentStoreOperation,
          "\(id) is not an object of context \(context.name ?? "(unnamed)"), so the store at \(url?.path ?? "(no URL)") cannot be asked for its permanent ID. Obtain permanent IDs from the context that inserted the object.",
          url: url)
      }
      objects.append(object)
    }
    let permanent = try obtainPermanentIDs(for: objects)
    guard permanent.count == ids.count, zip(permanent, objects).allSatisfy({ !$0.isTemporaryID && $0.entity === $1.entity }) else {
      throw ObjectGraphError(
        .persistentStoreOperation,
        "obtainPermanentIDs(for:) of \(Swift.type(of: self)) returned \(permanent.count) IDs for \(ids.count) objects, or a temporary ID, or one of another entity. Return one permanent ID per object, in order, from newObjectID(for:referenceObject:). Nothing was saved.",
        url: url)
    }
    return permanent
  }

  override var settlesConflictsInMemory: Bool { true }

  override func answeredSave(_ request: StoreSaveRequest) throws -> StoreSaveResult? {
    let saved = request.savedObjects
    let context = (saved?.context as? NSManagedObjectContext) ?? (try? requestingContext(nil))
    let check = try IncrementalStoreVersions.check(request, in: self, context: context)
    let inserted = (saved?.inserted ?? []).compactMap { $0 as? NSManagedObject }
    let updated = (saved?.updated ?? []).compactMap { $0 as? NSManagedObject }
    let deleted = (saved?.deleted ?? []).compactMap { $0 as? NSManagedObject }.filter { check.refreshed[$0.objectID] == nil }
    if let object = inserted.first(where: { $0.objectID.isTemporaryID }) {
      throw ObjectGraphError(
        .persistentStoreSave,
        "\(object.objectID) reached the incremental store at \(url?.path ?? "(no URL)") without a permanent ID. Call obtainPermanentIDs(for:) on it, then save again. Nothing was saved.",
        url: url)
    }
    let saveRequest = NSSaveChangesRequest(
      insertedObjects: Set(inserted), updatedObjects: Set(updated), deletedObjects: Set(deleted), lockedObjects: nil)
    _ = try execute(saveRequest, with: context)
    var result = StoreSaveResult()
    result.insertedIDs = request.inserts.map(\.temporaryID)
    result.keepsInsertedIDs = true
    for update in request.updates { result.versions[update.id] = check.versions[update.id] ?? update.expectedVersion + 1 }
    result.refreshed = check.refreshed
    return result
  }

  override func answeredDictionaries(_ plan: StoreDictionaryPlan) throws -> StoreDictionaryRows? {
    let context = try requestingContext(plan.rows.context)
    let results = try execute(try storeRequest(for: plan.rows, counting: false), with: context)
    let names = plan.columns.map(\.name)
    guard let items = results as? [Any] else {
      throw ObjectGraphError(
        .persistentStoreOperation,
        "execute(_:with:) of \(Swift.type(of: self)) returned \(Swift.type(of: results)) for a dictionary fetch of \(plan.rows.entity.entityName). Return an array of dictionaries ([[String: Any]] or [NSDictionary]) keyed by \(names.joined(separator: ", ")).",
        url: url)
    }
    var values: [StoredValue] = []
    values.reserveCapacity(items.count * names.count)
    for item in items {
      guard let row = IncrementalStoreRows.dictionary(item) else {
        throw ObjectGraphError(
          .persistentStoreOperation,
          "execute(_:with:) of \(Swift.type(of: self)) returned \(item) (\(Swift.type(of: item))) in the results of a dictionary fetch of \(plan.rows.entity.entityName). Return dictionaries ([String: Any] or NSDictionary) keyed by property name.",
          url: url)
      }
      for name in names {
        do {
          values.append(try IncrementalStoreRows.value(row[name]))
        } catch let problem as IncrementalStoreRows.UnreadableValue {
          throw ObjectGraphError(
            .persistentStoreOperation,
            "execute(_:with:) of \(Swift.type(of: self)) returned \(problem.value) (\(problem.type)) under '\(name)' in a dictionary of a fetch of \(plan.rows.entity.entityName). Return a property's value as Core Data holds it: a string, number, date, data, UUID, URL, decimal or NSManagedObjectID.",
            url: url)
        }
      }
    }
    return StoreDictionaryRows(names: names, values: values)
  }

  /// The context a request comes from: the fetch's own, else the context whose block runs on this thread.
  private func requestingContext(_ given: AnyObject?) throws -> NSManagedObjectContext {
    if let context = given as? NSManagedObjectContext { return context }
    if let context = InnermostContext.current { return context }
    throw ObjectGraphError(
      .persistentStoreOperation,
      "The incremental store at \(url?.path ?? "(no URL)") was asked for objects outside a context's block, so it has no context to answer with. Use the context inside perform or performAndWait.",
      url: url)
  }

  /// The fetch request handed to the subclass: an `NSFetchRequest<any NSFetchRequestResult>` (what a store casts
  /// to) with the app's request's predicate, sort descriptors and settings, and the plan's limit and offset.
  private func storeRequest(for plan: StoreFetchPlan, counting: Bool) throws
    -> NSFetchRequest<any NSFetchRequestResult>
  {
    let request = NSFetchRequest<any NSFetchRequestResult>(entityName: plan.entity.entityName)
    guard let source = plan.request as? any IncrementalFetchSettings else {
      throw ObjectGraphError(
        .persistentStoreOperation,
        "A fetch of \(plan.entity.entityName) reached the incremental store at \(url?.path ?? "(no URL)") without the fetch request it was made from, so there is no request to hand execute(_:with:). Fetch through a context (fetch(_:), count(for:)).",
        url: url)
    }
    source.copySettings(to: request)
    request.fetchBatchSize = 0
    request.fetchLimit = plan.fetchLimit
    request.fetchOffset = plan.fetchOffset
    request.includesSubentities = plan.includesSubentities
    request.resultType = counting ? .countResultType : source.resultType
    return request
  }
}

/// A fetch request of any result type, as an incremental store's fetch copies it.
protocol IncrementalFetchSettings: AnyObject {
  var resultType: NSFetchRequestResultType { get }
  /// Copies the predicate, the sort descriptors and the settings a store reads into `request`.
  func copySettings(to request: NSFetchRequest<any NSFetchRequestResult>)
}

extension NSFetchRequest: IncrementalFetchSettings {
  func copySettings(to request: NSFetchRequest<any NSFetchRequestResult>) {
    request.predicate = predicate
    request.sortDescriptors = sortDescriptors
    request.includesPendingChanges = includesPendingChanges
    request.returnsObjectsAsFaults = returnsObjectsAsFaults
    request.relationshipKeyPathsForPrefetching = relationshipKeyPathsForPrefetching
    request.includesPropertyValues = includesPropertyValues
    request.shouldRefreshRefetchedObjects = shouldRefreshRefetchedObjects
    request.propertiesToFetch = propertiesToFetch
    request.propertiesToGroupBy = propertiesToGroupBy
    request.havingPredicate = havingPredicate
    request.returnsDistinctResults = returnsDistinctResults
  }
}
