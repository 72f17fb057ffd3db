import Foundation

/// How an ``NSPersistentContainer`` adds one store: its type, file, configuration and options (Core Data's
/// `NSPersistentStoreDescription`).
///
/// ```swift
/// let description = NSPersistentStoreDescription(url: folder.appendingPathComponent("Notes.sqlite"))
/// description.shouldAddStoreAsynchronously = true
/// description.setOption(true as NSNumber, forKey: NSPersistentHistoryTrackingKey)
/// container.persistentStoreDescriptions = [description]
/// ```
///
/// A reference type, changed in place as Core Data's is (`container.persistentStoreDescriptions.first?.url
/// = …`), and safe to read from the queue the container's load reports on: every property sits behind a
/// lock.
public final class NSPersistentStoreDescription: Sendable, CustomStringConvertible {
  private struct State {
    var type = NSSQLiteStoreType
    var url: URL?
    var configuration: String?
    /// Core Data's options, with the engine's own (closures, models) beside them.
    var options: [String: Any] = [
      NSMigratePersistentStoresAutomaticallyOption: true as NSNumber,
      NSInferMappingModelAutomaticallyOption: true as NSNumber,
    ]
    var pragmas: [String: NSObject] = [:]
    var shouldAddStoreAsynchronously = false
  }

  /// Every value sits behind this lock; the options' values are only read and replaced whole, never
  /// changed in place, so handing them across threads is safe.
  private let state: Locked<State>

  /// A description of a SQLite store at `url` (`/dev/null`, as Core Data's idiom for a store in memory,
  /// makes an in-memory store).
  public init(url: URL) {
    var state = State()
    state.url = url
    if url.path == "/dev/null" { state.type = NSInMemoryStoreType }
    self.state = Locked(state)
  }

  /// A description of a SQLite store at `url`, Core Data's Objective-C spelling of ``init(url:)``
  /// (`initWithURL:`, `persistentStoreDescriptionWithURL:`), for code ported from it.
  public convenience init(URL url: URL) {
    self.init(url: url)
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

  /// The store's type string: `NSSQLiteStoreType` (the default), `NSInMemoryStoreType` or
  /// `NSBinaryStoreType`.
  public var type: String {
    get { state.withLock(\.type) }
    set { state.withLock { $0.type = newValue } }
  }
  /// The store file (for SQLite and binary stores).
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
  /// Whether an older store is migrated when it is added (the `NSMigratePersistentStoresAutomaticallyOption`
  /// option). Default `true`.
  public var shouldMigrateStoreAutomatically: Bool {
    get { flag(NSMigratePersistentStoresAutomaticallyOption) }
    set { setOption(newValue as NSNumber, forKey: NSMigratePersistentStoresAutomaticallyOption) }
  }
  /// Whether the migration may be inferred from the two models (the `NSInferMappingModelAutomaticallyOption`
  /// option). Default `true`.
  public var shouldInferMappingModelAutomatically: Bool {
    get { flag(NSInferMappingModelAutomaticallyOption) }
    set { setOption(newValue as NSNumber, forKey: NSInferMappingModelAutomaticallyOption) }
  }
  /// Whether the store is opened read-only (the `NSReadOnlyPersistentStoreOption` option). Default `false`.
  public var isReadOnly: Bool {
    get { flag(NSReadOnlyPersistentStoreOption) }
    set { setOption(newValue as NSNumber, forKey: NSReadOnlyPersistentStoreOption) }
  }

  /// How long, in seconds, the store's connection waits for a lock another connection (another process)
  /// holds before a request fails with the store busy (the `NSPersistentStoreTimeoutOption` option, Core
  /// Data's `timeout`). Default 10 seconds, the engine's SQLite busy timeout; setting it sets the option.
  public var timeout: TimeInterval {
    get {
      state.withLock { state in
        (state.options[NSPersistentStoreTimeoutOption] as? NSNumber)?.doubleValue
          ?? (state.options[NSPersistentStoreTimeoutOption] as? TimeInterval) ?? 10
      }
    }
    set { setOption(newValue as NSNumber, forKey: NSPersistentStoreTimeoutOption) }
  }

  private func flag(_ key: String) -> Bool {
    state.withLock { ($0.options[key] as? NSNumber)?.boolValue ?? ($0.options[key] as? Bool) ?? false }
  }

  /// The SQLite pragmas run when the store opens, set with ``setValue(_:forPragmaNamed:)``.
  public var sqlitePragmas: [String: NSObject] { state.withLock(\.pragmas) }

  /// Sets a SQLite pragma run when the store opens (`setValue("DELETE" as NSString, forPragmaNamed:
  /// "journal_mode")`); `nil` removes it.
  public func setValue(_ value: NSObject?, forPragmaNamed name: String) {
    state.withLock { $0.pragmas[name] = value }
  }

  /// The store's options, as Core Data's keys name them (the engine's own options that are not objects,
  /// such as ``ObjectGraphSQLTraceOption``'s closure, are left out here and still apply).
  public var options: [String: NSObject] {
    state.withLock { state in state.options.compactMapValues { $0 as? NSObject } }
  }

  /// Sets one of the store's options (`setOption(true as NSNumber, forKey: NSPersistentHistoryTrackingKey)`);
  /// `nil` removes it.
  public func setOption(_ option: NSObject?, forKey key: String) {
    state.withLock { $0.options[key] = option }
  }

  /// Sets one of the engine's own options, whose values are not objects (``ObjectGraphSQLTraceOption``,
  /// ``ObjectGraphMigrationProgressOption``, ``ObjectGraphMigrationSourceModelsOption``,
  /// ``ObjectGraphMappingModelMigrationOption``); `nil` removes it. An ObjectGraph addition: Core Data's
  /// ``setOption(_:forKey:)`` takes objects only.
  public func setObjectGraphOption(_ option: (any Sendable)?, forKey key: String) {
    state.withLock { $0.options[key] = option }
  }

  /// The options as ``NSPersistentStoreCoordinator/addPersistentStore(type:configuration:at:options:)``
  /// takes them: every option, with the pragmas under `NSSQLitePragmasOption`.
  var storeOptions: [AnyHashable: Any] {
    state.withLock { state in
      var options = Dictionary(uniqueKeysWithValues: state.options.map { (AnyHashable($0.key), $0.value) })
      if !state.pragmas.isEmpty { options[NSSQLitePragmasOption] = state.pragmas }
      return options
    }
  }

  public var description: String {
    "<NSPersistentStoreDescription \(type) \(url?.path ?? "(no file)")>"
  }
}
