import Dispatch
import Foundation
internal import Synchronization

// `@unchecked Sendable`: the only stored state that is not itself Sendable is `confined`, and every read or
// write of it happens on the context's queue: `isolated(_:_:)` runs inline only when `isOnQueue` holds and
// otherwise goes through `performAndWait`, which serialises on that queue. The rest is `let` or behind a lock (`Locked`);
// `Settings.userInfo` holds values that need not be Sendable, guarded by that lock (see `userInfo`).
/// A scratch pad of managed objects: you fetch, insert, change and delete objects in a context, and
/// nothing reaches the store until the context saves.
///
/// ```swift
/// let context = NSManagedObjectContext(concurrencyType: .privateQueueConcurrencyType)
/// context.persistentStoreCoordinator = coordinator
/// try context.performAndWait {
///   let note = Note(context: context)
///   note.title = "Hello"
///   try context.save()
/// }
/// ```
///
/// Every context runs its work on one queue: `.mainQueueConcurrencyType` on `DispatchQueue.main`,
/// `.privateQueueConcurrencyType` on a serial queue of its own. Touch a context and its objects only on that queue: inside `perform(_:)` or
/// ``performAndWait(_:)``, or (for a main-queue context) on the main queue. The engine guards the
/// context's own bookkeeping when it is called from elsewhere by hopping onto the queue, but it cannot
/// guard objects you hold; turn on concurrency debugging (`OBJECTGRAPH_CONCURRENCY_DEBUG=1`) to be told
/// at once of every access from the wrong queue.
///
/// The context itself is `Sendable` (its methods may be called from any queue); its objects are not.
public final class NSManagedObjectContext: NSObject, @unchecked Sendable {
  /// How a context runs its work, in Swift's newer spelling (Core Data's `NSManagedObjectContext.ConcurrencyType`):
  /// a wrapper around ``NSManagedObjectContextConcurrencyType``, for ``init(_:)``.
  ///
  /// ```swift
  /// let context = NSManagedObjectContext(.privateQueue)   // the same as concurrencyType: .privateQueueConcurrencyType
  /// ```
  public struct ConcurrencyType: RawRepresentable, Sendable, Hashable {
    /// The concurrency type as ``NSManagedObjectContextConcurrencyType`` names it.
    public var rawValue: NSManagedObjectContextConcurrencyType

    /// Wraps an ``NSManagedObjectContextConcurrencyType``.
    public init(rawValue: NSManagedObjectContextConcurrencyType) {
      self.rawValue = rawValue
    }

    /// On a serial queue the context owns (``NSManagedObjectContextConcurrencyType/privateQueueConcurrencyType``).
    public static let privateQueue = ConcurrencyType(rawValue: .privateQueueConcurrencyType)
    /// On the main queue (``NSManagedObjectContextConcurrencyType/mainQueueConcurrencyType``).
    public static let mainQueue = ConcurrencyType(rawValue: .mainQueueConcurrencyType)
  }

  /// How the context runs its work.
  public let concurrencyType: NSManagedObjectContextConcurrencyType
  let queue: ContextQueue
  /// The state only ever touched on the context's queue (see ``isolated(_:)``).
  let confined: Confined
  let settings: Locked<Settings>
  /// Whether this context has ever replaced a temporary ID a child may still use (``Confined/reverseAliases``
  /// is not empty). Readable from any queue, so a child asks its parent about a twin only when one can
  /// exist, instead of waiting for the parent's queue once per row.
  let hasReplacedTemporaryIDs = Locked(false)

  struct Settings {
    var name: String?
    var transactionAuthor: String?
    var coordinator: NSPersistentStoreCoordinator?
    var parent: NSManagedObjectContext?
    /// What ``mergePolicy`` was set to (`Any`, as Core Data types it; an ``NSMergePolicy`` unless code set
    /// something else, which a save then refuses). Guarded by the lock around `Settings`, as `userInfo` is.
    var mergePolicy: Any = NSMergePolicy.error
    var automaticallyMergesChangesFromParent = false
    /// Not `Sendable` (see ``userInfo``): the lock around `Settings` guards the dictionary.
    var userInfo: [AnyHashable: Any] = [:]
    var mergeObserver: ObserverToken?
    var shouldDeleteInaccessibleFaults = true
    var propagatesDeletesAtEndOfEvent = true
    var stalenessInterval: TimeInterval = -1
    /// Some context has had this one as its parent: saves must remember which temporary IDs they
    /// replaced, since a child may still name objects by them.
    var hasHadChildren = false
    /// The query generation a root context is pinned to, which it reads through; `nil` when unpinned
    /// (ManagedObjectContext+QueryGeneration.swift).
    var queryGenerationPin: QueryGenerationPin?
    /// The undo manager changes are recorded with (see ``undoManager``); not `Sendable`, guarded by the lock
    /// around `Settings` as `userInfo` is, and used on the context's queue only.
    var undoManager: UndoManager?
    /// The observer of the undo manager's checkpoints.
    var undoObserver: ObserverToken?
  }

  /// Makes a context. Give it a ``persistentStoreCoordinator`` (or, later, a parent) before using it.
  ///
  /// ```swift
  /// let background = NSManagedObjectContext(concurrencyType: .privateQueueConcurrencyType)
  /// ```
  public init(concurrencyType: NSManagedObjectContextConcurrencyType) {
    self.concurrencyType = concurrencyType
    let label = "org.objectgraph.context.\(UUID().uuidString.prefix(8))"
    queue = ContextQueue(main: concurrencyType == .mainQueueConcurrencyType, label: label)
    settings = Locked(Settings())
    confined = Confined()
    super.init()
    FetchRequestArchiving.register()
    DebugBanner.announceSwitchesOn()
  }

  /// Makes a context with the newer spelling of its concurrency type (`NSManagedObjectContext(.mainQueue)`);
  /// the same as ``init(concurrencyType:)`` with the type's raw value.
  public convenience init(_ type: NSManagedObjectContext.ConcurrencyType) {
    self.init(concurrencyType: type.rawValue)
  }

  deinit {
    if settings.withLock({ $0.stalenessInterval >= 0 }) { Self.contextsLimitingStaleness.subtract(1, ordering: .relaxed) }
    if let observer = settings.withLock({ $0.mergeObserver }) { NotificationCenter.default.removeObserver(observer.token) }
    let (undoManager, undoObserver) = settings.withLock { ($0.undoManager, $0.undoObserver) }
    if undoManager != nil { Self.contextsWithUndoManagers.subtract(1, ordering: .relaxed) }
    if let undoObserver { NotificationCenter.default.removeObserver(undoObserver.token) }
  }

  // MARK: - Configuration

  /// A name for logs and concurrency-debug messages, and the context name of the persistent history
  /// transactions its saves make.
  public var name: String? {
    get { settings.withLock { $0.name } }
    set { settings.withLock { $0.name = newValue } }
  }

  /// Who this context's saves (and batch requests) are by, in persistent history (Core Data's
  /// `transactionAuthor`): `"app"`, `"widget"`, `"importer"`. Lets a reader of the history skip its own
  /// transactions.
  public var transactionAuthor: String? {
    get { settings.withLock { $0.transactionAuthor } }
    set { settings.withLock { $0.transactionAuthor = newValue } }
  }

  /// The coordinator this context reads from and saves to.
  public var persistentStoreCoordinator: NSPersistentStoreCoordinator? {
    get { settings.withLock { $0.coordinator ?? $0.parent?.persistentStoreCoordinator } }
    set {
      settings.withLock {
        $0.coordinator = newValue
        if newValue != nil { $0.parent = nil }
        if $0.queryGenerationPin?.coordinator !== newValue { $0.queryGenerationPin = nil }
      }
      newValue?.model.freeze()
      listenForStoreRemovals(from: newValue)
    }
  }

  /// The context this one saves into instead of a coordinator (nested contexts).
  public var parent: NSManagedObjectContext? {
    get { settings.withLock { $0.parent } }
    set {
      settings.withLock {
        $0.parent = newValue
        if newValue != nil {
          $0.coordinator = nil
          $0.queryGenerationPin = nil
        }
      }
      newValue?.settings.withLock { $0.hasHadChildren = true }
      listenForStoreRemovals(from: newValue?.persistentStoreCoordinator)
    }
  }

  /// How a save resolves rows changed elsewhere since this context read them: an ``NSMergePolicy``. Default:
  /// ``NSErrorMergePolicy`` (``NSMergePolicy/error``).
  ///
  /// ```swift
  /// context.mergePolicy = NSMergeByPropertyObjectTrumpMergePolicy   // or NSMergePolicy.mergeByPropertyObjectTrump
  /// let type = (context.mergePolicy as? NSMergePolicy)?.mergeType   // .mergeByPropertyObjectTrumpMergePolicyType
  /// ```
  ///
  /// Typed `Any`, as in Core Data, so any value can be set, and the getter gives back what was set. A value
  /// that is not an ``NSMergePolicy`` (an ``NSMergePolicyType``, say) changes nothing until the context saves
  /// changes to the store (not to a parent context): that save fails with ``NSCoreDataError``
  /// (134060) naming the value, and nothing is written (Core Data stops the program there instead).
  public var mergePolicy: Any {
    get { settings.withLock { $0.mergePolicy } }
    set { settings.withLock { $0.mergePolicy = newValue } }
  }

  /// Whether saves of the parent context are merged into this one automatically.
  public var automaticallyMergesChangesFromParent: Bool {
    get { settings.withLock { $0.automaticallyMergesChangesFromParent } }
    set {
      let changed = settings.withLock { state -> Bool in
        defer { state.automaticallyMergesChangesFromParent = newValue }
        return state.automaticallyMergesChangesFromParent != newValue
      }
      if changed { updateAutomaticMerging(newValue) }
    }
  }

  /// What happens when a fault's row turns out to be gone (deleted by another context, say). `true` (the
  /// default, as in Core Data since iOS 9): the object is marked deleted and reads as empty (`nil`
  /// attributes, no related objects). `false`: the access stops the program, as older Core Data raised
  /// "could not fulfill a fault". Either way, `existingObject(with:)` is the way to ask whether an object
  /// still exists.
  public var shouldDeleteInaccessibleFaults: Bool {
    get { settings.withLock { $0.shouldDeleteInaccessibleFaults } }
    set { settings.withLock { $0.shouldDeleteInaccessibleFaults = newValue } }
  }

  /// Whether the context keeps every object it has registered, referenced or not. Default `false`.
  ///
  /// With `false` (Core Data's default), an unchanged object that nothing but the context references leaves
  /// it (the next fetch or lookup makes a new instance from the row); objects with unsaved changes stay
  /// until they are saved or rolled back. With `true` every registered object stays until ``reset()``, at
  /// the cost of memory: use it when code identifies objects by instance across fetches it does not hold.
  public var retainsRegisteredObjects: Bool {
    get { confined.retainsAll.load(ordering: .relaxed) }
    set { confined.retainsAll.store(newValue, ordering: .relaxed) }
  }

  /// How old, in seconds, the values a fault holds from an earlier read may be when the fault fires; older
  /// ones are read again from the store. Default `-1`: any negative value means cached values are used
  /// however old they are. `0` means a fault always reads its row afresh.
  ///
  /// It applies to faults only: values fetched with the objects (``NSFetchRequest/returnsObjectsAsFaults``)
  /// and prefetched rows waiting for their objects. An object already fired keeps its values; use
  /// ``refresh(_:mergeChanges:)`` or ``NSFetchRequest/shouldRefreshRefetchedObjects`` to bring it up to date.
  public var stalenessInterval: TimeInterval {
    get { settings.withLock { $0.stalenessInterval } }
    set {
      let wasLimited = settings.withLock { state -> Bool in
        defer { state.stalenessInterval = newValue }
        return state.stalenessInterval >= 0
      }
      if wasLimited != (newValue >= 0) { Self.contextsLimitingStaleness.add(newValue >= 0 ? 1 : -1, ordering: .relaxed) }
    }
  }

  /// How many live contexts have a non-negative ``stalenessInterval``: while there are none, firing a
  /// fault does not look at its context's interval.
  private static let contextsLimitingStaleness = Atomic<Int>(0)

  static var someContextLimitsStaleness: Bool { contextsLimitingStaleness.load(ordering: .relaxed) > 0 }

  /// Whether values read at `readAt` (`DispatchTime` uptime nanoseconds) are too old for a fault to use.
  func isStale(_ readAt: UInt64) -> Bool {
    let interval = settings.withLock { $0.stalenessInterval }
    guard interval >= 0 else { return false }
    let age = Double(DispatchTime.now().uptimeNanoseconds &- readAt) / 1_000_000_000
    return age >= interval
  }

  /// Free-form values an app attaches to the context (Core Data's `userInfo` dictionary): any value, a
  /// cache of objects included (`context.userInfo["cache"] = cache`).
  ///
  /// Its values need not be `Sendable`, as the values of Core Data's mutable dictionary need not be. The
  /// dictionary itself is safe to read and write from any queue (it sits behind the context's settings
  /// lock, so setting a key right after making a context, before any `perform`, works as in Core Data).
  /// The values are handed out as they are, not copied: one that is not `Sendable` (a cache of objects)
  /// must be used where the context's objects are, on the context's queue, which is where Core Data's
  /// rules put such values too.
  public var userInfo: [AnyHashable: Any] {
    get { settings.withLock { $0.userInfo } }
    set { settings.withLock { $0.userInfo = newValue } }
  }

  /// What the context reads from and saves to: its parent context when it has one, else its coordinator
  /// (through the query generation it is pinned to, when it is).
  func parentStore() throws -> any ObjectStore {
    let (coordinator, parent, pin) = settings.withLock { ($0.coordinator, $0.parent, $0.queryGenerationPin) }
    if let parent { return parent }
    if let pin { return pin }
    guard let coordinator else {
      throw ObjectGraphError(
        .noPersistentStore,
        "Context \(displayName) has no persistent store coordinator. Set context.persistentStoreCoordinator (or a parent context) before fetching or saving."
      )
    }
    return coordinator
  }

  var model: NSManagedObjectModel? { persistentStoreCoordinator?.model }

  /// The entity whose class is `type` (or named like it), in the coordinator's model.
  func entity(for type: NSManagedObject.Type) -> NSEntityDescription? {
    model?.entity(forClass: type)
  }

  var displayName: String {
    let kind = concurrencyType == .mainQueueConcurrencyType ? "main-queue" : "private-queue"
    if let name { return "'\(name)' (\(kind))" }
    return "\(kind) context \(queue.mark.label)"
  }

  public override var description: String { "<NSManagedObjectContext \(displayName)>" }

  // MARK: - Running work on the context's queue

  /// Whether the calling code is on this context's queue (or inside its `performAndWait`).
  var isOnQueue: Bool { queue.isCurrent(context: ObjectIdentifier(self)) }

  /// Runs `block` asynchronously on the context's queue and returns at once.
  ///
  /// Use it from any queue to touch the context and its objects. Pending changes are processed when the
  /// block ends.
  public func perform(_ block: @escaping @Sendable () -> Void) {
    let id = ObjectIdentifier(self)
    queue.dispatchQueue.async {
      ThreadRecord.with([id], running: id) {
        block()
        self.processPendingChangesQuietly()
      }
    }
  }

  /// Runs `block` on the context's queue and waits for it; returns what the block returns.
  ///
  /// It is re-entrant: called while already on the context's queue, it runs the block inline. Nested
  /// across a parent and its child, it runs inline too instead of deadlocking.
  public func performAndWait<T>(_ block: () throws -> T) rethrows -> T {
    let id = ObjectIdentifier(self)
    if isOnQueue {
      let stack = ThreadRecord.current
      if stack.contains(id) { return try ThreadRecord.with(stack, running: id, block) }
      // The outermost block of this context on the stack: the end of an event for its undo manager.
      defer { if Self.someContextRecordsUndo { endUndoEventGroup() } }
      return try ThreadRecord.with(stack + [id], running: id, block)
    }
    let carried = ContextQueue.recordForHop(adding: id)
    return try queue.dispatchQueue.sync {
      defer { if Self.someContextRecordsUndo { endUndoEventGroup() } }
      return try ThreadRecord.with(carried, running: id, block)
    }
  }

  /// Runs `block` on the context's queue and returns its result to the awaiting task; a block that cannot
  /// throw is awaited without `try`, as Core Data's `rethrows` form is.
  ///
  /// The result need not be `Sendable`: it is `sending`, so a block may return the managed objects it
  /// fetched (`let notes = try await context.perform { try context.fetch(request) }`), as with Core Data;
  /// touch them on the context's queue only. `schedule` is Core Data's: both kinds run the block on the
  /// context's queue after the work already queued there (see ``ScheduledTaskType``).
  public func perform<T>(
    schedule: NSManagedObjectContext.ScheduledTaskType = .immediate, _ block: @escaping @Sendable () -> sending T
  ) async -> sending T {
    let id = ObjectIdentifier(self)
    return await withCheckedContinuation { continuation in
      queue.dispatchQueue.async {
        ThreadRecord.with([id], running: id) {
          continuation.resume(returning: block())
          self.processPendingChangesQuietly()
        }
      }
    }
  }

  /// Runs `block` on the context's queue and returns its result to the awaiting task, or throws what it threw.
  public func perform<T>(
    schedule: NSManagedObjectContext.ScheduledTaskType = .immediate, _ block: @escaping @Sendable () throws -> sending T
  ) async throws -> sending T {
    let id = ObjectIdentifier(self)
    return try await withCheckedThrowingContinuation { continuation in
      queue.dispatchQueue.async {
        ThreadRecord.with([id], running: id) {
          continuation.resume(with: Result { try block() })
          self.processPendingChangesQuietly()
        }
      }
    }
  }

  /// Runs an engine entry point on the context's queue: inline when already there, else through
  /// `performAndWait`, after the concurrency-debug check.
  func isolated<T>(_ operation: StaticString, _ body: (Confined) throws -> T) rethrows -> T {
    if isOnQueue { return try body(confined) }
    ConcurrencyDebug.contextTouchedOffQueue(self, operation: "\(operation)")
    return try performAndWait { try body(confined) }
  }
}
