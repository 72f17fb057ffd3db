import Foundation
import NotesModel
import ObjectGraph
import Synchronization

/// # Stage 1: bring your own stack
///
/// Xcode's "Use Core Data" checkbox puts the stack inside the app delegate and, when the store cannot
/// be added, calls `abort()`. That is fine for a quick experiment and wrong for an app you ship: the
/// stack is tangled with an object that has other jobs, it is hard to test, and a user whose store is
/// damaged sees the app vanish instead of an error the app could handle.
///
/// This stage moves the stack into a class of its own, `CoreDataManager`, which owns the three
/// classic pieces:
///
/// 1. the **managed object model**, loaded by name from a bundle;
/// 2. the **persistent store coordinator**, with one SQLite store that migrates automatically with an
///    inferred mapping;
/// 3. one **main-queue managed object context**, the only piece the rest of the app sees.
///
/// The model and the coordinator stay private. All three are built together the first time someone
/// asks for ``mainContext``, and every failure (no such model, a folder that cannot be made, a store
/// that cannot be added) is thrown to that caller: nothing here aborts.
///
/// ```swift
/// let manager = CoreDataManager(modelName: "DataModel")
/// let context = try manager.mainContext
/// let note = Note(context: context)
/// note.title = "Buy milk"
/// note.createdAt = Date()
/// try context.save()
/// ```
///
/// The cost this stage leaves behind: the only context is on the main queue, so every save writes to
/// disk on the main queue while the user waits. The stage 1 demo measures that stall; stage 2 removes it.
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
    let model: ManagedObjectModel
    let coordinator: PersistentStoreCoordinator
    let mainContext: ManagedObjectContext
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
  ///   made; `ObjectGraphError` when the model cannot be read or the store cannot be added (for example,
  ///   the file is not a store). Nothing is kept from a failed attempt: the next access tries again.
  public var mainContext: ManagedObjectContext {
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
    let context = ManagedObjectContext(concurrencyType: .mainQueue)
    context.persistentStoreCoordinator = coordinator
    return Stack(model: model, coordinator: coordinator, mainContext: context)
  }

  private func makeModel() throws -> ManagedObjectModel {
    // On Apple platforms Xcode compiles DataModel.xcdatamodeld into DataModel.momd inside the app, and
    // you would ask Bundle.main for the "momd" resource. SwiftPM on Linux compiles nothing: it copies the
    // .xcdatamodeld folder into the target's resource bundle (Bundle.module), and ObjectGraph reads
    // Xcode's source format directly.
    guard let url = bundle.url(forResource: modelName, withExtension: "xcdatamodeld") else {
      throw CoreDataManagerError.modelNotFound(name: modelName, bundle: bundle.bundleURL.path)
    }
    let model = try ManagedObjectModel(contentsOf: url)
    if modelName == NotesModel.name && bundle.bundleURL == NotesModel.bundle.bundleURL {
      // Core Data finds an entity's class (representedClassName) through the Objective-C runtime. Swift on
      // Linux cannot look a class up by its name, so the tutorial's classes are registered by hand.
      NotesModel.registerClasses()
    }
    return model
  }

  private func makeCoordinator(model: ManagedObjectModel) throws -> PersistentStoreCoordinator {
    let folder = storeURL.deletingLastPathComponent()
    do {
      try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
    } catch {
      // Foundation on Linux words this error generically ("The operation could not be completed"); the
      // POSIX error underneath says what is wrong, e.g. "Not a directory".
      let cause = (error as NSError).userInfo[NSUnderlyingErrorKey] as? any Error ?? error
      throw CoreDataManagerError.storeFolderUnavailable(path: folder.path, reason: cause.localizedDescription)
    }
    let coordinator = PersistentStoreCoordinator(managedObjectModel: model)
    let options = StoreOptions(migratePersistentStoresAutomatically: true, inferMappingModelAutomatically: true)
    // The template calls abort() here. We let the error travel to whoever asked for the context.
    try coordinator.addPersistentStore(type: .sqlite, at: storeURL, options: options)
    return coordinator
  }
}
