import Foundation
internal import Synchronization

/// An object of the graph: one instance of an entity, living in exactly one context.
///
/// Subclass it for typed properties that read as plainly as Core Data's `@NSManaged` ones:
///
/// ```swift
/// final class Note: NSManagedObject {
///   @ObjectGraphManaged var title: String?
///   @ObjectGraphManaged var createdAt: Date?
///   @ObjectGraphManaged var notebook: Notebook?
///   @ObjectGraphManaged var tags: Set<Tag>
/// }
/// let note = Note(context: context)
/// note.title = "Groceries"
/// ```
///
/// or use key-value access on any object: `note.value(forKey: "title")`.
///
/// A managed object is deliberately **not** `Sendable`: it belongs to its context's queue, and Swift 6
/// refuses to send one to another queue. Hand over its ``objectID`` instead and look the object up in the
/// other context. Only ``objectID``, ``managedObjectContext`` and ``entity`` may be read from any queue.
open class NSManagedObject: Hashable, CustomStringConvertible {
  /// The entity this object is an instance of.
  public let entity: NSEntityDescription
  let layout: EntityLayout

  /// Rule 1 lets any queue read `objectID` while a save on the context's queue replaces it, so it sits
  /// behind a small lock of its own, kept in the object: a fetch makes one object per row, and a lock in an
  /// allocation of its own would cost each of them a second allocation and a `pthread_mutex_t`. The lock
  /// is a flag taken with an atomic compare-and-exchange (acquiring) and given back with a releasing
  /// store, so ThreadSanitizer sees the order; it is held for a few instructions (or while an ID object
  /// is made), and a thread that finds it taken yields until it is free.
  /// `@exclusivity(unchecked)`: only touched inside ``withStoredID(_:)``, which holds the lock.
  @exclusivity(unchecked) private var storedID = StoredID.none
  private let storedIDLock = Atomic<Bool>(false)

  private func withStoredID<T>(_ body: (inout StoredID) -> T) -> T {
    while !storedIDLock.compareExchange(expected: false, desired: true, ordering: .acquiring).exchanged {
      _ = sched_yield()
    }
    defer { storedIDLock.store(false, ordering: .releasing) }
    return body(&storedID)
  }

  /// What the object knows of its ID: nothing yet (a temporary ID is made on first read), the ID, or the
  /// row it was fetched from (its permanent ID is made on first read; see ``RowSource``).
  enum StoredID {
    case none
    case id(NSManagedObjectID)
    case row(RowSource, primaryKey: Int64)
  }
  // `@exclusivity(unchecked)`: it is written only on the context's queue, and a weak reference's own
  // loads and stores are safe against each other; the run-time check (which sees one thread only) would
  // add nothing but its cost to every object a fetch makes.
  /// The object's context, or `nil` before insertion and after its deletion is saved.
  @exclusivity(unchecked) public internal(set) weak var managedObjectContext: NSManagedObjectContext?

  /// Current values, one per slot of the entity layout (valid once the fault is fulfilled).
  ///
  /// `@exclusivity(unchecked)` (here and on `snapshot`, `changedSlots`, `state`, `insertionPosition`): the
  /// object's state is only touched on its context's queue, one access at
  /// a time (concurrency debugging checks this), and none of the engine's code holds an `inout` access to
  /// it across a call that could touch it again; the run-time check costs more than a value read.
  @exclusivity(unchecked) var values: [StoredValue]
  /// The values as last read from (or saved to) the parent store, with the row version.
  @exclusivity(unchecked) var snapshot: RowSnapshot?
  /// Slots set since the last save or refresh.
  @exclusivity(unchecked) var changedSlots: Set<Int> = []
  /// For objects fetched with a batch size: the batch whose values are read together when one fires.
  var batch: FaultBatch?
  /// When the values a fault holds were read from the store (`DispatchTime` uptime in nanoseconds): a
  /// context's `stalenessInterval` decides whether firing the fault may still use them.
  @exclusivity(unchecked) var readAt: UInt64 = 0
  @exclusivity(unchecked) var state = State()
  /// Where the object sits in its context's list of inserted objects (`-1`: not in it).
  @exclusivity(unchecked) var insertionPosition = -1
  /// The slot whose `validateValue(_:forKey:)` hook runs now (`-1`: none): the default hook then finds its
  /// slot without a search by name.
  @exclusivity(unchecked) var validatingSlot = -1
  /// The results of the fetched properties read since the object last turned into a fault or was refreshed,
  /// by name (`nil`: none, the common case).
  @exclusivity(unchecked) var fetchedPropertyResults: [String: [Any]]?
  /// The values of the slots changed in the current event (since the context last posted objects-did-change),
  /// as they were before, for ``changedValuesForCurrentEvent()``; `nil`: none recorded.
  @exclusivity(unchecked) var eventChanges: EventChanges?

  /// The old values of one event: `event` is the context's event number when they were recorded, so a
  /// record from an earlier event reads as empty without a pass over the objects to clear it.
  struct EventChanges {
    var event: UInt64
    var old: [Int: StoredValue]
  }

  struct State {
    /// The object's values are not loaded, or loaded but not yet touched (a fault in Core Data's sense).
    var isFault = false
    /// Values still have to be read from the parent store when the fault fires.
    var needsLoad = false
    var isInserted = false
    /// An objects-did-change notification has listed the object as inserted (so later changes to it, still
    /// unsaved, are listed as updates).
    var wasAnnounced = false
    var isDeleted = false
    var isUpdated = false
    var awokeFromInsert = false
    /// The object's row was found missing when its fault fired.
    var isInaccessible = false
  }

  /// Makes an object of `entity`, inserting it into `context` when one is given.
  ///
  /// The object starts with the entity's default values and a temporary ID; `awakeFromInsert()` runs when
  /// it is inserted.
  public required init(entity: NSEntityDescription, insertInto context: NSManagedObjectContext?) {
    self.entity = entity
    layout = entity.layout
    values = layout.initialValues
    if let context { context.insert(self) }
  }

  /// Whether a context ignores changes to properties the model does not have (Core Data's class property,
  /// consulted by Objective-C key-value observing). Always `true` here: the engine records changes made
  /// through the model's properties only, and a subclass's own stored properties never make an object
  /// changed. Core Data's default is `true` too; overriding it changes nothing here.
  open class var contextShouldIgnoreUnmodeledPropertyChanges: Bool { true }

  /// Makes an object of the entity whose class is this subclass, in `context`'s model, and inserts it.
  ///
  /// The entity is the one whose `managedObjectClass` is `Self`, or else the entity named like the class.
  /// When none is found, this stops with a message: register the class or name the entity.
  public convenience init(context: NSManagedObjectContext) {
    guard let entity = context.entity(for: Self.self) else {
      programmerError(
        "ObjectGraph: no entity of the context's model uses class \(Self.self). Give the entity managedObjectClass \(Self.self), register it with NSManagedObjectModel.register(\(Self.self).self, forEntityName:), or use init(entity:insertInto:)."
      )
    }
    self.init(entity: entity, insertInto: context)
  }

  /// The object's ID: temporary until the object is first saved to a store.
  public var objectID: NSManagedObjectID {
    withStoredID { stored in
      let id: NSManagedObjectID
      switch stored {
      case .id(let known): return known
      case .row(let source, let primaryKey): id = source.makeID(primaryKey: primaryKey)
      case .none: id = NSManagedObjectID.temporary(for: entity)
      }
      stored = .id(id)
      return id
    }
  }

  /// A reader of the object's ID, for a predicate that names the object (see ``ObjectIDReference``).
  var objectIDReference: ObjectIDReference {
    let object = IDReader(object: self)
    return ObjectIDReference { object.currentID }
  }

  /// Holds an object for ``objectIDReference``, as Core Data's predicate holds the object it names.
  /// `@unchecked Sendable`: the only thing it reads of the object, from any queue, is the stored ID,
  /// under the object's ID lock (``withStoredID(_:)``), which rule 1 lets any queue do.
  private struct IDReader: @unchecked Sendable {
    let object: NSManagedObject

    /// The ID the object has been given or has made, or `nil` when it has none yet that it can tell
    /// without making one.
    var currentID: NSManagedObjectID? {
      object.withStoredID { stored in
        if case .id(let id) = stored { return id }
        return nil
      }
    }
  }

  func setObjectID(_ id: NSManagedObjectID) {
    withStoredID { $0 = .id(id) }
  }

  /// Gives a fetched object its row, from which it makes its permanent ID when first asked.
  func setRow(_ source: RowSource, primaryKey: Int64) {
    withStoredID { $0 = .row(source, primaryKey: primaryKey) }
  }

  /// Makes the object a fault that holds no values of its own: they are read again, from the row cache or
  /// the store, when it fires. Its values go back to the layout's shared initial array (no storage of the
  /// object's own, and every slot still readable by code that indexes it before firing).
  func releaseValues() {
    values = layout.initialValues
    fetchedPropertyResults = nil
    snapshot = nil
    changedSlots = []
    batch = nil
    state.isUpdated = false
    state.isFault = true
    state.needsLoad = true
  }

  /// Takes a row read from the store as its snapshot and values, with its unsaved changes kept on top (the
  /// merge of `refresh(_:mergeChanges: true)`).
  func takeRowKeepingChanges(_ fresh: RowSnapshot) {
    let local = changedSlots.map { ($0, values[$0]) }
    snapshot = fresh
    values = fresh.values
    for (index, value) in local { values[index] = value }
  }

  // MARK: - State

  // These are touched on the context's queue like any property (concurrency debugging checks them): Core
  // Data happens to tolerate `isFault` and `hasChanges` elsewhere, but rule 1 names only `objectID`,
  // `managedObjectContext` and `entity`, and here the state is plain memory the context's queue writes.

  /// Whether the object was inserted in its context and not yet saved.
  public var isInserted: Bool {
    ConcurrencyDebug.objectTouchedOffQueue(self, key: "isInserted")
    return state.isInserted
  }
  /// Whether the object has unsaved changes to its properties (and is not inserted or deleted).
  public var isUpdated: Bool {
    ConcurrencyDebug.objectTouchedOffQueue(self, key: "isUpdated")
    return state.isUpdated
  }
  /// Whether the object was deleted in its context and the deletion not yet saved.
  public var isDeleted: Bool {
    ConcurrencyDebug.objectTouchedOffQueue(self, key: "isDeleted")
    return state.isDeleted
  }
  /// Whether the object's values have not been loaded (or not yet touched) since it was fetched or refreshed.
  public var isFault: Bool {
    ConcurrencyDebug.objectTouchedOffQueue(self, key: "isFault")
    return state.isFault
  }
  /// Whether the object was inserted, updated or deleted and not yet saved.
  public var hasChanges: Bool {
    ConcurrencyDebug.objectTouchedOffQueue(self, key: "hasChanges")
    return state.isInserted || state.isUpdated || state.isDeleted
  }

  // MARK: - Lifecycle hooks

  /// Called once, when the object is first inserted into a context. Override to set up initial values.
  open func awakeFromInsert() {}
  /// Called when the object's values are loaded from the store. Override to derive transient state.
  open func awakeFromFetch() {}
  /// Called on each changed object before its context saves. Changes made here are saved too.
  open func willSave() {}
  /// Called when the object is turned back into a fault (refresh, reset).
  open func didTurnIntoFault() {}
  /// Called when the object's values were reset all at once, for the reasons in `flags` (Core Data's
  /// `awake(fromSnapshotEvents:)`): an undo or redo (`.undoUpdate`, `.undoInsertion`, `.undoDeletion`),
  /// `rollback()` (`.rollback`), or a refresh that kept the object's values (`.refresh`). Override to derive
  /// transient state again, as in ``awakeFromFetch()``. Runs on the context's queue, after the values changed.
  open func awake(fromSnapshotEvents flags: NSSnapshotEventType) {}
  /// Called just before the object is turned into a fault, while its values can still be read.
  open func willTurnIntoFault() {}
  /// Called when the object is about to be deleted: when its context processes the deletion (at the end
  /// of the `perform` block, or at the start of `save()`), before the delete rules change its
  /// relationships, so it can still read them.
  open func prepareForDeletion() {}
  /// Called on each inserted, updated and deleted object after its context's save succeeded, before the
  /// context posts its did-save notification.
  open func didSave() {}

  // MARK: - Access and change notifications

  /// Called by a custom accessor before it reads a value; fires the fault, as Core Data's does, so the
  /// value is there to read. ObjectGraph has no key-value observing, so the pair exists for ported
  /// accessors.
  open func willAccessValue(forKey key: String?) {
    if let key { fireFault(key: key) } else { fireFault(key: layout.slots.first?.name ?? "") }
  }

  /// Called by a custom accessor after it has read a value. Does nothing here (no key-value observing).
  open func didAccessValue(forKey key: String?) {}

  /// Called before a value changes; fires the fault, as Core Data's does, so the change is made to loaded
  /// values.
  open func willChangeValue(forKey key: String) {
    fireFault(key: key)
  }

  /// Called after a value changed. Does nothing here: `setValue(_:forKey:)` has recorded the change
  /// already, and there is no key-value observing.
  open func didChangeValue(forKey key: String) {}

  /// The value of a key the entity does not have (Core Data's `value(forUndefinedKey:)`): override it to
  /// answer the computed properties of your subclass by key. Key-value coding finds them by itself in
  /// Core Data; there is no Objective-C runtime to ask here, so the class says which keys it answers.
  ///
  /// ```swift
  /// final class Book: NSManagedObject {
  ///   @ObjectGraphManaged var title: String
  ///   var firstInitial: String { title.first.map { String($0).uppercased() } ?? "" }
  ///
  ///   override func value(forUndefinedKey key: String) throws -> Any? {
  ///     key == "firstInitial" ? firstInitial : try super.value(forUndefinedKey: key)
  ///   }
  /// }
  /// ```
  ///
  /// Every read by key that does not go to SQL asks it after the model's properties: ``value(forKey:)``,
  /// a fetched results controller's `sectionNameKeyPath` (`"firstInitial"` sections books by their first
  /// letter), key paths evaluated in memory (`NSPredicate.evaluate(with:substitutionVariables:)`, a
  /// sort of objects already fetched), and the rest of a key path through the object it returns. A key
  /// of the model never reaches it, so model properties are read as fast as without it. A fetch's
  /// predicate or sort runs in SQLite and cannot use a computed key (Core Data refuses it too).
  ///
  /// - Returns: the value, `nil` included; a managed object may be returned to follow a key path further.
  /// - Throws: ``ObjectGraphUnknownKeyError`` (what this implementation does) for a key the class
  ///   does not answer either; ``value(forKey:)`` then stops the program with that message, as Core Data
  ///   raises for an unknown key, and a fetched results controller's ``NSFetchedResultsController/performFetch()``
  ///   throws it.
  open func value(forUndefinedKey key: String) throws -> Any? {
    throw ObjectGraphError(
      .unknownKey,
      "Entity \(entity.entityName) has no property '\(key)'. Its properties: \(layout.slots.map(\.name).joined(separator: ", ")). A computed property of \(type(of: self)) is read by key when the class overrides value(forUndefinedKey:) to answer it."
    )
  }

  // MARK: - Validation

  /// Checks one property's value against the model's rules: required, minimum and maximum, regular
  /// expression (attributes); required (to-one); minimum and maximum count (to-many, given a collection).
  ///
  /// This is also the per-key hook: Core Data calls `validate<Key>(_:)` methods it finds by name, which
  /// Swift cannot look up, so override this method, check the keys you care about, and call `super`:
  ///
  /// ```swift
  /// override func validateValue(_ value: inout Any?, forKey key: String) throws {
  ///   if key == "title", let title = value as? String, title.hasPrefix(" ") {
  ///     throw ObjectGraphError(.managedObjectValidation, "A note's title may not start with a space.")
  ///   }
  ///   try super.validateValue(&value, forKey: key)
  /// }
  /// ```
  ///
  /// A save calls it for every attribute and to-one relationship of each inserted and updated object,
  /// through ``validateForInsert()`` and ``validateForUpdate()``; a value it replaces is not saved (call
  /// it yourself before setting a value to coerce one).
  /// - Throws: the broken rule's ``ObjectGraphError`` (1570, 1580, 1590, 1610–1680), naming the object and
  ///   the property; ``ObjectGraphUnknownKeyError`` for a key the entity does not have.
  open func validateValue(_ value: inout Any?, forKey key: String) throws {
    try validateModelRules(value, forKey: key)
  }

  /// Checks the object before its first save: every property, through ``validateValue(_:forKey:)``.
  /// Override to check several properties together, calling `super` first.
  /// - Throws: the one broken rule's error, or 1560 (``NSValidationMultipleErrorsError``)
  ///   listing them all.
  open func validateForInsert() throws {
    try validateProperties()
  }

  /// Checks a changed object before a save, as ``validateForInsert()`` does.
  open func validateForUpdate() throws {
    try validateProperties()
  }

  /// Checks that the object may be deleted: no relationship with the Deny rule still holds an object
  /// (1600). Override to add conditions, calling `super` first.
  open func validateForDelete() throws {
    try validateDeleteRules()
  }

  // MARK: - Hashable (identity, as NSObject's)

  public static func == (lhs: NSManagedObject, rhs: NSManagedObject) -> Bool { lhs === rhs }
  public func hash(into hasher: inout Hasher) { hasher.combine(ObjectIdentifier(self)) }
  /// What sets and dictionaries call to place an object: its address mixed with the table's seed
  /// (``SplitMix``) instead of a full `Hasher` run (the did-change and did-save sets of a big import).
  public final func _rawHashValue(seed: Int) -> Int {
    SplitMix.mix(UInt64(UInt(bitPattern: ObjectIdentifier(self))) ^ UInt64(bitPattern: Int64(seed)))
  }

  open var description: String {
    let id: String =
      switch withStoredID({ $0 }) {
      case .id(let id): id.description
      case .row(let source, let primaryKey): source.makeID(primaryKey: primaryKey).description
      case .none: "(no ID yet)"
      }
    return "<\(type(of: self)): \(entity.entityName) \(id)\(state.isFault ? " fault" : "")>"
  }
}
