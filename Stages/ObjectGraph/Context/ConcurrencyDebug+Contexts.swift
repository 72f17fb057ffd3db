import Dispatch
import Foundation

// The checks of `ConcurrencyDebug` that know contexts and objects: what the debug switch checks on each
// touch, and how a violation names the object, its context and the place it was touched from. They live
// beside the contexts because `Debug/` sits below them and knows neither.
extension ConcurrencyDebug.Watch {
  /// Watches `contexts` (see ``ConcurrencyDebug/Watch``).
  convenience init(_ contexts: NSManagedObjectContext...) {
    self.init(watching: contexts)
  }
}

extension ConcurrencyDebug {
  // MARK: - Checks

  /// Called by a context's entry points when they find themselves off the context's queue.
  @inline(__always)
  static func contextTouchedOffQueue(_ context: NSManagedObjectContext, operation: String) {
    guard flags.load(ordering: .relaxed) != 0 else { return }
    reportContext(context, operation: operation)
  }

  /// Called on every property access of a managed object: reports the access when it is off the queue of
  /// the object's context.
  @inline(__always)
  static func objectTouchedOffQueue(_ object: NSManagedObject, key: String) {
    guard flags.load(ordering: .relaxed) != 0 else { return }
    checkObject(object, key: key)
  }

  /// Called when a change is recorded off the queue of the object's context: a property set there, or a
  /// relationship's inverse, updated because the other side was set.
  static func objectChangedOffQueue(_ object: NSManagedObject, slot index: Int) {
    guard flags.load(ordering: .relaxed) != 0, let context = object.managedObjectContext,
      isEnabled || watch(for: [context]) != nil
    else { return }
    let rule = context.concurrencyType == .mainQueueConcurrencyType ? 2 : 3
    let outside = rule == 2 ? "off the main queue" : "outside that context's queue"
    let slot = object.layout.slots[index]
    var what = "'\(slot.name)' of \(describe(object)) (in \(describe(context))) was changed from \(whereAmI()), \(outside)."
    if let relationship = slot.relationship, let inverse = relationship.inverseRelationshipName {
      what +=
        " A relationship changes on both sides: setting '\(inverse)' of a \(relationship.destinationEntityName) changes this"
        + " '\(slot.name)' too, so look for that line."
    }
    report(rule: rule, what, contexts: [context])
  }

  @inline(never)
  private static func reportContext(_ context: NSManagedObjectContext, operation: String) {
    guard isEnabled || watch(for: [context]) != nil else { return }
    let rule = context.concurrencyType == .mainQueueConcurrencyType ? 2 : 3
    let outside = rule == 2 ? "off the main queue" : "outside its perform { } or performAndWait { }"
    report(
      rule: rule,
      "\(operation) was called on \(describe(context)) from \(whereAmI()), \(outside).",
      contexts: [context])
  }

  @inline(never)
  private static func checkObject(_ object: NSManagedObject, key: String) {
    guard let context = object.managedObjectContext, isEnabled || watch(for: [context]) != nil, !context.isOnQueue else {
      return
    }
    let rule = context.concurrencyType == .mainQueueConcurrencyType ? 2 : 3
    let outside = rule == 2 ? "off the main queue" : "outside that context's queue"
    report(
      rule: rule,
      "'\(key)' of \(describe(object)) (in \(describe(context))) was touched from \(whereAmI()), \(outside).",
      contexts: [context])
  }

  /// Called when an object is related to (or inserted into, or deleted from) a context other than its own.
  static func objectsFromTwoContexts(_ object: NSManagedObject, _ other: NSManagedObject, key: String) {
    let what: String
    if object === other {
      // insert(_:) / delete(_:) of a context the object does not belong to.
      let operation = key.trimmingCharacters(in: CharacterSet(charactersIn: "()"))
      let owner = object.managedObjectContext.map(describe) ?? "no context"
      what = "\(describe(object)), which lives in \(owner), was passed to \(operation)(_:) of another context."
    } else {
      let mine = object.managedObjectContext.map(describe) ?? "no context"
      let theirs = other.managedObjectContext.map(describe) ?? "no context"
      what =
        "Relationship '\(key)' of \(describe(object)) in \(mine) was set to \(describe(other)), which lives in \(theirs)."
    }
    report(rule: 5, what, contexts: [object.managedObjectContext, other.managedObjectContext].compactMap { $0 }, force: true)
  }

  // MARK: - Describing objects, contexts and places

  static func describe(_ object: NSManagedObject) -> String {
    "\(object.entity.entityName) \(object.objectID)"
  }

  static func describe(_ context: NSManagedObjectContext) -> String {
    let kind = context.concurrencyType == .mainQueueConcurrencyType ? "main-queue" : "private-queue"
    if let name = context.name { return "\(kind) context '\(name)'" }
    let queue = context.concurrencyType == .mainQueueConcurrencyType ? "" : " on queue '\(context.queue.mark.label)'"
    return "an unnamed \(kind) context\(queue) (set its name to see it here)"
  }

  /// Where the calling code runs, in words: the main queue, another context's queue, a global queue, a
  /// Swift concurrency task, or a queue's label.
  ///
  /// The thread name would not do: Linux keeps 15 characters of it (`oot.default-qos` for a global queue's
  /// worker), and under Swift Testing the main queue runs on a thread that is not the main thread. The label
  /// of the queue running the code says more.
  static func whereAmI() -> String {
    if let mark = DispatchQueue.getSpecific(key: ContextQueue.specificKey) {
      return mark.label == "main" ? "the main queue" : "another context's queue ('\(mark.label)')"
    }
    return describe(queueLabel: currentQueueLabel() ?? "")
  }
}
