import Dispatch
import Foundation
internal import Synchronization

/// Binds a model to its stores and serialises every access to them.
///
/// ```swift
/// let coordinator = NSPersistentStoreCoordinator(managedObjectModel: model)
/// try coordinator.addPersistentStore(type: .sqlite, at: storeURL)
/// let context = NSManagedObjectContext(concurrencyType: .mainQueueConcurrencyType)
/// context.persistentStoreCoordinator = coordinator
/// ```
///
/// Contexts never touch SQLite themselves; they ask the coordinator, which runs one request at a time
/// (each store additionally runs its statements on one serial connection). The first coordinator to use
/// a model freezes it.
///
/// The class and its stored state are declared here, in the store's layer, so that ``NSPersistentStore``'s
/// subclassing API (Core Data's `init(persistentStoreCoordinator:configurationName:at:options:)`,
/// `didAdd(to:)`, `willRemove(from:)`) can name it; everything the coordinator does is in `Coordinator/`.
public final class NSPersistentStoreCoordinator: Sendable, CustomStringConvertible {
  /// The model the coordinator's stores hold.
  public let managedObjectModel: NSManagedObjectModel
  var model: NSManagedObjectModel { managedObjectModel }
  let stores = Locked<[NSPersistentStore]>([])
  /// Serialises requests: one save or read at a time, as Core Data's coordinator does.
  let gate = NSRecursiveLock()
  /// Set while a fetch hands its rows to its context one by one, with `gate` held: the store is in the
  /// middle of a read, which SQLite (through GRDB) cannot re-enter. Only the thread holding `gate` reads
  /// or writes it.
  let streamingFetch = Atomic<Bool>(false)
  let loadQueue = DispatchQueue(label: "org.objectgraph.coordinator.load", attributes: .concurrent)
  /// Where ``perform(_:)`` runs its blocks, one after another.
  let performQueue = DispatchQueue(label: "org.objectgraph.coordinator.perform")
  /// The watchers of the stores added with ``NSPersistentStoreRemoteChangeNotificationPostOptionKey``, by
  /// store (PersistentStoreCoordinator+RemoteChange.swift).
  let remoteChangeWatchers = Locked<[ObjectIdentifier: StoreChangeWatcher]>([:])
  /// The stores inserted objects were assigned to with `NSManagedObjectContext.assign(_:to:)`, by their
  /// temporary IDs, until they are saved (PersistentStoreCoordinator+Assignment.swift).
  let assignments = Locked<[NSManagedObjectID: NSPersistentStore]>([:])
  /// How many of the stores added are of a class that needs the saved objects themselves (an `NSAtomicStore`
  /// subclass builds its cache nodes from them): while none is, a save hands the store rows only.
  let objectSavingStores = Atomic<Int>(0)
  /// The contexts to tell when a store is removed (Store/StoreRemovalListeners.swift).
  let storeRemovalListeners = StoreRemovalListeners()

  /// Makes a coordinator for `model`, freezing the model.
  public init(managedObjectModel: NSManagedObjectModel) {
    self.managedObjectModel = managedObjectModel
    managedObjectModel.freeze()
  }

  /// The stores added so far, in the order they were added.
  public var persistentStores: [NSPersistentStore] { stores.withLock { $0 } }

  let nameStorage = Locked<String?>(nil)

  /// A name for the coordinator, for your own logs and debugging (Core Data's `name`); `nil` until you set
  /// one. The engine prints it in ``description``. Safe to read and set from any thread.
  public var name: String? {
    get { nameStorage.withLock { $0 } }
    set { nameStorage.withLock { $0 = newValue } }
  }
}
