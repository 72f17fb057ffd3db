import Foundation
import ObjectGraph

/// Where a worker context hangs in the stack: what its `save()` reaches, and which queue pays for it.
public enum WorkerShape: String, Sendable, CaseIterable, CustomStringConvertible {
  /// A child of the main context. Its `save()` pushes its changes into the main context, on the main
  /// queue, so the UI has them at once; the controller then saves the main context into the writer and
  /// the writer to disk. Simple, but every save costs the main queue the work of taking in the changes.
  case childOfMain

  /// A child of the writer, beside the main context. Its `save()` pushes its changes into the writer, off
  /// the main queue; the controller then merges the saved IDs into the main context on the main queue
  /// (the main queue only learns which objects changed) and saves the writer to disk.
  case besideMain

  /// For printing: "child of the main context", "beside the main context".
  public var description: String {
    switch self {
    case .childOfMain: "child of the main context"
    case .besideMain: "beside the main context"
    }
  }
}

extension PersistenceController {
  /// Makes a private-queue context for work the user does not watch (an import, a sync), hung where
  /// `shape` says, and registers it in the controller's directory of live workers.
  ///
  /// Use it inside its `perform` / `performAndWait` only, and let it go when the work is done: workers are
  /// cheap, and a short-lived one holds no stale objects. When it saves, the controller takes its changes
  /// the rest of the way (see ``WorkerShape``): into the main context, where the UI sees them, and to disk.
  ///
  /// Before a worker ``WorkerShape/besideMain`` saves objects it inserted, give them permanent IDs
  /// (`obtainPermanentIDs(for:)`) if their IDs will leave the worker: the main context is not its
  /// descendant, and a temporary ID is a different ID from the one the row gets when the writer saves.
  ///
  /// ```swift
  /// let worker = controller.newWorker()
  /// try await worker.perform {
  ///   for draft in batch { _ = draft.makeNote(in: worker) }
  ///   try worker.obtainPermanentIDs(for: Array(worker.insertedObjects))
  ///   try worker.save()  // merged into the main context, then written to disk
  /// }
  /// ```
  ///
  /// A worker keeps its controller alive (through its `userInfo`), so a worker that saves after the app
  /// has let the controller go is still merged and written: nothing it saves is lost.
  ///
  /// - Parameters:
  ///   - shape: where the worker hangs; ``WorkerShape/besideMain`` by default, the shape that spares the
  ///     main queue.
  ///   - name: the context's name in debug output; "worker" by default.
  public func newWorker(_ shape: WorkerShape = .besideMain, name: String = "worker") -> NSManagedObjectContext {
    let worker = NSManagedObjectContext(concurrencyType: .privateQueueConcurrencyType)
    worker.name = name
    worker.parent = shape == .childOfMain ? mainContext : privateContext
    worker.userInfo[Self.controllerKey] = self
    workers.add(worker, shape: shape)
    return worker
  }

  /// How many workers this controller made are still alive (the app or a queue still holds them).
  public var liveWorkerCount: Int { workers.count }

  /// The worker's `userInfo` key under which it holds its controller.
  static let controllerKey = "PersistenceController"

  /// Runs on the saving context's queue, for every save in the process; acts on our workers' only.
  func workerDidSave(_ notification: Notification) {
    guard let saver = notification.object as? NSManagedObjectContext, let shape = workers.shape(of: saver) else {
      return  // the main context's own saves, the writer's, other stacks': not ours to merge
    }
    let mainContext = mainContext
    switch shape {
    case .besideMain:
      // The worker's changes are in the writer. The main context only needs to know which objects
      // changed: the IDs cross queues, the objects do not.
      let changes = SavedObjectIDs(notification)
      mainContext.perform { mainContext.mergeChanges(fromContextDidSave: changes) }
      saveMasterContext()
    case .childOfMain:
      // The worker's changes are in the main context already: its save ran on the main queue, where the
      // main context announced them (the list has counted them). Take them up into the writer, then to disk.
      mainContext.perform { [self] in
        do {
          if mainContext.hasChanges { try mainContext.save() }
          saveMasterContext()
        } catch {
          reportSaveFailure(.saveFailed(error as NSError))
        }
      }
    }
  }
}
