import Dispatch
import Foundation

/// The queue a context's work runs on, and the answer to "am I on it right now?".
///
/// A private-queue context owns a serial `DispatchQueue`; a main-queue context uses `DispatchQueue.main`.
/// Being on the queue is decided two ways, never by `Thread.isMainThread` (under Swift Testing on Linux,
/// main-queue blocks run on a thread that is not the main thread):
/// - a queue-specific value marks each context's queue, so code running in a block on that queue is on it;
/// - a per-thread record lists the contexts whose `performAndWait` is running on this thread's stack, and
///   is carried into the block when `performAndWait` hops to another queue, so a parent's
///   `performAndWait` called inside a child's (or the reverse) runs inline instead of deadlocking.
final class ContextQueue: Sendable {
  /// Marks every queue owned by a context; the value identifies the owning contexts.
  static let specificKey = DispatchSpecificKey<QueueMark>()
  private static let mainMark: QueueMark = {
    let mark = QueueMark(label: "main")
    DispatchQueue.main.setSpecific(key: specificKey, value: mark)
    return mark
  }()

  let dispatchQueue: DispatchQueue
  let mark: QueueMark
  let isMain: Bool

  init(main: Bool, label: String) {
    isMain = main
    if main {
      dispatchQueue = .main
      mark = Self.mainMark
    } else {
      let queue = DispatchQueue(label: label)
      let mark = QueueMark(label: label)
      queue.setSpecific(key: Self.specificKey, value: mark)
      dispatchQueue = queue
      self.mark = mark
    }
  }

  /// Whether the current code may touch the context's state: it runs on the context's queue, or inside
  /// a `performAndWait` of this context further up the stack.
  func isCurrent(context: ObjectIdentifier) -> Bool {
    if InnermostContext.isInnermost(context) { return true }
    if DispatchQueue.getSpecific(key: Self.specificKey) === mark { return true }
    let record = ThreadRecord.current
    return record.contains(context) || record.contains(ObjectIdentifier(mark))
  }

  /// What a `performAndWait` that hops to another queue carries along: the contexts on this thread's
  /// stack and the queue this code runs on (a main-queue parent called from the child's block must run
  /// inline there, not `sync` onto a main queue this very call is holding).
  static func recordForHop(adding context: ObjectIdentifier) -> [ObjectIdentifier] {
    var record = ThreadRecord.current
    record.append(context)
    if let mark = DispatchQueue.getSpecific(key: specificKey) { record.append(ObjectIdentifier(mark)) }
    return record
  }
}

/// The queue-specific value that tells a context's queue apart.
final class QueueMark: Sendable {
  let label: String
  init(label: String) { self.label = label }
}

/// The context whose block (`perform` or `performAndWait`) runs innermost on this thread, in a pthread key:
/// the common case of "am I on this context's queue?" (an insert or a fetch inside the context's own
/// block) is one `pthread_getspecific` instead of a queue-specific lookup (which walks the queue's
/// targets and retains the mark) and the thread dictionary. Only a yes is taken from it; anything else
/// is asked of the queue and the ``ThreadRecord`` as before. The context is alive while its block runs
/// (the block or its caller holds it), and the key is restored when the block ends, so an identity it
/// holds is never a freed context's.
enum InnermostContext {
  private static let key: pthread_key_t = {
    var key = pthread_key_t()
    _ = pthread_key_create(&key, nil)
    return key
  }()

  /// Runs `body` with `context` as this thread's innermost context, restoring the previous one after.
  static func with<T>(_ context: ObjectIdentifier, _ body: () throws -> T) rethrows -> T {
    let saved = pthread_getspecific(key)
    _ = pthread_setspecific(key, UnsafeRawPointer(bitPattern: UInt(bitPattern: context)))
    defer { _ = pthread_setspecific(key, saved) }
    return try body()
  }

  @inline(__always)
  static func isInnermost(_ context: ObjectIdentifier) -> Bool {
    UInt(bitPattern: pthread_getspecific(key)) == UInt(bitPattern: context)
  }

  /// The context whose block runs innermost on this thread, if any (for `NSFetchRequest.execute()`).
  ///
  /// The key holds the context's identity, which is its address; the context is alive while its block
  /// runs (see above), and the key is cleared when the block ends, so the address names a live context.
  static var current: NSManagedObjectContext? {
    guard let pointer = pthread_getspecific(key) else { return nil }
    return Unmanaged<NSManagedObjectContext>.fromOpaque(pointer).takeUnretainedValue()
  }
}

/// Per-thread list of the contexts whose `performAndWait` block is running on this thread.
enum ThreadRecord {
  private static let key: String = "org.objectgraph.performStack"

  static var current: [ObjectIdentifier] {
    get { Thread.current.threadDictionary[key] as? [ObjectIdentifier] ?? [] }
    set { Thread.current.threadDictionary[key] = newValue }
  }

  /// Runs `body`, a block of `context`, with `stack` as this thread's record and `context` as its
  /// ``InnermostContext``, restoring both after.
  static func with<T>(_ stack: [ObjectIdentifier], running context: ObjectIdentifier, _ body: () throws -> T) rethrows -> T {
    let saved = current
    current = stack
    defer { current = saved }
    return try InnermostContext.with(context, body)
  }
}
