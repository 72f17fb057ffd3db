import Foundation
import NotesModel
import ObjectGraph
import Synchronization

/// # Stage 4: workers, merging, and a stack you pass in
///
/// **Adds** worker contexts for work the user does not watch (an import, a sync), in two shapes: a
/// child of the main context, or a private context beside it whose saves are merged into the main
/// context on the main queue (``newWorker(_:)``, ``WorkerShape``). A weak directory of live workers
/// decides which saves are ours to merge. The master context (the writer) is saved after each merge, on
/// demand and at the app's lifecycle moments (``appWillResignActive()`` and its siblings), and a failed
/// save goes to the ``delegate``, not to the console. Nothing here is global: whoever needs the stack
/// (a list, an importer, an editor) is handed the controller, or just a context, in its initialiser, and
/// every test builds its own stack in memory (`storeType: .inMemory`).
///
/// **Why**: stage 3's app inserts on the main queue, so a big import stalls the UI however the store was
/// loaded. A worker inserts on its own queue; only the merge of its save touches the main queue.
///
/// **Leaves** nothing of the curriculum's stack: this is the stack the workshop set out to build. The
/// whole story: `Docs/04-workers-and-injection.md`.
///
/// ```
///  the app ──▶ mainContext (main queue) ◀── merge ──┐  .besideMain workers' saves, on the main queue
///                │ parent        ▲ parent          │
///                │               └─ worker (.childOfMain): save() goes into the main context
///              private context (own queue) ◀── worker (.besideMain): save() goes into the writer
///                │                              saved after each merge, on demand, at lifecycle moments
///              coordinator ──▶ DataModel.sqlite    added (and migrated) on a background queue
/// ```
///
/// ```swift
/// // At launch, as in stage 3; then hand the controller to whoever needs it.
/// persistence = PersistenceController { result in
///   guard case .success = result else { return }
///   list = NoteList(context: persistence.mainContext)   // the UI's context only
///   importer = NoteImporter(controller: persistence)     // makes its own workers
/// }
/// ```
public final class PersistenceController: Sendable {
  /// The store file: `<store folder>/<model name>.sqlite`.
  public let storeURL: URL

  /// The one main-queue context, there as soon as the initialiser returns.
  ///
  /// Touch it and its objects on the main queue only (or inside its `perform` / `performAndWait`). It is
  /// the child of a private context: its `save()` hands its changes to that parent and writes nothing to
  /// the file; call ``saveChanges(completion:)`` to get changes to disk.
  ///
  /// Use it for what the user sees once the initialiser's callback has reported `.success`. Before that
  /// it holds objects in memory (inserting works: the model is loaded before the initialiser returns),
  /// but it has no store to read from: a fetch or a count throws error 900006 (ObjectGraph's, where Core Data raises an exception) at
  /// once instead of waiting for the store. When the model itself could not be loaded, the context knows
  /// no entities at all, and the callback reports ``PersistenceControllerError/modelNotFound(name:bundle:)``
  /// or ``PersistenceControllerError/modelUnreadable(path:)``.
  public let mainContext: NSManagedObjectContext

  /// The writer: the only context that talks to the coordinator, on a queue of its own. Workers of the
  /// ``WorkerShape/besideMain`` shape are its children too.
  let privateContext: NSManagedObjectContext
  /// The coordinator, made in the initialiser, or why it could not be (the model is missing or broken).
  private let coordinator: Result<NSPersistentStoreCoordinator, PersistenceControllerError>
  private let migrationProgress: (@Sendable (MigrationProgress) -> Void)?
  /// `.sqlite` for the app, `.inMemory` for a test's own stack.
  private let storeType: NSPersistentStore.StoreType
  /// The workers this controller made and still alive, held weakly: only their saves are merged.
  let workers = WorkerDirectory()
  /// The observer of every context's did-save notification, removed when the controller goes.
  private let saveObserver = Mutex<ObserverToken?>(nil)
  /// How the store is shared with other processes (an app extension), or `nil` when it is not.
  let sharing: StoreSharing?
  /// The observer of the store's remote change notifications, when the store is shared.
  let remoteChangeObserver = Mutex<ObserverToken?>(nil)
  /// Who hears of saves that failed when nobody was waiting for them (set it on the main queue).
  @MainActor public weak var delegate: (any PersistenceControllerDelegate)?
  /// Where adding the store stands. The background queue that adds it, the main queue and any caller of
  /// ``saveChanges(completion:)`` read and change it, so a mutex guards it.
  private let loading = Mutex<Loading>(.inProgress(waiting: []))

  /// Adding the store is either under way, with the disk writes that wait for it, or over.
  private enum Loading {
    case inProgress(waiting: [StoreWaiter])
    case finished(Result<Void, PersistenceControllerError>)
  }

  /// A disk write waiting for the store, to be run with the outcome of adding it.
  typealias StoreWaiter = @Sendable (Result<Void, PersistenceControllerError>) -> Void

  /// Makes the stack and starts adding its store in the background; returns at once.
  ///
  /// On the calling thread: the model is loaded from the bundle and the coordinator and both contexts are
  /// made (all in memory). On a background queue: the store folder is made, and the store is added, which
  /// migrates it when it was made with an older version of the model (in place, in one transaction).
  ///
  /// - Parameters:
  ///   - modelName: the model's file name without its extension (`"DataModel"` for
  ///     `DataModel.xcdatamodeld`); the store file is named after it.
  ///   - bundle: the bundle that holds the model; the tutorial's model by default.
  ///   - storeFolder: the folder for the store file; ``defaultStoreFolder()`` when `nil`.
  ///   - storeType: `.sqlite` (the default) for the app; `.inMemory` for a stack of a test's own, which
  ///     leaves no file behind (`storeFolder` is then not used).
  ///   - migrationProgress: called as a migration advances, from 0 to 1, on the background queue that
  ///     migrates (hop to the main queue to show it); never called when the store needs no migration.
  ///   - sharing: how the store is shared with other processes (an app and its extensions), if it is:
  ///     the store is then added with persistent history and remote change notifications, the writer
  ///     signs its saves with the sharing's author, and other processes' saves are merged into the main
  ///     context as they land (see ``StoreSharing``). Not used with `.inMemory`, which no other process
  ///     can open.
  ///   - callback: called once, on the main queue, when the store is ready (`.success`) or cannot be
  ///     used (a ``PersistenceControllerError``; the store file is then left exactly as it was). It is
  ///     never called before the initialiser has returned.
  public init(
    modelName: String = NotesModel.name, bundle: Bundle = NotesModel.bundle, storeFolder: URL? = nil,
    storeType: NSPersistentStore.StoreType = .sqlite, migrationProgress: (@Sendable (MigrationProgress) -> Void)? = nil,
    sharing: StoreSharing? = nil, callback: @escaping @Sendable (Result<Void, PersistenceControllerError>) -> Void
  ) {
    let folder = storeFolder ?? Self.defaultStoreFolder()
    storeURL = folder.appendingPathComponent("\(modelName).sqlite", isDirectory: false)
    self.migrationProgress = migrationProgress
    self.storeType = storeType
    self.sharing = storeType == .inMemory ? nil : sharing
    coordinator = Result { () throws(PersistenceControllerError) in
      NSPersistentStoreCoordinator(managedObjectModel: try Self.makeModel(named: modelName, in: bundle))
    }
    // The same two contexts as stage 2, made at once: the app can hold the main context from the start.
    privateContext = NSManagedObjectContext(concurrencyType: .privateQueueConcurrencyType)
    privateContext.name = "writer"
    privateContext.persistentStoreCoordinator = try? coordinator.get()
    // Its saves are the only ones that reach the store: history records them under this name.
    privateContext.transactionAuthor = self.sharing?.author
    mainContext = NSManagedObjectContext(concurrencyType: .mainQueueConcurrencyType)
    mainContext.name = "main"
    mainContext.parent = privateContext
    watchWorkerSaves()
    loadStore(callback: callback)
  }

  deinit {
    if let observer = saveObserver.withLock({ $0.take() }) { NotificationCenter.default.removeObserver(observer.token) }
    if let observer = remoteChangeObserver.withLock({ $0.take() }) { NotificationCenter.default.removeObserver(observer.token) }
  }

  /// Hears every context's saves; ``workerDidSave(_:)`` picks out our workers'.
  private func watchWorkerSaves() {
    let token = NotificationCenter.default.addObserver(
      forName: NSManagedObjectContext.didSaveObjectIDsNotification, object: nil, queue: nil
    ) { [weak self] notification in
      self?.workerDidSave(notification)
    }
    saveObserver.withLock { $0 = ObserverToken(token: token) }
  }

  // Unchanged from stage 3 (Tests/DocsTests/StageCopyTests.swift checks it).
  /// The folder the store goes in when no folder is given: the user's application-support folder, plus
  /// `CoreDataStackWorkshop`.
  ///
  /// On macOS this is `~/Library/Application Support/CoreDataStackWorkshop`; on Linux,
  /// `$XDG_DATA_HOME/CoreDataStackWorkshop`, or `~/.local/share/CoreDataStackWorkshop` when
  /// `XDG_DATA_HOME` is not set.
  public static func defaultStoreFolder() -> URL {
    // Linux has no Application Support folder. Foundation answers this same question there with the
    // XDG data folder: $XDG_DATA_HOME when it is set to an absolute path, else ~/.local/share.
    let fileManager = FileManager.default
    let base =
      fileManager.urls(for: .applicationSupportDirectory, in: .userDomainMask).first
      ?? fileManager.homeDirectoryForCurrentUser
    return base.appendingPathComponent("CoreDataStackWorkshop", isDirectory: true)
  }
  // End of the part unchanged from stage 3.

  // MARK: - Saving

  /// Saves the main context into its parent, then writes the parent's changes to the store off the main
  /// queue, as soon as there is a store.
  ///
  /// 1. On the main queue, and before this method returns: if the main context has changes, it saves,
  ///    which pushes them into the private context. A failure here (a validation error, say) is thrown,
  ///    the main context keeps its changes, nothing moves on, and `completion` is not called.
  /// 2. Then, on the private context's queue, without waiting: if the private context has changes, it
  ///    saves them to the store in one transaction. The outcome goes to `completion` on the main queue.
  ///    If the write fails (a conflict with another writer, say), the store is left as it was and the
  ///    private context keeps every change, so nothing is lost: the next call tries again.
  ///
  /// **Before the store is ready** (the initialiser's callback has not run yet), step 1 runs as ever, and
  /// step 2 waits until the store has been added, then writes: the changes are safe in the private
  /// context meanwhile, and the initialiser's callback comes before this `completion`. If the store
  /// cannot be added, `completion` gets the same ``PersistenceControllerError`` as the callback, and the
  /// changes stay in the private context, unwritten.
  ///
  /// Call it from any queue; the main context's save always runs on the main queue. Do not block the
  /// main queue waiting for `completion`: it is delivered there.
  ///
  /// ```swift
  /// func sceneWillResignActive() {
  ///   do {
  ///     try controller.saveChanges { result in
  ///       if case .failure(let error) = result { report("Your changes were not saved: \(error)") }
  ///     }
  ///   } catch {
  ///     report("Your changes could not be saved: \(error)")
  ///   }
  /// }
  /// ```
  ///
  /// - Parameter completion: called once on the main queue when the private context's save has ended
  ///   (or was skipped because nothing changed), with `.success` or the error it threw. Without one, a
  ///   failed write goes to the ``delegate``; its changes stay in the private context for the next call.
  /// - Throws: the main context's save error, typically a validation error (an `NSError` in `NSCocoaErrorDomain`, code 1550 to 1680).
  public func saveChanges(completion: (@Sendable (Result<Void, any Error>) -> Void)? = nil) throws {
    let mainContext = mainContext
    let privateContext = privateContext

    // Synchronously, so the private context holds every change before we go on.
    try mainContext.performAndWait {
      if mainContext.hasChanges {
        try mainContext.save()
      }
    }

    // Asynchronously: writing to disk is the slow part, and it never holds up the main queue. Before the
    // store is there, the write waits for it.
    whenStoreLoaded { loaded in
      guard case .success = loaded else {
        if let completion { DispatchQueue.main.async { completion(loaded.mapError { $0 }) } }
        return
      }
      privateContext.perform {
        let result = Result<Void, any Error> {
          if privateContext.hasChanges {
            try privateContext.save()
          }
        }
        if let completion {
          DispatchQueue.main.async { completion(result) }
        } else if case .failure(let error) = result {
          self.reportSaveFailure(.saveFailed(error as NSError))
        }
      }
    }
  }

  // Unchanged from stage 3 (Tests/DocsTests/StageCopyTests.swift checks it).
  // MARK: - Starting fresh

  /// Moves a store that could not be opened aside, then adds a new, empty one in its place, in the
  /// background, as the initialiser does.
  ///
  /// Call it only when the user has chosen to start over, after the initialiser's callback (or the
  /// previous `startFresh`'s) has reported a failure. Nothing is deleted: the store file, with its `-wal`
  /// and `-shm` companions when they exist, is renamed next to itself with the date and time, for
  /// example `DataModel-moved-aside-2026-11-23-214502.sqlite`, so that support (or a later version of
  /// the app) can still recover it.
  ///
  /// ```swift
  /// case .failure(let error):
  ///   if userChoseToStartOver(after: error) {
  ///     let kept = try controller.startFresh { result in … }  // `kept`: where the old notes are now
  ///   }
  /// ```
  ///
  /// - Parameter callback: called once, on the main queue, when the new store is ready or cannot be
  ///   added, as the initialiser's callback is.
  /// - Returns: where the old store file went, or `nil` when there was no file to move.
  /// - Throws: ``PersistenceControllerError/storeInUse(path:)`` while the store is loading or once it
  ///   has loaded; ``PersistenceControllerError/storeNotMovedAside(path:reason:)`` when a file could not
  ///   be renamed (nothing is loaded then, and the files not yet renamed are where they were).
  @discardableResult
  public func startFresh(
    callback: @escaping @Sendable (Result<Void, PersistenceControllerError>) -> Void
  ) throws(PersistenceControllerError) -> URL? {
    // Only after a failed load: the store is not in use then, and cannot become so while we move it.
    let failure = try loading.withLock { state throws(PersistenceControllerError) in
      guard case .finished(.failure(let failure)) = state else { throw .storeInUse(path: storeURL.path) }
      state = .inProgress(waiting: [])
      return failure
    }
    let movedTo: URL?
    do {
      movedTo = try moveStoreAside()
    } catch {
      loading.withLock { $0 = .finished(.failure(failure)) }
      throw error
    }
    loadStore(callback: callback)
    return movedTo
  }

  // MARK: - Building the stack

  private static func makeModel(named modelName: String, in bundle: Bundle) throws(PersistenceControllerError)
    -> NSManagedObjectModel
  {
    // On Apple platforms Xcode compiles DataModel.xcdatamodeld into DataModel.momd inside the app, and
    // you would ask Bundle.main for the "momd" resource. SwiftPM on Linux compiles nothing: it copies the
    // .xcdatamodeld folder into the target's resource bundle (Bundle.module), and ObjectGraph reads
    // Xcode's source format directly.
    guard let url = bundle.url(forResource: modelName, withExtension: "xcdatamodeld") else {
      throw .modelNotFound(name: modelName, bundle: bundle.bundleURL.path)
    }
    guard let model = NSManagedObjectModel(contentsOf: url) else {
      throw .modelUnreadable(path: url.path)
    }
    return model
  }

  /// Adds the store on a background queue, then reports on the main queue.
  private func loadStore(callback: @escaping @Sendable (Result<Void, PersistenceControllerError>) -> Void) {
    DispatchQueue.global(qos: .userInitiated).async { [self] in
      let result = Result { () throws(PersistenceControllerError) in try addStore() }
      finishLoading(with: result, callback: callback)
    }
  }
  // End of the part unchanged from stage 3.

  /// Makes the store folder and adds the store, migrating it if needed. Runs on the background queue.
  private func addStore() throws(PersistenceControllerError) {
    let coordinator = try coordinator.get()
    if storeType == .inMemory {
      do {
        try coordinator.addPersistentStore(type: .inMemory, at: URL(fileURLWithPath: "/dev/null"))
      } catch {
        throw .storeNotLoaded(error as NSError)
      }
      return
    }
    let folder = storeURL.deletingLastPathComponent()
    do {
      try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
    } catch {
      // Foundation on Linux words this error generically ("The operation could not be completed"); the
      // POSIX error underneath says what is wrong, e.g. "Not a directory".
      let cause = (error as NSError).userInfo[NSUnderlyingErrorKey] as? any Error ?? error
      throw .storeFolderUnavailable(path: folder.path, reason: cause.localizedDescription)
    }
    var options: [AnyHashable: Any] = [
      NSMigratePersistentStoresAutomaticallyOption: true, NSInferMappingModelAutomaticallyOption: true,
    ]
    // The engine's own option: how far a migration has come (absent when nobody asked).
    options[ObjectGraphMigrationProgressOption] = migrationProgress
    if sharing != nil { options.merge(Self.sharingOptions) { _, shared in shared } }
    do {
      // The slow part, when the store needs a migration. We are off the main queue, so let it take its time.
      try coordinator.addPersistentStore(type: .sqlite, at: storeURL, options: options)
      if let sharing { startSharing(sharing, coordinator: coordinator) }
    } catch {
      throw .storeNotLoaded(error as NSError)
    }
  }

  // Unchanged from stage 3 (Tests/DocsTests/StageCopyTests.swift checks it).
  /// Records the outcome, tells the app, and lets the disk writes that waited for the store go on.
  private func finishLoading(
    with result: Result<Void, PersistenceControllerError>,
    callback: @escaping @Sendable (Result<Void, PersistenceControllerError>) -> Void
  ) {
    let waiting = loading.withLock { state -> [StoreWaiter] in
      guard case .inProgress(let waiting) = state else { return [] }
      state = .finished(result)
      // Queued while the lock is held, so the callback reaches the main queue before the completion of
      // any save that sees the store ready.
      DispatchQueue.main.async { callback(result) }
      return waiting
    }
    for write in waiting { write(result) }
  }
  // End of the part unchanged from stage 3.

  /// Whether the store has been added (the initialiser's callback reported, or is about to report,
  /// `.success`).
  var isStoreLoaded: Bool {
    loading.withLock { state in
      if case .finished(.success) = state { true } else { false }
    }
  }

  /// Runs `body` with the outcome of adding the store: at once when it is known, else when it is.
  func whenStoreLoaded(_ body: @escaping StoreWaiter) {
    let known = loading.withLock { state -> Result<Void, PersistenceControllerError>? in
      switch state {
      case .inProgress(let waiting):
        state = .inProgress(waiting: waiting + [body])
        return nil
      case .finished(let result):
        return result
      }
    }
    if let known { body(known) }
  }

  // Unchanged from stage 3 (Tests/DocsTests/StageCopyTests.swift checks it).
  /// Renames the store file and its companions to a dated name next to them.
  private func moveStoreAside() throws(PersistenceControllerError) -> URL? {
    let fileManager = FileManager.default
    guard fileManager.fileExists(atPath: storeURL.path) else { return nil }
    let folder = storeURL.deletingLastPathComponent()
    let name = storeURL.deletingPathExtension().lastPathComponent
    let formatter = DateFormatter()
    formatter.locale = Locale(identifier: "en_US_POSIX")
    formatter.dateFormat = "yyyy-MM-dd-HHmmss"
    var aside = folder.appendingPathComponent("\(name)-moved-aside-\(formatter.string(from: Date())).sqlite")
    var number = 1
    while fileManager.fileExists(atPath: aside.path) {
      number += 1
      aside = folder.appendingPathComponent("\(name)-moved-aside-\(formatter.string(from: Date()))-\(number).sqlite")
    }
    for suffix in ["", "-wal", "-shm"] {
      let file = URL(fileURLWithPath: storeURL.path + suffix)
      guard fileManager.fileExists(atPath: file.path) else { continue }
      do {
        try fileManager.moveItem(at: file, to: URL(fileURLWithPath: aside.path + suffix))
      } catch {
        let cause = (error as NSError).userInfo[NSUnderlyingErrorKey] as? any Error ?? error
        throw .storeNotMovedAside(path: file.path, reason: cause.localizedDescription)
      }
    }
    return aside
  }
  // End of the part unchanged from stage 3.
}

/// A notification observer's token, kept to remove the observer.
///
/// `@unchecked Sendable`: the token is stored once and handed to `NotificationCenter.removeObserver`,
/// which may be called from any thread; nothing reads or changes the token's state.
struct ObserverToken: @unchecked Sendable {
  let token: any NSObjectProtocol
}
