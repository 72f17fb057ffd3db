// A wrong attempt at exercise 10, kept so that CI proves the checks name the mistake: instead of a directory
// of the workers it made, the stack takes any context whose parent is its writer for one of its workers, so
// a context someone else hung under the writer has its saves merged too. The merge is on the main queue and
// the writer saves afterwards, as they should.
import ExerciseKit
import Foundation
import ObjectGraph
import Synchronization

/// Stage 2's stack plus workers: a private-queue writer that alone holds the coordinator, the main context
/// as its child, and workers beside the main context (more children of the writer) for work the user does
/// not watch.
///
/// A worker's save goes into the writer, not into the main context. The stack then tells the main context
/// which objects changed, on the main queue, and writes the writer's changes to disk.
public final class WorkerStack: Sendable {
  /// The private-queue context that alone holds the coordinator. Every worker's save lands here.
  public let writer: NSManagedObjectContext
  /// The main-queue context the UI reads: a child of the writer.
  public let mainContext: NSManagedObjectContext
  /// Called, on the writer's queue, when writing the writer's changes to disk fails.
  private let writeFailed: @Sendable (any Error) -> Void
  /// The did-save observer, removed when the stack goes.
  private let observer = Mutex<ObserverBox?>(nil)

  /// Makes the writer on `coordinator` (which has its store) and the main context, and starts watching saves.
  ///
  /// - Parameter writeFailed: called on the writer's queue when writing to disk fails; the writer keeps the
  ///   changes for the next write.
  public init(coordinator: NSPersistentStoreCoordinator, writeFailed: @escaping @Sendable (any Error) -> Void = { _ in }) throws {
    writer = NSManagedObjectContext(concurrencyType: .privateQueueConcurrencyType)
    writer.name = "writer"
    writer.persistentStoreCoordinator = coordinator
    mainContext = NSManagedObjectContext(concurrencyType: .mainQueueConcurrencyType)
    mainContext.name = "main"
    mainContext.parent = writer
    self.writeFailed = writeFailed

    let token = NotificationCenter.default.addObserver(
      forName: NSManagedObjectContext.didSaveObjectsNotification, object: nil, queue: nil
    ) { [weak self] notification in
      self?.contextDidSave(notification)
    }
    observer.withLock { $0 = ObserverBox(token: token) }
  }

  deinit {
    if let box = observer.withLock({ $0.take() }) { NotificationCenter.default.removeObserver(box.token) }
  }

  /// Makes a worker: a private-queue context whose parent is the writer. Use it inside its `perform` or
  /// `performAndWait` only, and let it go when its work is done.
  public func newWorker() -> NSManagedObjectContext {
    let worker = NSManagedObjectContext(concurrencyType: .privateQueueConcurrencyType)
    worker.name = "worker"
    worker.parent = writer
    return worker
  }

  /// Called for every did-save notification in the process, on the queue of the context that saved.
  func contextDidSave(_ notification: Notification) {
    // Every worker is a child of the writer, and the main context is the only other one: so, a worker.
    guard let saver = notification.object as? NSManagedObjectContext, saver !== mainContext, saver.parent === writer
    else { return }
    let changes = SavedObjectIDs(notification)
    let mainContext = mainContext
    mainContext.perform { mainContext.mergeChanges(fromContextDidSave: changes) }
    let writer = writer
    let writeFailed = writeFailed
    writer.perform {
      guard writer.hasChanges else { return }
      do { try writer.save() } catch { writeFailed(error) }
    }
  }
}

/// An observer token, kept to be removed.
///
/// `@unchecked Sendable`: the token is only stored, then handed to `NotificationCenter.removeObserver`,
/// which is thread-safe; nothing reads its state.
struct ObserverBox: @unchecked Sendable {
  let token: any NSObjectProtocol
}
