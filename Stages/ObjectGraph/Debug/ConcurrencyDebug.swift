import Dispatch
import Foundation
import Synchronization

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
public enum ConcurrencyDebug {
  /// One broken rule, as reported to a ``violationHandler``.
  public struct Violation: Sendable, CustomStringConvertible {
    /// The rule broken, 1 to 5 (see ``ConcurrencyDebug``).
    public let rule: Int
    /// The full message, as the stop would print it.
    public let message: String
    public var description: String { message }
  }

  /// Read on every property access, so it is an atomic flag rather than a lock.
  private static let enabled = Atomic<Bool>(
    readSwitch(environment: "OBJECTGRAPH_CONCURRENCY_DEBUG", argument: "-com.apple.CoreData.ConcurrencyDebug"))
  private static let handler = Mutex<(@Sendable (Violation) -> Void)?>(nil)

  /// Whether checks are on. Read from the environment at start; may be set in code.
  public static var isEnabled: Bool {
    get { enabled.load(ordering: .relaxed) }
    set { enabled.store(newValue, ordering: .relaxed) }
  }

  /// A test hook: when set, violations are passed to it instead of stopping the program.
  public static var violationHandler: (@Sendable (Violation) -> Void)? {
    get { handler.withLock { $0 } }
    set { handler.withLock { $0 = newValue } }
  }

  // MARK: - Checks

  static func contextTouchedOffQueue(_ context: ManagedObjectContext, operation: String) {
    guard isEnabled else { return }
    let rule = context.concurrencyType == .mainQueue ? 2 : 3
    report(
      rule: rule,
      "\(operation) was called on context \(context.displayName) from \(whereAmI()), outside the context's queue.")
  }

  static func objectTouchedOffQueue(_ object: ManagedObject, key: String) {
    guard isEnabled, let context = object.managedObjectContext, !context.isOnQueue else { return }
    let rule = context.concurrencyType == .mainQueue ? 2 : 3
    report(
      rule: rule,
      "Property '\(key)' of \(object.entity.name) \(object.objectID) (in context \(context.displayName)) was touched from \(whereAmI()), outside its context's queue."
    )
  }

  static func objectsFromTwoContexts(_ object: ManagedObject, _ other: ManagedObject, key: String) {
    report(
      rule: 5,
      "Relationship '\(key)' of \(object.entity.name) \(object.objectID) in context \(object.managedObjectContext?.displayName ?? "none") was set to \(other.entity.name) \(other.objectID), which lives in context \(other.managedObjectContext?.displayName ?? "none").",
      force: true)
  }

  private static func report(rule: Int, _ what: String, force: Bool = false) {
    let advice: String
    switch rule {
    case 2:
      advice =
        "Rule 2: a main-queue context's objects are touched on the main queue only. From elsewhere, wrap the work in context.perform { } (rule 4) or pass the objectID (rule 5)."
    case 3:
      advice =
        "Rule 3: a private context's objects are touched inside its perform { } or performAndWait { } only. Wrap this code in context.perform { }."
    case 5:
      advice =
        "Rule 5: objects never move between contexts. Hand over the objectID and look the object up in the other context with existingObject(with:)."
    default:
      advice = "Rule 1: only objectID, managedObjectContext and entity may be read from any queue."
    }
    let violation = Violation(rule: rule, message: "ObjectGraph concurrency violation: \(what) \(advice)")
    if let handler = violationHandler {
      handler(violation)
      return
    }
    guard isEnabled || force else { return }
    // A broken confinement rule is a programmer error that corrupts the graph if it goes on; Core Data's
    // debug mode stops here too.
    preconditionFailure(violation.message)
  }

  static func whereAmI() -> String {
    if let mark = DispatchQueue.getSpecific(key: ContextQueue.specificKey) {
      return "queue '\(mark.label)'"
    }
    let thread = Thread.current
    let name = thread.name.flatMap { $0.isEmpty ? nil : $0 } ?? "unnamed"
    return "thread '\(name)' (not on any context's queue)"
  }

  static func readSwitch(environment: String, argument: String) -> Bool {
    if ProcessInfo.processInfo.environment[environment] == "1" { return true }
    let arguments = ProcessInfo.processInfo.arguments
    if let index = arguments.firstIndex(of: argument), index + 1 < arguments.count {
      return arguments[index + 1] != "0"
    }
    return false
  }
}
