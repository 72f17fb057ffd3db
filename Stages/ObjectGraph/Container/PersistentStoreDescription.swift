import Foundation

/// How an ``NSPersistentContainer`` adds one store: its type, file, configuration and options (Core Data's
/// `NSPersistentStoreDescription`).
///
/// ```swift
/// let description = NSPersistentStoreDescription(url: folder.appendingPathComponent("Notes.sqlite"))
/// description.shouldAddStoreAsynchronously = true
/// container.persistentStoreDescriptions = [description]
/// ```
///
/// A reference type, changed in place as Core Data's is (`container.persistentStoreDescriptions.first?.url
/// = …`), and safe to read from the queue the container's load reports on: every property sits behind a
/// lock.
public final class NSPersistentStoreDescription: Sendable, CustomStringConvertible {
  private struct State {
    var type: NSPersistentStore.StoreType = .sqlite
    var url: URL?
    var configuration: String?
    var options = StoreOptions()
    var shouldAddStoreAsynchronously = false
  }

  private let state: Locked<State>

  /// A description of a SQLite store at `url` (`/dev/null`, as Core Data's idiom for a store in memory,
  /// makes an in-memory store).
  public init(url: URL) {
    var state = State()
    state.url = url
    if url.path == "/dev/null" { state.type = .inMemory }
    self.state = Locked(state)
  }

  /// A description of a SQLite store with no file yet: set ``url`` before loading.
  public init() {
    state = Locked(State())
  }

  private init(state: State) {
    self.state = Locked(state)
  }

  /// A new description with this one's type, file, configuration and options (Core Data's descriptions are
  /// `NSCopying`: apps copy the container's default one and change the copy for a second store). Changing
  /// either afterwards leaves the other as it is.
  public func copy() -> Any {
    NSPersistentStoreDescription(state: state.withLock { $0 })
  }

  /// The store's type. Default `.sqlite`.
  public var type: NSPersistentStore.StoreType {
    get { state.withLock(\.type) }
    set { state.withLock { $0.type = newValue } }
  }
  /// The store file (for `.sqlite` and `.binary`).
  public var url: URL? {
    get { state.withLock(\.url) }
    set { state.withLock { $0.url = newValue } }
  }
  /// The model configuration the store holds; `nil` for every entity.
  public var configuration: String? {
    get { state.withLock(\.configuration) }
    set { state.withLock { $0.configuration = newValue } }
  }
  /// Whether ``NSPersistentContainer/loadPersistentStores(completionHandler:)`` returns at once and adds
  /// the store on a background queue. Default `false`: the store is added before the call returns.
  public var shouldAddStoreAsynchronously: Bool {
    get { state.withLock(\.shouldAddStoreAsynchronously) }
    set { state.withLock { $0.shouldAddStoreAsynchronously = newValue } }
  }
  /// Whether an older store is migrated when it is added. Default `true`.
  public var shouldMigrateStoreAutomatically: Bool {
    get { state.withLock(\.options.migratePersistentStoresAutomatically) }
    set { state.withLock { $0.options.migratePersistentStoresAutomatically = newValue } }
  }
  /// Whether the migration may be inferred from the two models. Default `true`.
  public var shouldInferMappingModelAutomatically: Bool {
    get { state.withLock(\.options.inferMappingModelAutomatically) }
    set { state.withLock { $0.options.inferMappingModelAutomatically = newValue } }
  }
  /// Whether the store is opened read-only. Default `false`.
  public var isReadOnly: Bool {
    get { state.withLock(\.options.readOnly) }
    set { state.withLock { $0.options.readOnly = newValue } }
  }
  /// SQLite pragmas run when the store opens (`["journal_mode": "DELETE"]`).
  public var sqlitePragmas: [String: String] {
    get { state.withLock(\.options.sqlitePragmas) }
    set { state.withLock { $0.options.sqlitePragmas = newValue } }
  }

  /// Whether the store records persistent history (Core Data's `NSPersistentHistoryTrackingKey` option).
  /// Default `false`.
  public var persistentHistoryTracking: Bool {
    get { state.withLock(\.options.persistentHistoryTracking) }
    set { state.withLock { $0.options.persistentHistoryTracking = newValue } }
  }

  /// All the options, as ``NSPersistentStoreCoordinator/addPersistentStore(type:configuration:at:options:)``
  /// takes them.
  public var options: StoreOptions {
    get { state.withLock(\.options) }
    set { state.withLock { $0.options = newValue } }
  }

  public var description: String {
    "<NSPersistentStoreDescription \(type.rawValue) \(url?.path ?? "(no file)")>"
  }
}
