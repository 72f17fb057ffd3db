import Foundation
import NotesModel
import ObjectGraph
import Synchronization

/// # Stage 1: bring your own stack
///
/// **Adds** a class of its own for the Core Data stack, `CoreDataManager`: the model, loaded by name
/// from a bundle; a coordinator with one SQLite store; one main-queue context, built on first use and
/// the only piece the app sees.
///
/// **Why**: Xcode's template puts the stack in the app delegate and calls `abort()` when the store
/// cannot be added. Here every failure (no such model, an unusable folder, a store that cannot be
/// added) is thrown to whoever asked for the context, and the stack can be built in a test.
///
/// **Leaves** every save writing the file on the main queue while the user waits (the demo measures
/// it; stage 2 removes it). The whole story: `Docs/01-single-context.md`.
///
/// ```swift
/// let manager = CoreDataManager(modelName: "DataModel")
/// let context = try manager.mainContext
/// let note = Note(context: context)
/// note.title = "Buy milk"
/// note.createdAt = Date()
/// try context.save()
/// ```
public final class CoreDataManager: Sendable {
  /// The store file: `<store folder>/<model name>.sqlite`.
  public let storeURL: URL

  private let modelName: String
  private let bundle: Bundle
  /// The stack, built on first use. The mutex makes the first use happen once even when several threads
  /// ask at the same moment; it stays `nil` until a build succeeds, so a failed build is tried again.
  private let stack = Mutex<Stack?>(nil)

  /// The three pieces, built together and kept together. The app only ever gets the context; the model
  /// and the coordinator stay here, out of its reach.
  private struct Stack: Sendable {
    let model: NSManagedObjectModel
    let coordinator: NSPersistentStoreCoordinator
    let mainContext: NSManagedObjectContext
  }

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

  /// The one main-queue context, built lazily with the model and the coordinator on first use.
  ///
  /// Every access returns the same context. Touch it and its objects on the main queue only (or inside
  /// its `perform` / `performAndWait`).
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

  // MARK: - Building the stack

  private func makeStack() throws -> Stack {
    let model = try makeModel()
    let coordinator = try makeCoordinator(model: model)
    let context = NSManagedObjectContext(concurrencyType: .mainQueueConcurrencyType)
    context.persistentStoreCoordinator = coordinator
    return Stack(model: model, coordinator: coordinator, mainContext: context)
  }

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
}
