import ObjectGraph
import Synchronization

/// The live workers a ``PersistenceController`` made, held weakly, with the shape each was made in.
///
/// Every context in the process posts its did-save notification to the same notification center: the
/// controller's own main context, other stacks' contexts, a test's. The directory is how the controller
/// tells its workers' saves from the rest. It does not keep a worker alive: a worker the app has let go
/// is gone from the directory at once, and a later save of a context that happens to reuse its address
/// cannot be mistaken for it (the entry holds the context itself, weakly, not its address).
///
/// (The 2015 article "Getting Sexy with Core Data" keeps its workers in an `NSHashTable` with weak
/// references; this is the same idea, made safe to use from every worker's queue at once with a mutex.)
final class WorkerDirectory: Sendable {
  private struct Entry {
    weak var worker: NSManagedObjectContext?
    let shape: WorkerShape
  }

  /// Workers by identity. A mutex: workers save on their own queues, all at once.
  private let entries = Mutex<[ObjectIdentifier: Entry]>([:])

  /// Adds `worker`, and drops the entries of workers that are gone.
  func add(_ worker: NSManagedObjectContext, shape: WorkerShape) {
    entries.withLock { entries in
      entries = entries.filter { $0.value.worker != nil }
      entries[ObjectIdentifier(worker)] = Entry(worker: worker, shape: shape)
    }
  }

  /// The shape `context` was made in, when it is one of the live workers; `nil` for any other context.
  func shape(of context: NSManagedObjectContext) -> WorkerShape? {
    entries.withLock { entries in
      guard let entry = entries[ObjectIdentifier(context)], entry.worker === context else { return nil }
      return entry.shape
    }
  }

  /// How many workers are alive.
  var count: Int {
    entries.withLock { entries in entries.values.count { $0.worker != nil } }
  }
}
