import Dispatch
import EngineTestSupport
import Foundation
import Testing

@testable import ObjectGraph

#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

/// Concurrency debug mode: which touches it reports, what the report says, and that the stop is real.
///
/// The in-process tests break the rules on purpose, on contexts they watch (`ConcurrencyDebug.Watch`): a
/// watch records its own contexts' violations without stopping and without flipping the process-wide
/// switch, which the tests running in parallel with these would otherwise feel. The process-wide switch,
/// the public hook and the stop itself are tested in child processes (exit tests).
@Suite("Concurrency debug")
struct ConcurrencyDebugTests {
  // MARK: - Rule 3: a private context's objects

  @Test("An object of a private context touched off its queue reports rule 3, naming the object, its context and where")
  func privateObjectOffQueue() throws {
    let stack = try MemoryStack(name: "cdebug.importer")
    let context = stack.context
    let watch = WatchedViolations(ConcurrencyDebug.Watch(context))
    let note = try context.performAndWait {
      let note = Note(context: context)
      note.title = "saved"
      try context.save()
      return note
    }
    let id = note.objectID
    #expect(watch.violations.isEmpty)

    // From a global queue.
    DispatchQueue.global().sync { _ = note.title }
    let read = try #require(watch.violations.first)
    #expect(read.rule == 3)
    #expect(read.message.contains("(rule 3)"))
    #expect(read.message.contains("'title' of Note \(id) (in private-queue context 'cdebug.importer')"))
    #expect(read.message.contains("from a global concurrent queue ('com.apple.root.default-qos'), outside that context's queue."))
    #expect(read.message.contains("Rule 3:"))
    #expect(read.message.contains("context.perform { }"))

    // From a queue of the program's own: its label says where.
    let before = watch.violations.count
    DispatchQueue(label: "org.example.parser").sync { note.rating = 3 }
    let written = try #require(watch.violations.dropFirst(before).first)
    #expect(written.rule == 3)
    #expect(written.message.contains("'rating' of Note \(id)"))
    #expect(written.message.contains("from queue 'org.example.parser'"))
    // The write also marks the object changed in its context, off the queue: every report is rule 3.
    #expect(watch.violations.allSatisfy { $0.rule == 3 })
  }

  @Test("An object touched from another context's queue names that queue")
  func objectFromAnotherContextsQueue() throws {
    let stack = try MemoryStack(name: "cdebug.owner")
    let other = stack.makeContext(.privateQueue, name: "cdebug.other")
    let watch = WatchedViolations(ConcurrencyDebug.Watch(stack.context))
    let note = stack.context.performAndWait {
      let note = Note(context: stack.context)
      note.title = "mine"
      return note
    }
    other.performAndWait { _ = note.title }
    let violation = try #require(watch.violations.first)
    #expect(violation.rule == 3)
    #expect(violation.message.contains("from another context's queue ('org.objectgraph.context."))
    #expect(violation.message.contains("(in private-queue context 'cdebug.owner')"))
  }

  @Test("An unnamed context is named by its queue, with a hint to name it")
  func unnamedContext() throws {
    let stack = try MemoryStack(name: nil)
    let watch = WatchedViolations(ConcurrencyDebug.Watch(stack.context))
    _ = stack.context.hasChanges
    let violation = try #require(watch.violations.first)
    #expect(violation.message.contains("an unnamed private-queue context on queue 'org.objectgraph.context."))
    #expect(violation.message.contains("(set its name to see it here)"))
  }

  // MARK: - Rules 2 and 4: a main-queue context's objects

  @Test("A main-queue context's object touched from a background queue reports rule 2 and points to perform (rule 4)")
  func mainQueueObjectFromBackground() async throws {
    let stack = try MemoryStack(name: "cdebug.private")
    let main = stack.makeContext(.mainQueue, name: "cdebug.ui")
    let watch = WatchedViolations(ConcurrencyDebug.Watch(main))
    let note = Smuggled(
      main.performAndWait {
        let note = Note(context: main)
        note.title = "on screen"
        return note
      })
    let id = note.value.objectID

    // Rule 2 broken: a background thread reads the object directly.
    let title = await onBackgroundThread { note.value.title }
    #expect(title == "on screen")
    let violation = try #require(watch.violations.first)
    #expect(violation.rule == 2)
    #expect(violation.message.contains("(rule 2)"))
    #expect(violation.message.contains("'title' of Note \(id) (in main-queue context 'cdebug.ui')"))
    #expect(violation.message.contains("from a global concurrent queue ('com.apple.root.default-qos'), off the main queue."))
    #expect(violation.message.contains("context.perform { } (rule 4)"))

    // Rule 4 kept: the same background thread gets onto the main queue with perform.
    let count = watch.violations.count
    let viaPerform = await onBackgroundThread {
      let done = DispatchSemaphore(value: 0)
      let result = Locked<String?>(nil)
      main.perform {
        let title = note.value.title
        result.withLock { $0 = title }
        done.signal()
      }
      done.wait()
      return result.withLock { $0 }
    }
    #expect(viaPerform == "on screen")
    let viaAsyncPerform = await main.perform { note.value.title }
    #expect(viaAsyncPerform == "on screen")
    // And code already on the main queue needs no perform at all.
    let onMainQueue = await withCheckedContinuation { continuation in
      DispatchQueue.main.async { continuation.resume(returning: note.value.title) }
    }
    #expect(onMainQueue == "on screen")
    #expect(watch.violations.count == count)
  }

  @Test("A main-queue context's entry point called off the main queue reports rule 2 and rule 4")
  func mainQueueContextOffQueue() throws {
    let stack = try MemoryStack(name: "cdebug.private")
    let main = stack.makeContext(.mainQueue, name: "cdebug.ui")
    let watch = WatchedViolations(ConcurrencyDebug.Watch(main))
    _ = DispatchQueue.global().sync { main.hasChanges }
    let violation = try #require(watch.violations.first)
    #expect(violation.rule == 2)
    #expect(violation.message.contains("hasChanges was called on main-queue context 'cdebug.ui'"))
    #expect(violation.message.contains("off the main queue"))
    #expect(violation.message.contains("(rule 4)"))
  }

  // MARK: - Every entry point checks

  @Test("Every entry point of a context checks its queue, and still works by hopping onto it")
  func everyContextEntryPoint() throws {
    let stack = try MemoryStack(name: "cdebug.entry")
    let context = stack.context
    let (saved, inserted) = try context.performAndWait {
      let saved = Note(context: context)
      saved.title = "saved"
      try context.save()
      let inserted = Note(context: context)
      inserted.title = "inserted"
      return (saved, inserted)
    }
    let watch = WatchedViolations(ConcurrencyDebug.Watch(context))
    let request = NSFetchRequest<Note>(entityName: "Note")
    let calls: [(operation: String, call: () throws -> Void)] = [
      ("hasChanges", { #expect(context.hasChanges) }),
      ("insertedObjects", { #expect(context.insertedObjects.count == 1) }),
      ("updatedObjects", { _ = context.updatedObjects }),
      ("deletedObjects", { _ = context.deletedObjects }),
      ("registeredObjects", { _ = context.registeredObjects }),
      ("fetch(_:)", { _ = try context.fetch(request) }),
      ("count(for:)", { _ = try context.count(for: request) }),
      ("object(with:)", { #expect(context.object(with: saved.objectID) === saved) }),
      ("existingObject(with:)", { _ = try context.existingObject(with: saved.objectID) }),
      ("obtainPermanentIDs(for:)", { try context.obtainPermanentIDs(for: [inserted]) }),
      ("refresh(_:mergeChanges:)", { context.refresh(saved, mergeChanges: false) }),
      ("delete(_:)", { context.delete(inserted) }),
      ("processPendingChanges()", { context.processPendingChanges() }),
      ("insert(_:)", { context.insert(inserted) }),
      ("save()", { try context.save() }),
      ("rollback()", { context.rollback() }),
      ("mergeChanges(fromContextDidSave:)", { context.mergeChanges(fromContextDidSave: SavedObjectIDs()) }),
      ("reset()", { context.reset() }),
    ]
    for (operation, call) in calls {
      let before = watch.violations.count
      try call()
      let reported = watch.violations.dropFirst(before).map(\.message)
      #expect(
        reported.contains { $0.contains("\(operation) was called on private-queue context 'cdebug.entry'") },
        "\(operation) off the queue was not reported; reported: \(reported)")
    }
    #expect(watch.violations.allSatisfy { $0.rule == 3 })
  }

  @Test("Every property of a managed object checks its queue, except objectID, managedObjectContext and entity (rule 1)")
  func everyObjectEntryPoint() throws {
    let stack = try MemoryStack(name: "cdebug.properties")
    let context = stack.context
    let note = try context.performAndWait {
      let note = Note(context: context)
      note.title = "saved"
      try context.save()
      note.title = "changed"
      return note
    }
    let watch = WatchedViolations(ConcurrencyDebug.Watch(context))
    // Rule 1: safe from any queue, so never reported.
    _ = note.objectID
    _ = note.managedObjectContext
    _ = note.entity
    #expect(watch.violations.isEmpty)

    let touches: [(key: String, touch: () -> Void)] = [
      ("title", { _ = note.title }),
      ("body", { note.body = "written" }),
      ("title", { _ = note.value(forKey: "title") }),
      ("rating", { note.setValue(Int64(2), forKey: "rating") }),
      ("changedValues()", { _ = note.changedValues() }),
      ("committedValues(forKeys:)", { _ = note.committedValues(forKeys: nil) }),
      ("isInserted", { _ = note.isInserted }),
      ("isUpdated", { _ = note.isUpdated }),
      ("isDeleted", { _ = note.isDeleted }),
      ("isFault", { _ = note.isFault }),
      ("hasChanges", { _ = note.hasChanges }),
    ]
    for (key, touch) in touches {
      let before = watch.violations.count
      touch()
      let first = watch.violations.dropFirst(before).first?.message ?? "nothing"
      #expect(first.hasPrefix("ObjectGraph concurrency violation (rule 3): '\(key)' of Note \(note.objectID)"), "reported: \(first)")
    }
  }

  // MARK: - On the queue, nothing is reported

  @Test("Inside perform and performAndWait (nested, and across parent and child) nothing is reported")
  func insidePerformNothingReported() async throws {
    let stack = try MemoryStack(name: "cdebug.parent")
    let parent = stack.context
    let child = stack.makeContext(.privateQueue, name: "cdebug.child", parent: parent)
    let main = stack.makeContext(.mainQueue, name: "cdebug.main")
    let watch = WatchedViolations(ConcurrencyDebug.Watch(parent, child, main))

    let note = try parent.performAndWait {
      let note = Note(context: parent)
      note.title = "parent"
      try parent.save()
      note.rating = 1
      _ = (note.isInserted, note.isUpdated, note.isDeleted, note.isFault, note.hasChanges)
      _ = (note.changedValues(), note.committedValues(forKeys: nil), parent.hasChanges, parent.registeredObjects)
      // Re-entrant.
      parent.performAndWait { note.body = "nested" }
      return note
    }
    let id = note.objectID
    // Across parent and child, both ways.
    try child.performAndWait {
      let inChild = try child.existingObject(with: id) as? Note
      inChild?.title = "child"
      parent.performAndWait { _ = note.title }
      try child.save()
    }
    try parent.performAndWait {
      child.performAndWait { _ = child.hasChanges }
      try parent.save()
    }
    // Asynchronous perform, both forms.
    let smuggled = Smuggled(note)
    let title = await parent.perform { smuggled.value.title }
    #expect(title == "child")
    await withCheckedContinuation { continuation in
      parent.perform {
        smuggled.value.rating = 5
        continuation.resume()
      }
    }
    // A main-queue context on the main queue, with and without perform.
    let mainTitle = try await main.perform {
      let fetched = try main.existingObject(with: id) as? Note
      return fetched?.title
    }
    #expect(mainTitle == "child")
    let onMainQueue = await withCheckedContinuation { continuation in
      DispatchQueue.main.async { continuation.resume(returning: main.hasChanges) }
    }
    #expect(!onMainQueue)
    #expect(watch.violations.isEmpty, "\(watch.violations)")
  }

  // MARK: - Rule 5: objects do not cross contexts

  @Test("Setting a relationship to an object of another context reports rule 5, naming both")
  func crossContextRelationship() throws {
    let stack = try MemoryStack(name: "cdebug.left")
    let left = stack.context
    let right = stack.makeContext(.privateQueue, name: "cdebug.right")
    let watch = WatchedViolations(ConcurrencyDebug.Watch(left, right))
    let note = left.performAndWait {
      let note = Note(context: left)
      note.title = "left"
      return note
    }
    let (notebook, tag) = right.performAndWait { (Notebook(context: right), Tag(context: right)) }
    // Both queues are current here, so only rule 5 can be broken.
    left.performAndWait {
      right.performAndWait { note.notebook = notebook }
    }
    let violations = watch.violations
    #expect(violations.count == 1)
    let violation = try #require(violations.first)
    #expect(violation.rule == 5)
    #expect(violation.message.contains("Relationship 'notebook' of Note \(note.objectID) in private-queue context 'cdebug.left'"))
    #expect(violation.message.contains("set to Notebook \(notebook.objectID), which lives in private-queue context 'cdebug.right'"))
    #expect(violation.message.contains("Rule 5:"))
    #expect(violation.message.contains("existingObject(with:)"))

    // A to-many relationship, and inserting another context's object.
    left.performAndWait {
      right.performAndWait {
        note.tags = [tag]
        right.insert(note)
      }
    }
    let later = watch.violations.dropFirst(1)
    #expect(later.contains { $0.rule == 5 && $0.message.contains("Relationship 'tags' of Note") })
    #expect(later.contains { $0.rule == 5 && $0.message.contains("was passed to insert(_:) of another context") })
  }

  @Test("A relationship's inverse changed off its context's queue is reported by its name and the side that was set")
  func inverseChangedOffQueue() throws {
    let stack = try MemoryStack(name: "cdebug.notes")
    let notes = stack.context
    let books = stack.makeContext(.privateQueue, name: "cdebug.books")
    let notebook = try books.performAndWait {
      let notebook = Notebook(context: books)
      notebook.name = "Saved"
      try books.save()
      return notebook
    }
    let note = notes.performAndWait { Note(context: notes) }
    let watch = WatchedViolations(ConcurrencyDebug.Watch(notes, books))
    // On the note's queue only: setting note.notebook changes notebook.notes, off the notebook's queue.
    notes.performAndWait { note.notebook = notebook }
    let messages = watch.violations.map(\.message)
    #expect(
      messages.contains {
        $0.contains("'notes' of Notebook \(notebook.objectID) (in private-queue context 'cdebug.books') was changed from")
          && $0.contains("setting 'notebook' of a Note changes this 'notes' too")
      }, "\(messages)")
    #expect(!messages.contains { $0.contains("setValue(_:forKey:)") }, "\(messages)")
  }

  // MARK: - Where the code runs, in words

  @Test("Where a touch came from is worded from the queue, not the (truncated) thread name")
  func whereAmI() async {
    #expect(DispatchQueue.global().sync { ConcurrencyDebug.whereAmI() } == "a global concurrent queue ('com.apple.root.default-qos')")
    #expect(DispatchQueue.global(qos: .utility).sync { ConcurrencyDebug.whereAmI() }.contains("'com.apple.root.utility-qos'"))
    #expect(DispatchQueue(label: "org.example.sync").sync { ConcurrencyDebug.whereAmI() } == "queue 'org.example.sync'")
    let onMain = await withCheckedContinuation { continuation in
      DispatchQueue.main.async { continuation.resume(returning: ConcurrencyDebug.whereAmI()) }
    }
    #expect(onMain == "the main queue")
    let onThread = await withCheckedContinuation { continuation in
      Thread { continuation.resume(returning: ConcurrencyDebug.whereAmI()) }.start()
    }
    #expect(onThread.hasPrefix("a thread outside any dispatch queue"))
    #expect(ConcurrencyDebug.describe(queueLabel: "Swift global concurrent queue").hasPrefix("a Swift concurrency task"))
    #expect(ConcurrencyDebug.describe(queueLabel: "com.apple.main-thread") == "the main queue")
  }

  // MARK: - The switch

  @Test(
    "The switch is read from the environment variable or Core Data's launch argument",
    arguments: [
      (["OBJECTGRAPH_CONCURRENCY_DEBUG": "1"], [], true),
      (["OBJECTGRAPH_CONCURRENCY_DEBUG": "0"], [], false),
      (["OBJECTGRAPH_CONCURRENCY_DEBUG": ""], [], false),
      ([:], ["app"], false),
      ([:], ["app", "-com.apple.CoreData.ConcurrencyDebug", "1"], true),
      ([:], ["app", "-com.apple.CoreData.ConcurrencyDebug", "3"], true),
      ([:], ["app", "-com.apple.CoreData.ConcurrencyDebug", "0"], false),
      ([:], ["app", "-com.apple.CoreData.ConcurrencyDebug"], false),
    ] as [([String: String], [String], Bool)])
  func readSwitch(environment: [String: String], arguments: [String], expected: Bool) {
    let isOn = ConcurrencyDebug.readSwitch(
      variable: "OBJECTGRAPH_CONCURRENCY_DEBUG", argument: "-com.apple.CoreData.ConcurrencyDebug", environment: environment,
      arguments: arguments)
    #expect(isOn == expected)
  }

  // MARK: - In a child process: the switch, the hook, and the stop itself

  @Test("With the switch on and no hook, an object touched off its queue stops the program with the message")
  func stopOnObject() async throws {
    let result = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
      ConcurrencyDebug.violationHandler = nil
      ConcurrencyDebug.isEnabled = true
      let stack = try MemoryStack(name: "cdebug.stopping")
      let note = stack.context.performAndWait {
        let note = Note(context: stack.context)
        note.title = "never read"
        return note
      }
      _ = note.title  // off the queue: the process stops here
    }
    let output = String(decoding: result?.standardErrorContent ?? [], as: UTF8.self)
    #expect(output.contains("ObjectGraph concurrency violation (rule 3): 'title' of Note"), "stderr: \(output)")
    #expect(output.contains("(in private-queue context 'cdebug.stopping')"))
    #expect(output.contains("Rule 3: a private-queue context's objects are touched inside its perform { } or performAndWait { } only."))
  }

  @Test("With the switch on and no hook, a main-queue context used off the main queue stops the program")
  func stopOnMainQueueContext() async throws {
    let result = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
      ConcurrencyDebug.violationHandler = nil
      ConcurrencyDebug.isEnabled = true
      let stack = try MemoryStack(name: "cdebug.private")
      let main = stack.makeContext(.mainQueue, name: "cdebug.ui")
      DispatchQueue.global().sync { _ = try? main.fetch(NSFetchRequest<Note>(entityName: "Note")) }
    }
    let output = String(decoding: result?.standardErrorContent ?? [], as: UTF8.self)
    #expect(
      output.contains("ObjectGraph concurrency violation (rule 2): fetch(_:) was called on main-queue context 'cdebug.ui'"),
      "stderr: \(output)")
    #expect(output.contains("context.perform { } (rule 4)"))
  }

  @Test("OBJECTGRAPH_CONCURRENCY_DEBUG=1 in the environment turns the checks on")
  func switchFromEnvironment() async throws {
    let result = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
      // The switch is read when first needed, so setting the variable first in a fresh process is the same
      // as launching with it.
      setenv("OBJECTGRAPH_CONCURRENCY_DEBUG", "1", 1)
      let stack = try MemoryStack(name: "cdebug.environment")
      _ = stack.context.hasChanges  // off the queue: the process stops here
    }
    let output = String(decoding: result?.standardErrorContent ?? [], as: UTF8.self)
    #expect(
      output.contains("ObjectGraph concurrency violation (rule 3): hasChanges was called on private-queue context 'cdebug.environment'"))
  }

  @Test("With the switch off, touches off the queue are neither reported nor stopped")
  func switchOff() async {
    await #expect(processExitsWith: .success) {
      ConcurrencyDebug.isEnabled = false
      ConcurrencyDebug.violationHandler = { _ in exit(3) }
      let stack = try MemoryStack(name: "cdebug.off")
      let note = stack.context.performAndWait {
        let note = Note(context: stack.context)
        note.title = "unchecked"
        return note
      }
      note.title = "off the queue"
      _ = (note.title, note.hasChanges, note.changedValues(), stack.context.hasChanges)
      DispatchQueue.global().sync { _ = note.title }
    }
  }

  @Test("The public hook receives violations instead of a stop")
  func publicHook() async {
    let result = await #expect(processExitsWith: .success, observing: [\.standardOutputContent]) {
      ConcurrencyDebug.violationHandler = { violation in
        FileHandle.standardOutput.write(Data("hook: rule \(violation.rule): \(violation.message)\n".utf8))
      }
      ConcurrencyDebug.isEnabled = true
      let stack = try MemoryStack(name: "cdebug.hooked")
      let note = stack.context.performAndWait {
        let note = Note(context: stack.context)
        note.title = "hooked"
        return note
      }
      _ = note.title
      ConcurrencyDebug.isEnabled = false
      _ = note.title
    }
    let output = String(decoding: result?.standardOutputContent ?? [], as: UTF8.self)
    let lines = output.split(separator: "\n").filter { $0.hasPrefix("hook: ") }
    #expect(lines.count == 1, "stdout: \(output)")
    #expect(lines.first?.hasPrefix("hook: rule 3: ObjectGraph concurrency violation (rule 3): 'title' of Note") == true)
  }
}

// MARK: - Helpers

/// An in-memory store and a named private context on it: nothing to clean up, which matters in a child
/// process that is meant to stop.
private struct MemoryStack {
  let coordinator: NSPersistentStoreCoordinator
  let context: NSManagedObjectContext

  init(name: String?) throws {
    let stack = try StoreStack(model: try Models.notes(), at: nil)
    coordinator = stack.coordinator
    context = stack.context
    context.name = name
  }

  func makeContext(_ type: NSManagedObjectContext.ConcurrencyType, name: String, parent: NSManagedObjectContext? = nil)
    -> NSManagedObjectContext
  {
    let context = NSManagedObjectContext(type)
    context.name = name
    if let parent {
      context.parent = parent
    } else {
      context.persistentStoreCoordinator = coordinator
    }
    return context
  }
}

/// Carries a managed object to another thread, which Swift 6 rightly refuses: these tests break the rules
/// on purpose, to see the checks catch it.
///
/// `@unchecked Sendable`: it is not; that is the point. Each test hands the object over with a
/// happens-before edge (a queue hop or a semaphore), so the only fault is the one under test.
private struct Smuggled<Value>: @unchecked Sendable {
  let value: Value
  init(_ value: Value) { self.value = value }
}

/// Runs `body` on a global queue's thread and returns its result.
private func onBackgroundThread<T: Sendable>(_ body: @escaping @Sendable () -> T) async -> T {
  await withCheckedContinuation { continuation in
    DispatchQueue.global().async { continuation.resume(returning: body()) }
  }
}
