import Dispatch
import Foundation
internal import Synchronization

#if canImport(Glibc)
  import Glibc
#elseif canImport(Musl)
  import Musl
#elseif canImport(Darwin)
  import Darwin
#endif

/// Concurrency debugging: Core Data's `-com.apple.CoreData.ConcurrencyDebug 1`, for ObjectGraph.
///
/// Turn it on with the environment variable `OBJECTGRAPH_CONCURRENCY_DEBUG=1` (or the launch argument
/// `-com.apple.CoreData.ConcurrencyDebug 1`, or ``isEnabled`` in code). Then every touch of a context or a
/// managed object from outside its context's queue stops the program with a message naming the object,
/// its context, where it was touched from, and which of the five rules it broke:
///
/// 1. Only `objectID`, `managedObjectContext` and `entity` may be read from any queue.
/// 2. A main-queue context's objects are touched on the main queue only.
/// 3. A private context's objects are touched inside its `perform` / `performAndWait` only.
/// 4. A main-queue context may also use `perform` to get back onto its queue from elsewhere.
/// 5. To hand an object to another context, hand its `objectID` and look it up there.
///
/// What is checked: every method and property of a context that reads or changes its objects (fetching,
/// counting, inserting, deleting, looking up, saving, rolling back, resetting, refreshing, merging, the
/// change sets), and every property of a managed object (`value(forKey:)`, `setValue(_:forKey:)`, so every
/// `@ObjectGraphManaged` property, `changedValues()`, `committedValues(forKeys:)`, `isInserted`, `isUpdated`,
/// `isDeleted`, `isFault`, `hasChanges`). Not checked, because rule 1 allows them anywhere: an object's
/// `objectID`, `managedObjectContext` and `entity`; nor a context's `perform` / `performAndWait` (the way
/// onto its queue) and its configuration (`name`, `parent`, `persistentStoreCoordinator`, `mergePolicy`,
/// `userInfo`, …), which is kept behind a lock.
///
/// Relating objects of two contexts (rule 5) stops the program whether or not the switch is on, as Core
/// Data's "illegal attempt to establish a relationship between objects in different contexts" does.
///
/// One wrong line can break several rules at once (setting a relationship off the queue touches both
/// objects and their context); the first message is the most precise one.
public enum ConcurrencyDebug {
  /// One broken rule, as reported to a ``violationHandler``.
  public struct Violation: Sendable, CustomStringConvertible {
    /// The rule broken, 1 to 5 (see ``ConcurrencyDebug``).
    public let rule: Int
    /// The full message, as the stop would print it.
    public let message: String
    public var description: String { message }
  }

  /// Bit 0 is the switch; the bits above count the active ``Watch``es. Every check starts with one relaxed
  /// load of this word and ends there when it is zero: that load is all the checks cost when debugging is off.
  static let flags = Atomic<Int>(
    readSwitch(environment: "OBJECTGRAPH_CONCURRENCY_DEBUG", argument: "-com.apple.CoreData.ConcurrencyDebug") ? 1 : 0)
  private static let handler = Locked<(@Sendable (Violation) -> Void)?>(nil)
  /// Only read once a check has found a violation or a watch active: never on the path of a program that
  /// does not debug.
  private static let watches = Locked<[Watch]>([])

  /// Whether checks are on. Read from the environment at start; may be set in code.
  public static var isEnabled: Bool {
    get { flags.load(ordering: .relaxed) & 1 != 0 }
    set {
      if newValue {
        flags.bitwiseOr(1, ordering: .relaxed)
      } else {
        flags.bitwiseAnd(~1, ordering: .relaxed)
      }
    }
  }

  /// A test hook: when set, violations are passed to it instead of stopping the program.
  ///
  /// It sees the violations of every context in the process; set it before turning ``isEnabled`` on, and
  /// clear it after turning it off.
  public static var violationHandler: (@Sendable (Violation) -> Void)? {
    get { handler.withLock { $0 } }
    set { handler.withLock { $0 = newValue } }
  }

  // MARK: - Watches (for tests)

  /// Checks the given contexts and records their violations instead of stopping, whatever ``isEnabled``
  /// says; call ``stop()`` when done.
  ///
  /// Tests run in parallel in one process, so a test that flips the process-wide switch or hook changes
  /// what every other test sees. A watch changes nothing for other contexts and sees only its own.
  ///
  /// It holds the contexts it watches without knowing their type: this folder sits below the contexts
  /// (see `Context/ConcurrencyDebug+Contexts.swift` for the initializer that takes them).
  final class Watch: Sendable {
    private let contexts: [any AnyObject & Sendable]
    private let recorded = Locked<[Violation]>([])
    private let isActive = Locked(true)

    init(watching contexts: [any AnyObject & Sendable]) {
      self.contexts = contexts
      ConcurrencyDebug.watches.withLock { $0.append(self) }
      ConcurrencyDebug.flags.wrappingAdd(2, ordering: .relaxed)
    }

    /// The violations recorded so far, oldest first.
    var violations: [Violation] { recorded.withLock { $0 } }

    /// Stops watching; the recorded violations stay readable.
    func stop() {
      let wasActive = isActive.withLock { active in
        let was = active
        active = false
        return was
      }
      guard wasActive else { return }
      ConcurrencyDebug.flags.wrappingSubtract(2, ordering: .relaxed)
      ConcurrencyDebug.watches.withLock { $0.removeAll { $0 === self } }
    }

    func watches(_ context: any AnyObject & Sendable) -> Bool { contexts.contains { $0 === context } }

    func record(_ violation: Violation) { recorded.withLock { $0.append(violation) } }
  }

  static func watch(for contexts: [any AnyObject & Sendable]) -> Watch? {
    watches.withLock { list in list.last { watch in contexts.contains { watch.watches($0) } } }
  }

  // MARK: - Reporting

  static func report(rule: Int, _ what: String, contexts: [any AnyObject & Sendable], force: Bool = false) {
    let violation = Violation(rule: rule, message: "ObjectGraph concurrency violation (rule \(rule)): \(what) \(advice(rule))")
    if let watch = watch(for: contexts) {
      watch.record(violation)
      return
    }
    if let handler = violationHandler {
      handler(violation)
      return
    }
    guard isEnabled || force else { return }
    // A broken confinement rule is a programmer error that corrupts the graph if it goes on; Core Data's
    // debug mode stops here too. `fatalError` rather than `preconditionFailure`: the message is the point,
    // and `preconditionFailure` drops it in optimised builds.
    fatalError(violation.message)
  }

  static func advice(_ rule: Int) -> String {
    switch rule {
    case 2:
      "Rule 2: a main-queue context's objects are touched on the main queue only. From another queue, get back onto it with context.perform { } (rule 4), or hand over the objectID (rule 5)."
    case 3:
      "Rule 3: a private-queue context's objects are touched inside its perform { } or performAndWait { } only. Wrap this code in context.perform { } or context.performAndWait { }; to use the object on another queue, hand over its objectID (rule 5)."
    case 5:
      "Rule 5: objects never move between contexts. Hand over the objectID and look the object up in the other context with existingObject(with:)."
    default:
      "Rule 1: only objectID, managedObjectContext and entity may be read from any queue."
    }
  }

  // MARK: - Describing places

  static func describe(queueLabel label: String) -> String {
    switch label {
    case "com.apple.main-thread":
      return "the main queue"
    case "Swift global concurrent queue":
      return "a Swift concurrency task ('\(label)')"
    case _ where label.hasPrefix("com.apple.root.") && label.hasSuffix(".overcommit"):
      // What libdispatch answers on a thread that runs no queue at all.
      return "a thread outside any dispatch queue (dispatch names it '\(label)')"
    case _ where label.hasPrefix("com.apple.root."):
      return "a global concurrent queue ('\(label)')"
    case "":
      return Thread.isMainThread ? "the main thread" : "a thread outside any dispatch queue"
    default:
      return "queue '\(label)'"
    }
  }

  /// `dispatch_queue_get_label(DISPATCH_CURRENT_QUEUE_LABEL)`: the Swift overlay marks the C function
  /// unavailable (pointing to `DispatchQueue.label`, which needs the queue, and there is no API for the
  /// current queue), so it is looked up once by name. Only used to word a message.
  private static let getLabel: GetLabel? = {
    guard let process = dlopen(nil, RTLD_NOW), let symbol = dlsym(process, "dispatch_queue_get_label") else { return nil }
    return GetLabel(function: unsafeBitCast(symbol, to: GetLabel.Function.self))
  }()

  /// `@unchecked Sendable`: a C function pointer, immutable, to a function that is safe on any thread.
  private struct GetLabel: @unchecked Sendable {
    typealias Function = @convention(c) (OpaquePointer?) -> UnsafePointer<CChar>?
    let function: Function
  }

  static func currentQueueLabel() -> String? {
    guard let label = getLabel?.function(nil) else { return nil }
    return String(cString: label)
  }

  // MARK: - The switch at start

  /// Whether a debug switch is on in this process's environment (`environment=1`) or launch arguments
  /// (`argument 1`).
  static func readSwitch(environment: String, argument: String) -> Bool {
    readSwitch(
      variable: environment, argument: argument, environment: ProcessInfo.processInfo.environment,
      arguments: ProcessInfo.processInfo.arguments)
  }

  /// Whether a debug switch is on in `environment` (`variable` set to `1`) or in `arguments` (`argument`
  /// followed by any value but `0`, as Core Data's launch arguments take a level).
  static func readSwitch(variable: String, argument: String, environment: [String: String], arguments: [String]) -> Bool {
    if environment[variable] == "1" { return true }
    if let index = arguments.firstIndex(of: argument), index + 1 < arguments.count {
      return arguments[index + 1] != "0"
    }
    return false
  }
}
