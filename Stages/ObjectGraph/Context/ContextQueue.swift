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

/// Per-thread list of the contexts whose `performAndWait` block is running on this thread.
enum ThreadRecord {
  private static let key: String = "org.objectgraph.performStack"

  static var current: [ObjectIdentifier] {
    get { Thread.current.threadDictionary[key] as? [ObjectIdentifier] ?? [] }
    set { Thread.current.threadDictionary[key] = newValue }
  }

  /// Runs `body` with `stack` as this thread's record, restoring the previous record after.
  static func with<T>(_ stack: [ObjectIdentifier], _ body: () throws -> T) rethrows -> T {
    let saved = current
    current = stack
    defer { current = saved }
    return try body()
  }
}
