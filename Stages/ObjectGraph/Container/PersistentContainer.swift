import Foundation

/// The stack in one object: a model found by name, a coordinator, store descriptions, a main-queue
/// ``viewContext`` and background contexts on demand.
///
/// ```swift
/// let container = NSPersistentContainer(name: "DataModel", bundle: .module)
/// container.loadPersistentStores { description, error in
///   if let error { print("Could not load \(description): \(error)") }
/// }
/// let notes = try container.viewContext.fetch(NSFetchRequest<Note>())
/// container.performBackgroundTask { context in
///   // import on a private queue, then save
/// }
/// ```
///
/// The stages build the same stack by hand, to show each piece; chapter 4 ends by comparing the two.
/// What the container decides for you: one coordinator; the view context is a root context on the
/// main queue beside the background contexts (not their parent), so a background save reaches the
/// store directly and the view context sees it only by merging
/// (``NSManagedObjectContext/automaticallyMergesChangesFromParent``, off by default, as in Core Data); the
/// store lives in ``defaultDirectoryURL()`` unless a description says otherwise.
///
/// `@unchecked Sendable` (a subclassable class cannot be checked): its stored properties are constants of
/// `Sendable` types but one, the model failure, which is written only inside ``init(name:bundle:)``, before
/// the container can be shared, and read after; the one thing that changes, the store descriptions, sits
/// behind a lock.
open class NSPersistentContainer: @unchecked Sendable {
  /// The container's name: the model's name, and the default store file's (`<name>.sqlite`).
  public let name: String
  /// The model.
  public let managedObjectModel: NSManagedObjectModel
  /// The coordinator every context of the container uses.
  public let persistentStoreCoordinator: NSPersistentStoreCoordinator
  /// The main-queue context for the app's user interface: a root context on the coordinator.
  public let viewContext: NSManagedObjectContext
  private let descriptions: Locked<[NSPersistentStoreDescription]>
  /// Why ``init(name:bundle:)`` found no model; ``loadPersistentStores(completionHandler:)`` reports it.
  private var modelFailure: ObjectGraphError?

  /// A container for the model called `name` in `bundle`, with one SQLite store, `<name>.sqlite` in
  /// ``defaultDirectoryURL()``.
  ///
  /// The model is `<name>.momd` (what Xcode compiles into an app), `<name>.xcdatamodeld` or
  /// `<name>.xcdatamodel` (what SwiftPM copies into a package's resource bundle on Linux). As in Core Data, a
  /// missing or unreadable model does not stop the container from being made: the reason is logged (one line
  /// on standard error, where Core Data logs "Failed to load model named …"), ``managedObjectModel`` is an
  /// empty model, and ``loadPersistentStores(completionHandler:)`` hands the error
  /// (``ObjectGraphModelInvalidError``, naming the bundle and the files looked for) to its handler for every
  /// description without adding a store. Core Data adds the stores with the empty model and fails at the first
  /// fetch; reporting it where the app already checks for errors is the engine's choice.
  ///
  /// - Parameters:
  ///   - name: the model's file name without its extension; also the store file's name.
  ///   - bundle: where the model is (an addition to Core Data's `init(name:)`, which searches the app's
  ///     bundle): a package passes `.module`.
  public convenience init(name: String, bundle: Bundle = .main) {
    let url =
      bundle.url(forResource: name, withExtension: "momd")
      ?? bundle.url(forResource: name, withExtension: "xcdatamodeld")
      ?? bundle.url(forResource: name, withExtension: "xcdatamodel")
    var model = NSManagedObjectModel()
    var failure: ObjectGraphError?
    do {
      guard let url else {
        throw ObjectGraphError(
          .modelInvalid,
          "No model named \(name) in the bundle at \(bundle.bundleURL.path): looked for \(name).momd, \(name).xcdatamodeld and \(name).xcdatamodel. With SwiftPM, list the model in the target's resources and pass bundle: .module."
        )
      }
      model = try NSManagedObjectModel(loadingContentsOf: url)
    } catch {
      failure = error as? ObjectGraphError ?? ObjectGraphError(.modelInvalid, "\(error)")
      ErrorLog.write("NSPersistentContainer(name: \"\(name)\") failed to load its model", error)
    }
    self.init(name: name, managedObjectModel: model)
    modelFailure = failure
  }

  /// A container for the model called `name` in the app's main bundle, with one SQLite store,
  /// `<name>.sqlite` in ``defaultDirectoryURL()`` (Core Data's `init(name:)`): ``init(name:bundle:)`` with
  /// `.main`. A package's model is in its resource bundle: pass `bundle: .module` to that initializer.
  public convenience init(name: String) {
    self.init(name: name, bundle: .main)
  }

  /// A container for `model`, with one SQLite store, `<name>.sqlite` in ``defaultDirectoryURL()``.
  public init(name: String, managedObjectModel model: NSManagedObjectModel) {
    self.name = name
    managedObjectModel = model
    persistentStoreCoordinator = NSPersistentStoreCoordinator(managedObjectModel: model)
    viewContext = NSManagedObjectContext(concurrencyType: .mainQueueConcurrencyType)
    viewContext.persistentStoreCoordinator = persistentStoreCoordinator
    descriptions = Locked([
      NSPersistentStoreDescription(url: Self.defaultDirectoryURL().appendingPathComponent("\(name).sqlite"))
    ])
  }

  /// Where stores go unless a description says otherwise: the user's application support folder
  /// (`~/.local/share` on Linux), as in Core Data. Override to choose another.
  open class func defaultDirectoryURL() -> URL {
    FileManager.default.urls(for: .applicationSupportDirectory, in: .userDomainMask).first
      ?? FileManager.default.temporaryDirectory
  }

  /// The stores ``loadPersistentStores(completionHandler:)`` adds. Change them before loading.
  public var persistentStoreDescriptions: [NSPersistentStoreDescription] {
    get { descriptions.withLock { $0 } }
    set { descriptions.withLock { $0 = newValue } }
  }

  /// Adds each described store to the coordinator, calling `completionHandler` once per description with
  /// `nil` or the error.
  ///
  /// A description with ``NSPersistentStoreDescription/shouldAddStoreAsynchronously`` is added on a
  /// background queue, and its handler runs there; the others are added before this call returns, and
  /// their handler runs on the calling thread. The default folder is made when it is missing; a
  /// description's own folder must exist (a missing one is the error reported).
  ///
  /// A store that needs a migration is migrated as Core Data's container does it: with a compiled mapping
  /// model (`.cdm`) found beside the model's file when there is one, else by inference (when
  /// ``NSPersistentStoreDescription/shouldInferMappingModelAutomatically`` allows it). A description whose
  /// ``ObjectGraphMappingModelMigrationOption`` is set keeps its own; set it to
  /// `.mappingModels(in:policies:)` to look in more folders or to give the mapping's
  /// ``NSEntityMigrationPolicy`` subclasses, which Swift on Linux cannot make from their class names.
  ///
  /// The handler is not `@Sendable`, as Core Data's is not, so the usual pattern compiles:
  ///
  /// ```swift
  /// var loadError: Error?
  /// container.loadPersistentStores { _, error in loadError = error }
  /// ```
  public func loadPersistentStores(
    completionHandler: @escaping (NSPersistentStoreDescription, (any Error)?) -> Void
  ) {
    if let modelFailure {
      for description in persistentStoreDescriptions { completionHandler(description, modelFailure) }
      return
    }
    let defaultFolder = Self.defaultDirectoryURL().standardizedFileURL
    for description in persistentStoreDescriptions {
      if description.type != NSInMemoryStoreType,
        let folder = description.url?.deletingLastPathComponent().standardizedFileURL, folder == defaultFolder
      {
        try? FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
      }
      persistentStoreCoordinator.addPersistentStore(with: description, completionHandler: completionHandler)
    }
  }

  /// A new private-queue context on the coordinator, beside the view context: for work off the main
  /// queue. Its saves go straight to the store. A subclass may override it (to name the context, set its
  /// merge policy or transaction author), as Apple's samples do; both `performBackgroundTask(_:)` methods use it.
  open func newBackgroundContext() -> NSManagedObjectContext {
    let context = NSManagedObjectContext(concurrencyType: .privateQueueConcurrencyType)
    context.persistentStoreCoordinator = persistentStoreCoordinator
    return context
  }

  /// Runs `block` on a new background context's queue (one context per call, as in Core Data).
  public func performBackgroundTask(_ block: @escaping @Sendable (NSManagedObjectContext) -> Void) {
    let context = newBackgroundContext()
    context.perform { block(context) }
  }

  /// The same, awaiting the block's result; a block that cannot throw is awaited without `try`, as Core
  /// Data's `rethrows` form is. The result is `sending`, as `perform(schedule:_:)`'s.
  public func performBackgroundTask<T>(_ block: @escaping @Sendable (NSManagedObjectContext) -> sending T) async -> sending T {
    let context = newBackgroundContext()
    return await context.perform { block(context) }
  }

  /// The same, awaiting the block's result or its error.
  public func performBackgroundTask<T>(
    _ block: @escaping @Sendable (NSManagedObjectContext) throws -> sending T
  ) async throws -> sending T {
    let context = newBackgroundContext()
    return try await context.perform { try block(context) }
  }
}
