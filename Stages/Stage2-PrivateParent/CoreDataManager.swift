import Foundation
import NotesModel
import ObjectGraph
import Synchronization

/// # Stage 2: two is better than one
///
/// **Adds** a private-queue context under stage 1's main context: the private context alone holds the
/// coordinator and writes the file; the main context becomes its child and stays the only piece the app
/// sees. ``saveChanges(completion:)`` saves the main context first, synchronously, into its parent, then
/// the private context, asynchronously, to disk.
///
/// **Why**: in stage 1 every save wrote the file on the main queue. Now the main queue only hands the
/// changes one level up, in memory, and the disk write runs on the writer's own queue.
///
/// **Leaves** the store added on whichever thread first asks for the context (stage 3 moves it off the
/// main queue) and big imports inserting on the main queue (stage 4). The whole story:
/// `Docs/02-private-parent.md`.
///
/// ```
///  the app ──▶ mainContext (main queue)       save(): up one level, in memory
///                   │ parent
///              private context (own queue)    save(): to the file
///                   │
///              coordinator ──▶ DataModel.sqlite
/// ```
///
/// ```swift
/// let manager = CoreDataManager(modelName: "DataModel")
/// let context = try manager.mainContext
/// let note = Note(context: context)
/// note.title = "Buy milk"
/// note.createdAt = Date()
/// try manager.saveChanges { result in  // on the main queue, once the file is written
///   if case .failure(let error) = result { showSaveFailedAlert(error) }
/// }
/// ```
public final class CoreDataManager: Sendable {
  /// The store file: `<store folder>/<model name>.sqlite`.
  public let storeURL: URL

  private let modelName: String
  private let bundle: Bundle
  /// The stack, built on first use. The mutex makes the first use happen once even when several threads
  /// ask at the same moment; it stays `nil` until a build succeeds, so a failed build is tried again.
  private let stack = Mutex<Stack?>(nil)

  /// The four pieces, built together and kept together. The app only ever gets the main context; the
  /// model, the coordinator and the private context that writes to it stay here, out of its reach.
  private struct Stack: Sendable {
    let model: NSManagedObjectModel
    let coordinator: NSPersistentStoreCoordinator
    let privateContext: NSManagedObjectContext
    let mainContext: NSManagedObjectContext
  }

  // Unchanged from stage 1 (Tests/DocsTests/StageCopyTests.swift checks it).
  /// Makes a manager for the model named `modelName`. Nothing is loaded or opened yet.
  ///
  /// - Parameters:
  ///   - modelName: the model's file name without its extension (`"DataModel"` for
  ///     `DataModel.xcdatamodeld`); the store file is named after it.
  ///   - bundle: the bundle that holds the model; the tutorial's model by default.
  ///   - storeFolder: the folder for the store file; ``defaultStoreFolder()`` when `nil`.
  public init(modelName: String, bundle: Bundle = NotesModel.bundle, storeFolder: URL? = nil) {
    self.modelName = modelName
    self.bundle = bundle
    let folder = storeFolder ?? Self.defaultStoreFolder()
    storeURL = folder.appendingPathComponent("\(modelName).sqlite", isDirectory: false)
  }
  // End of the part unchanged from stage 1.

  /// The one main-queue context, built lazily with the rest of the stack on first use.
  ///
  /// Every access returns the same context. Touch it and its objects on the main queue only (or inside
  /// its `perform` / `performAndWait`).
  ///
  /// It is the child of a private context: its `save()` hands its changes to that parent and writes
  /// nothing to the file. Call ``saveChanges(completion:)`` to get changes to disk.
  ///
  /// The property itself may be read from any thread. The first read does all the work (loading the
  /// model, opening the store, migrating it if needed) on the calling thread while other readers wait;
  /// when that thread is the main queue, the user waits too (stage 3 moves this work off the main queue).
  ///
  /// - Throws: ``CoreDataManagerError`` when the model is not in the bundle or the store folder cannot be
  ///   made; Core Data's `NSError` when the model cannot be read or the store cannot be added (for example,
  ///   the file is not a store). Nothing is kept from a failed attempt: the next access tries again.
  public var mainContext: NSManagedObjectContext {
    get throws {
      try stack.withLock { stack in
        if let stack { return stack.mainContext }
        let built = try makeStack()
        stack = built
        return built.mainContext
      }
    }
  }

  // Unchanged from stage 1 (Tests/DocsTests/StageCopyTests.swift checks it).
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
  // End of the part unchanged from stage 1.

  // MARK: - Saving

  /// Saves the main context into its parent, then writes the parent's changes to the store off the main
  /// queue.
  ///
  /// 1. On the main queue, and before this method returns: if the main context has changes, it saves,
  ///    which pushes them into the private context. A failure here (a validation error, say) is thrown,
  ///    the main context keeps its changes, nothing moves on, and `completion` is not called.
  /// 2. Then, on the private context's queue, without waiting: if the private context has changes, it
  ///    saves them to the store in one transaction. The outcome goes to `completion` on the main queue.
  ///    If the write fails (a conflict with another writer, say), the store is left as it was and the
  ///    private context keeps every change, so nothing is lost: the next call tries again.
  ///
  /// Call it from any queue; the main context's save always runs on the main queue. Do not block the
  /// main queue waiting for `completion`: it is delivered there.
  ///
  /// ```swift
  /// func sceneWillResignActive() {
  ///   do {
  ///     try manager.saveChanges { result in
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
  ///   failed write is reported nowhere, though its changes stay in the private context for the next call.
  /// - Throws: the main context's save error, typically a validation error (an `NSError` in `NSCocoaErrorDomain`, code 1550 to 1680).
  public func saveChanges(completion: (@Sendable (Result<Void, any Error>) -> Void)? = nil) throws {
    // Nothing was ever built, so nothing can have changed.
    guard let stack = stack.withLock({ $0 }) else {
      if let completion { DispatchQueue.main.async { completion(.success(())) } }
      return
    }
    let mainContext = stack.mainContext
    let privateContext = stack.privateContext

    // Synchronously, so the private context holds every change before we go on.
    try mainContext.performAndWait {
      if mainContext.hasChanges {
        try mainContext.save()
      }
    }

    // Asynchronously: writing to disk is the slow part, and it no longer holds up the main queue.
    privateContext.perform {
      let result = Result<Void, any Error> {
        if privateContext.hasChanges {
          try privateContext.save()
        }
      }
      if let completion { DispatchQueue.main.async { completion(result) } }
    }
  }

  // MARK: - Building the stack

  private func makeStack() throws -> Stack {
    let model = try makeModel()
    let coordinator = try makeCoordinator(model: model)
    // The writer: the only context that talks to the coordinator, on a queue of its own.
    let privateContext = NSManagedObjectContext(concurrencyType: .privateQueueConcurrencyType)
    privateContext.name = "writer"
    privateContext.persistentStoreCoordinator = coordinator
    // The app's context: on the main queue, with no coordinator, only a parent.
    let mainContext = NSManagedObjectContext(concurrencyType: .mainQueueConcurrencyType)
    mainContext.name = "main"
    mainContext.parent = privateContext
    return Stack(model: model, coordinator: coordinator, privateContext: privateContext, mainContext: mainContext)
  }

  // Unchanged from stage 1 (Tests/DocsTests/StageCopyTests.swift checks it).
  private func makeModel() throws -> NSManagedObjectModel {
    // On Apple platforms Xcode compiles DataModel.xcdatamodeld into DataModel.momd inside the app, and
    // you would ask Bundle.main for the "momd" resource. SwiftPM on Linux compiles nothing: it copies the
    // .xcdatamodeld folder into the target's resource bundle (Bundle.module), and ObjectGraph reads
    // Xcode's source format directly.
    guard let url = bundle.url(forResource: modelName, withExtension: "xcdatamodeld") else {
      throw CoreDataManagerError.modelNotFound(name: modelName, bundle: bundle.bundleURL.path)
    }
    guard let model = NSManagedObjectModel(contentsOf: url) else {
      throw CoreDataManagerError.modelUnreadable(path: url.path)
    }
    return model
  }

  private func makeCoordinator(model: NSManagedObjectModel) throws -> NSPersistentStoreCoordinator {
    let folder = storeURL.deletingLastPathComponent()
    do {
      try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
    } catch {
      // Foundation on Linux words this error generically ("The operation could not be completed"); the
      // POSIX error underneath says what is wrong, e.g. "Not a directory".
      let cause = (error as NSError).userInfo[NSUnderlyingErrorKey] as? any Error ?? error
      throw CoreDataManagerError.storeFolderUnavailable(path: folder.path, reason: cause.localizedDescription)
    }
    let coordinator = NSPersistentStoreCoordinator(managedObjectModel: model)
    let options = [NSMigratePersistentStoresAutomaticallyOption: true, NSInferMappingModelAutomaticallyOption: true]
    // The template calls abort() here. We let the error travel to whoever asked for the context.
    try coordinator.addPersistentStore(type: .sqlite, at: storeURL, options: options)
    return coordinator
  }
  // End of the part unchanged from stage 1.
}
