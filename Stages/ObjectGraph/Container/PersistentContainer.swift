import Foundation

/// The stack in one object: a model found by name, a coordinator, store descriptions, a main-queue
/// ``viewContext`` and background contexts on demand.
///
/// ```swift
/// let container = try NSPersistentContainer(name: "DataModel", bundle: .module)
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
/// `Sendable` types, and the one thing that changes, the store descriptions, sits behind a lock.
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

  /// A container for the model `<name>.xcdatamodeld` (or `<name>.xcdatamodel`) in `bundle`, with one SQLite
  /// store, `<name>.sqlite` in ``defaultDirectoryURL()``.
  ///
  /// Core Data's `init(name:)` does not throw: a missing model shows up later. Here the model is read now,
  /// and a missing or unreadable one is an error that names the bundle.
  /// - Throws: ``ObjectGraphModelInvalidError`` when the bundle has no such model, or the model's
  ///   loading error.
  public convenience init(name: String, bundle: Bundle = .main) throws {
    let url =
      bundle.url(forResource: name, withExtension: "xcdatamodeld")
      ?? bundle.url(forResource: name, withExtension: "xcdatamodel")
    guard let url else {
      throw ObjectGraphError(
        .modelInvalid,
        "No model named \(name) in the bundle at \(bundle.bundleURL.path): looked for \(name).xcdatamodeld and \(name).xcdatamodel. With SwiftPM, list the model in the target's resources and pass bundle: .module."
      )
    }
    self.init(name: name, managedObjectModel: try NSManagedObjectModel(contentsOf: url))
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
  public func loadPersistentStores(
    completionHandler: @escaping @Sendable (NSPersistentStoreDescription, (any Error)?) -> Void
  ) {
    let defaultFolder = Self.defaultDirectoryURL().standardizedFileURL
    for description in persistentStoreDescriptions {
      let url = description.type == NSInMemoryStoreType ? nil : description.url
      if let folder = url?.deletingLastPathComponent().standardizedFileURL, folder == defaultFolder {
        try? FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
      }
      var options: StoreOptions
      do {
        options = try StoreOptions(dictionary: description.storeOptions)
      } catch {
        completionHandler(description, error)
        continue
      }
      let type = NSPersistentStore.StoreType(rawValue: description.type)
      if options.migratePersistentStoresAutomatically, options.mappingModelMigration == nil {
        options.mappingModelMigration = .mappingModels()
      }
      if description.shouldAddStoreAsynchronously {
        persistentStoreCoordinator.addPersistentStore(
          type: type, configuration: description.configuration, at: url, parsed: .success(options)
        ) { result in
          completionHandler(description, result.failure)
        }
      } else {
        do {
          try persistentStoreCoordinator.addPersistentStore(
            type: type, configuration: description.configuration, at: url, options: options)
          completionHandler(description, nil)
        } catch {
          completionHandler(description, error)
        }
      }
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

  /// The same, awaiting the block's result.
  public func performBackgroundTask<T: Sendable>(_ block: @escaping @Sendable (NSManagedObjectContext) throws -> T) async throws -> T {
    let context = newBackgroundContext()
    return try await context.perform { try block(context) }
  }
}

extension Result {
  /// The error, or `nil` for a success.
  fileprivate var failure: Failure? {
    if case .failure(let error) = self { error } else { nil }
  }
}
