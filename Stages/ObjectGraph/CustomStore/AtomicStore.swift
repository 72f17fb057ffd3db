import Foundation

// @unchecked Sendable: every stored property added here is read and written only inside `lock`.

/// The superclass of a store whose file is read and written whole (Core Data's `NSAtomicStore`): subclass it
/// to keep a Core Data object graph in a file format of your own.
///
/// ```swift
/// final class JSONStore: NSAtomicStore {
///   override func load() throws { /* read the file; objectID(for:withReferenceObject:); addCacheNodes(_:) */ }
///   override func newReferenceObject(for managedObject: NSManagedObject) -> Any { UUID().uuidString }
///   override func newCacheNode(for managedObject: NSManagedObject) -> NSAtomicStoreCacheNode { ... }
///   override func updateCacheNode(_ node: NSAtomicStoreCacheNode, from managedObject: NSManagedObject) { ... }
///   override func save() throws { /* write cacheNodes() and metadata to the file */ }
/// }
/// NSPersistentStoreCoordinator.registerStoreClass(JSONStore.self, forStoreType: "JSONStore")
/// ```
///
/// The life of a store, as Core Data's: the coordinator makes it with
/// ``init(persistentStoreCoordinator:configurationName:at:options:)``, which sets ``NSPersistentStore/metadata``
/// (a new store: a type and a new UUID); calls ``NSPersistentStore/loadMetadata()``, checks the metadata (the
/// type, the UUID, the model's version hashes: a store of another model version is refused with 134100, as a
/// SQLite store), then ``load()``, in which the subclass reads its file and registers its objects' nodes with
/// ``addCacheNodes(_:)``. A context's save then calls ``newReferenceObject(for:)`` and ``newCacheNode(for:)``
/// for each inserted object, ``updateCacheNode(_:from:)`` for each updated one, ``willRemoveCacheNodes(_:)``
/// with the deleted ones' nodes, and ``save()``, in which the subclass writes the whole file. A `save()` that
/// throws fails the context's save: nothing of it is kept, in memory or in the cache nodes, and the context
/// keeps its changes.
///
/// The engine keeps the objects in an in-memory SQLite database too (filled from the nodes at load and
/// changed by each save), so fetches, faults and merges behave exactly as for the built-in stores. Batch
/// requests are refused, as for Core Data's atomic stores. Every override runs with the coordinator's lock
/// held, one at a time; state of your own that other threads read needs your own lock.
open class NSAtomicStore: NSPersistentStore, @unchecked Sendable {
  /// Guards the node and reference tables below.
  private let lock = NSRecursiveLock()
  /// The registered nodes, by object ID.
  private var nodes: [NSManagedObjectID: NSAtomicStoreCacheNode] = [:]
  /// Each object's reference object (the subclass's key for it), and the IDs made for them.
  private var references = StoreReferences()
  /// The nodes added while ``load()`` runs, which become the database's rows when it returns; `nil` outside it.
  private var loading: [NSAtomicStoreCacheNode]?

  /// Makes the store (Core Data's designated initializer; see ``NSPersistentStore``'s). A subclass's own
  /// initializer sets ``NSPersistentStore/metadata`` here when the file does not exist yet: at least
  /// `NSStoreTypeKey` (the store's ``NSPersistentStore/type``) and `NSStoreUUIDKey` (a new UUID string).
  public required init(
    persistentStoreCoordinator coordinator: NSPersistentStoreCoordinator?, configurationName: String?, at url: URL,
    options: [AnyHashable: Any]? = nil
  ) {
    super.init(persistentStoreCoordinator: coordinator, configurationName: configurationName, at: url, options: options)
  }

  // MARK: - What a subclass overrides

  /// Reads the store's file and registers its objects (Core Data's `load()`): for each, an ID from
  /// ``objectID(for:withReferenceObject:)``, a node with its values, and one ``addCacheNodes(_:)`` for all of
  /// them (or several). The default throws: a subclass must override it.
  /// - Throws: what the subclass throws (the store is then not added).
  open func load() throws {
    throw ObjectGraphError(
      .persistentStoreOperation,
      "\(Swift.type(of: self)) does not override load(): an NSAtomicStore subclass reads its file there and registers its objects with addCacheNodes(_:).",
      url: url)
  }

  /// Writes the whole store to its file (Core Data's `save()`): the nodes of ``cacheNodes()`` and
  /// ``NSPersistentStore/metadata``. Called inside each save that changes the store; throwing fails the
  /// context's save and keeps nothing of it. The default throws: a subclass must override it.
  open func save() throws {
    throw ObjectGraphError(
      .persistentStoreSave,
      "\(Swift.type(of: self)) does not override save(): an NSAtomicStore subclass writes its cache nodes to its file there.",
      url: url)
  }

  /// A new node for an object a save inserts (Core Data's `newCacheNode(for:)`), made with the object's ID
  /// (permanent by now) and its values; the engine registers it. A subclass must override it.
  open func newCacheNode(for managedObject: NSManagedObject) -> NSAtomicStoreCacheNode {
    programmerError(
      "\(Swift.type(of: self)) does not override newCacheNode(for:): an NSAtomicStore subclass makes the node of each inserted object there."
    )
  }

  /// Takes an updated object's values into its node (Core Data's `updateCacheNode(_:from:)`), once per updated
  /// object of a save. A subclass must override it.
  open func updateCacheNode(_ node: NSAtomicStoreCacheNode, from managedObject: NSManagedObject) {
    programmerError(
      "\(Swift.type(of: self)) does not override updateCacheNode(_:from:): an NSAtomicStore subclass copies each updated object's values into its node there."
    )
  }

  /// The reference object (your file's own key) of an object a save inserts (Core Data's
  /// `newReferenceObject(for:)`). It must be unique in the store and `Hashable`. A subclass must override it.
  open func newReferenceObject(for managedObject: NSManagedObject) -> Any {
    programmerError(
      "\(Swift.type(of: self)) does not override newReferenceObject(for:): an NSAtomicStore subclass gives each inserted object a unique key there."
    )
  }

  /// Called before ``save()`` with the nodes of the objects the save deletes (Core Data's
  /// `willRemoveCacheNodes(_:)`); they leave ``cacheNodes()`` when it returns. The default does nothing.
  open func willRemoveCacheNodes(_ cacheNodes: Set<NSAtomicStoreCacheNode>) {}

  // MARK: - What the store gives a subclass

  /// The object ID for the object of `entity` that `data`, your reference object, names (Core Data's
  /// `objectID(for:withReferenceObject:)`): the same ID each time for the same entity and reference. Call it
  /// from ``load()`` (it reserves a primary key in the store's database), not from ``save()``.
  ///
  /// A reference object that is not `Hashable`, or an entity the store does not hold, is a programmer error.
  open func objectID(for entity: NSEntityDescription, withReferenceObject data: Any) -> NSManagedObjectID {
    lock.withLock {
      references.id(for: entity, reference: data, method: "objectID(for:withReferenceObject:)") { try reserveID(for: entity) }
    }
  }

  /// The reference object of the object `objectID` names (Core Data's `referenceObject(for:)`): the one given
  /// to ``objectID(for:withReferenceObject:)`` or returned by ``newReferenceObject(for:)``; `NSNull` for an
  /// ID this store did not make.
  open func referenceObject(for objectID: NSManagedObjectID) -> Any {
    lock.withLock { references.reference(for: objectID) }
  }

  /// Registers nodes (Core Data's `addCacheNodes(_:)`). Call it from ``load()``: when `load()` returns, the
  /// nodes registered become the objects the store's contexts fetch.
  open func addCacheNodes(_ cacheNodes: Set<NSAtomicStoreCacheNode>) {
    lock.withLock {
      for node in cacheNodes { nodes[node.objectID] = node }
      loading?.append(contentsOf: cacheNodes)
    }
  }

  /// Every registered node (Core Data's `cacheNodes()`).
  open func cacheNodes() -> Set<NSAtomicStoreCacheNode> {
    lock.withLock { Set(nodes.values) }
  }

  /// The node of the object `objectID` names, or `nil` (Core Data's `cacheNode(for:)`).
  open func cacheNode(for objectID: NSManagedObjectID) -> NSAtomicStoreCacheNode? {
    lock.withLock { nodes[objectID] }
  }

  // MARK: - The engine's side

  override var savesNeedObjects: Bool { true }

  override func loadContents() throws {
    lock.withLock { loading = [] }
    defer { lock.withLock { loading = nil } }
    try load()
    let added = lock.withLock { loading ?? [] }
    guard !added.isEmpty else { return }
    try loadRows(AtomicStoreRows.insertRequest(for: added))
  }

  override func customSaveWillBegin(_ request: StoreSaveRequest) throws -> AnyObject? {
    guard let objects = request.savedObjects else { return nil }
    var byID: [NSManagedObjectID: NSManagedObject] = [:]
    for case let object as NSManagedObject in objects.inserted { byID[object.objectID] = object }
    for case let object as NSManagedObject in objects.updated { byID[object.objectID] = object }
    let plan = AtomicSavePlan()
    do {
      for insert in request.inserts {
        guard let object = byID[insert.temporaryID] else { continue }
        guard !object.objectID.isTemporaryID else {
          throw ObjectGraphError(
            .persistentStoreSave,
            "\(object.objectID) reached the atomic store at \(url?.path ?? "(no URL)") without a permanent ID, which its cache node needs. Call obtainPermanentIDs(for:) on it, then save again. Nothing was saved.",
            url: url)
        }
        let reference = newReferenceObject(for: object)
        guard let key = reference as? AnyHashable else {
          throw ObjectGraphError(
            .persistentStoreSave,
            "newReferenceObject(for:) of \(Swift.type(of: self)) returned \(reference), which is not Hashable. Return a string, a number or a UUID. Nothing was saved.",
            url: url)
        }
        plan.references.append((object.objectID, StoreReferences.Key(entity: ObjectIdentifier(object.entity), reference: key)))
        plan.inserted.append(newCacheNode(for: object))
      }
      for update in request.updates {
        guard let object = byID[update.id], let node = cacheNode(for: update.id) else { continue }
        plan.updated.append((node, node.propertyCache.map(Self.copy)))
        updateCacheNode(node, from: object)
      }
    } catch {
      restore(plan)
      throw error
    }
    plan.deleted = request.deletes.compactMap { cacheNode(for: $0.id) }
    linkRelationships(plan, byID)
    return plan
  }

  override func customSaveWillCommit(_ request: StoreSaveRequest, result: StoreSaveResult, token: AnyObject) throws {
    guard let plan = token as? AtomicSavePlan else { return }
    lock.withLock {
      plan.applied = true
      for node in plan.inserted { nodes[node.objectID] = node }
      for (id, key) in plan.references { references.insert(id, key) }
    }
    if !result.refreshed.isEmpty { takeStoredValues(result.refreshed, plan) }
    if !plan.deleted.isEmpty {
      willRemoveCacheNodes(Set(plan.deleted))
      lock.withLock { for node in plan.deleted { nodes[node.objectID] = nil } }
    }
    try save()
  }

  override func customSaveDidFail(_ token: AnyObject) {
    guard let plan = token as? AtomicSavePlan else { return }
    restore(plan)
  }

  /// Puts the nodes back as they were before the save `plan` describes.
  private func restore(_ plan: AtomicSavePlan) {
    lock.withLock {
      if plan.applied {
        for node in plan.inserted where nodes[node.objectID] === node { nodes[node.objectID] = nil }
        for (id, key) in plan.references { references.remove(id, key) }
        for node in plan.deleted { nodes[node.objectID] = node }
        plan.applied = false
      }
      for (node, cache) in plan.updated { node.propertyCache = cache }
    }
  }

  /// Sets the relationships of the nodes a save makes or updates to the nodes of the objects' related objects
  /// (a to-one's node, a to-many's set, an ordered one's `NSOrderedSet`), as Core Data documents them: a node
  /// made for an object inserted in the same save is found too, whatever order the hooks ran in.
  private func linkRelationships(_ plan: AtomicSavePlan, _ objects: [NSManagedObjectID: NSManagedObject]) {
    let pending = Dictionary(plan.inserted.map { ($0.objectID, $0) }, uniquingKeysWith: { first, _ in first })
    func node(_ id: NSManagedObjectID) -> NSAtomicStoreCacheNode? { pending[id] ?? cacheNode(for: id) }
    for target in plan.inserted + plan.updated.map(\.node) {
      guard let object = objects[target.objectID] else { continue }
      for (name, relationship) in object.entity.relationshipsByName where !relationship.isTransient {
        let value = object.value(forKey: name)
        guard relationship.isToMany else {
          target.setValue((value as? NSManagedObject).flatMap { node($0.objectID) }, forKey: name)
          continue
        }
        let members: [NSManagedObject]
        switch value {
        case let set as Set<NSManagedObject>: members = Array(set)
        case let ordered as NSOrderedSet: members = ordered.array.compactMap { $0 as? NSManagedObject }
        case let set as NSSet: members = set.allObjects.compactMap { $0 as? NSManagedObject }
        case let array as [NSManagedObject]: members = array
        default: members = []
        }
        let nodes = members.compactMap { node($0.objectID) }
        target.setValue(relationship.isOrdered ? NSOrderedSet(array: nodes) : Set(nodes), forKey: name)
      }
    }
  }

  /// Where a merge policy kept the stored values of a row over the saved object's (a store-trump policy), the
  /// row's node takes the values the row now has, so that the file holds what the store does.
  private func takeStoredValues(_ refreshed: [NSManagedObjectID: RowSnapshot], _ plan: AtomicSavePlan) {
    for (id, snapshot) in refreshed {
      guard let target = cacheNode(for: id) else { continue }
      if !plan.updated.contains(where: { $0.node === target }) {
        plan.updated.append((target, target.propertyCache.map(Self.copy)))
      }
      for slot in id.entity.layout.slots where slot.isPersistent && slot.index < snapshot.values.count {
        let value = snapshot.values[slot.index]
        switch slot.kind {
        case .attribute: target.setValue(value?.boxedValue, forKey: slot.name)
        case .toOne: target.setValue(value?.objectID.flatMap { cacheNode(for: $0) }, forKey: slot.name)
        case .toMany:
          let members: [NSManagedObjectID]
          switch value {
          case .objectIDs(let set)?: members = Array(set)
          case .orderedObjectIDs(let ordered)?: members = ordered.list
          default: continue
          }
          let nodes = members.compactMap { cacheNode(for: $0) }
          target.setValue(slot.isOrdered ? NSOrderedSet(array: nodes) : Set(nodes), forKey: slot.name)
        }
      }
    }
  }

  /// A copy of a node's property cache, to put back when a save fails.
  private static func copy(_ cache: NSMutableDictionary) -> NSMutableDictionary {
    let copy = NSMutableDictionary()
    for key in cache.allKeys {
      guard let hashable = key as? AnyHashable, let value = cache.object(forKey: key) else { continue }
      copy.setObject(value, forKey: hashable)
    }
    return copy
  }

  /// What one save changes in the nodes, kept to undo it when the save fails.
  private final class AtomicSavePlan {
    var inserted: [NSAtomicStoreCacheNode] = []
    var references: [(NSManagedObjectID, StoreReferences.Key)] = []
    var updated: [(node: NSAtomicStoreCacheNode, cache: NSMutableDictionary?)] = []
    var deleted: [NSAtomicStoreCacheNode] = []
    var applied = false
  }
}
