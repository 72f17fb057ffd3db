// A wrong attempt at exercise 10, kept so that CI proves the checks name the mistake: only the stack's own
// workers' saves are merged, by their IDs, on the main queue, but nothing saves the writer afterwards: the
// worker's save stops there, the list shows the import, and a relaunch finds none of it.
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
  let writeFailed: @Sendable (any Error) -> Void
  /// The did-save observer, removed when the stack goes.
  private let observer = Mutex<ObserverBox?>(nil)
  /// The workers this stack made, held weakly, by identity: only their saves are merged. A mutex, because
  /// workers are made on any queue and save on their own queues, all at once.
  private let workers = Mutex<[ObjectIdentifier: WeakWorker]>([:])

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

    // Every context in the process posts its did-save here, on its own queue; contextDidSave picks ours.
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
    workers.withLock { workers in
      workers = workers.filter { $0.value.context != nil }  // forget the workers that are gone
      workers[ObjectIdentifier(worker)] = WeakWorker(context: worker)
    }
    return worker
  }

  /// Whether `context` is one of this stack's live workers. By identity, and through the weak reference: a
  /// new context at a dead worker's address is not mistaken for it.
  private func isWorker(_ context: NSManagedObjectContext) -> Bool {
    workers.withLock { $0[ObjectIdentifier(context)]?.context === context }
  }

  /// Called for every did-save notification in the process, on the queue of the context that saved.
  func contextDidSave(_ notification: Notification) {
    // Only our workers' saves: not the main context's own, not the writer's, not other stacks' contexts.
    guard let saver = notification.object as? NSManagedObjectContext, isWorker(saver) else { return }
    // The notification and its objects belong to the worker's queue; the IDs in it may cross queues.
    let changes = SavedObjectIDs(notification)
    let mainContext = mainContext
    // Onto the main queue, without waiting: the worker's queue goes on, and the UI sees the change next.
    mainContext.perform { mainContext.mergeChanges(fromContextDidSave: changes) }
  }
}

/// A worker held weakly: the stack does not keep a worker alive.
private struct WeakWorker: Sendable {
  weak var context: NSManagedObjectContext?
}

/// An observer token, kept to be removed.
///
/// `@unchecked Sendable`: the token is only stored, then handed to `NotificationCenter.removeObserver`,
/// which is thread-safe; nothing reads its state.
struct ObserverBox: @unchecked Sendable {
  let token: any NSObjectProtocol
}
