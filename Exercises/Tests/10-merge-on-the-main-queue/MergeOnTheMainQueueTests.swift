// The checks of exercise 10. They run against your code in Exercises/10-merge-on-the-main-queue/Sources, or
// against the reference solution when WORKSHOP_SOLUTIONS=1. Each check runs in a child process, so that code
// which stops the process (a concurrency-debug stop, a force unwrap), or never returns, fails one check with
// an explanation instead of ending or hanging the whole run.
//
// Every check builds the stack under test on a SQLite store that already holds one note, "Shopping", and has
// the main context fetch it first, as a list screen would. The checks' code plays the app: a worker inserts
// notes and edits "Shopping", on the worker's queue, from a thread of the test runner.
import Dispatch
import EngineTestSupport
import Exercise10
import Exercise10Solution
import ExerciseChecks
import Foundation
import NotesModel
import ObjectGraph
import Synchronization
import TestSupport
import Testing

/// What the checks use of the stack: your `WorkerStack` or the solution's.
protocol StackUnderTest: AnyObject, Sendable {
  var writer: NSManagedObjectContext { get }
  var mainContext: NSManagedObjectContext { get }
  func newWorker() -> NSManagedObjectContext
}

extension Exercise10.WorkerStack: StackUnderTest {}
extension Exercise10Solution.WorkerStack: StackUnderTest {}

/// The stack under test: your `WorkerStack(coordinator:writeFailed:)`, or the solution's.
enum Subject {
  typealias Make = @Sendable (NSPersistentStoreCoordinator, @escaping @Sendable (any Error) -> Void) throws -> any StackUnderTest

  static let makeStack: Make = CodeUnderTest.pick(starter: makeStarter, solution: makeSolution)

  private static let makeStarter: Make = { coordinator, writeFailed in
    try Exercise10.WorkerStack(coordinator: coordinator, writeFailed: writeFailed)
  }
  private static let makeSolution: Make = { coordinator, writeFailed in
    try Exercise10Solution.WorkerStack(coordinator: coordinator, writeFailed: writeFailed)
  }
}

/// Said when a check's child process stopped (a crash, or the watchdog) instead of finishing.
let stoppedAdvice: Comment = """
  The stack stopped the whole process, or never finished. With concurrency debugging on, ObjectGraph stops at \
  the first context touched off its queue; the checks catch those reports instead, so look for a force unwrap \
  (!) or a try!, or a performAndWait on the main context waiting for a main queue that waits for it.
  """

@Suite("Exercise 10: merge a worker's saves into the main context, on the main queue", .temporaryFolders)
struct MergeOnTheMainQueueTests {
  @Test("After a worker's save, the main context has its new notes, and the note it held shows the worker's edit")
  func mainContextHasTheWorkersNotes() async throws { try await runInChildProcess(.mainContextHasTheWorkersNotes) }

  @Test("The merge runs on the main queue: nothing touches the main context off its queue")
  func mergeRunsOnTheMainQueue() async throws { try await runInChildProcess(.mergeRunsOnTheMainQueue) }

  @Test("A worker's save does not wait for the main queue: while the UI is busy, the save returns, and the merge comes later")
  func workerDoesNotWaitForTheMainQueue() async throws { try await runInChildProcess(.workerDoesNotWaitForTheMainQueue) }

  @Test("Saves of contexts the stack did not make (another stack's worker, a stranger) are not merged")
  func strangersAreNotMerged() async throws { try await runInChildProcess(.strangersAreNotMerged) }

  @Test("The worker's notes reach the store file soon after its save, so a relaunch finds them")
  func writerReachesTheDisk() async throws { try await runInChildProcess(.writerReachesTheDisk) }

  @Test("The stack does not keep its workers alive: a worker the app let go is gone")
  func workersAreHeldWeakly() async throws { try await runInChildProcess(.workersAreHeldWeakly) }
}

/// Runs `check` in a child process (``ChildProcess``): code that stops or hangs the process fails this one
/// check, with ``stoppedAdvice`` and what the process printed, instead of ending the whole test run.
func runInChildProcess(_ check: ChildCheck) async throws {
  let scope = try TemporaryFolder()  // both runs' folders, removed by the suite's .temporaryFolders scope
  let finished = await #expect(processExitsWith: .success, stoppedAdvice) {
    [check = check as ChildCheck, scope = scope as TemporaryFolder] in ChildProcess.run(check, in: scope)
  }
  guard finished == nil else { return }
  // The process stopped. Run the check once more, only to collect what it printed before stopping.
  let stopped = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
    [check = check as ChildCheck, scope = scope as TemporaryFolder] in ChildProcess.run(check, in: scope, recordingErrors: false)
  }
  ChildProcess.reportStop(stopped)
}

// MARK: - What the checks observe

extension ChildCheck {
  /// Said when the watchdog ends a check that has not finished after 25 seconds: a deadlock would otherwise
  /// hang the run.
  var hangReport: String? {
    """
    The check '\(self)' did not finish within 25 seconds. Something waits for a queue that is waiting for \
    it: a performAndWait on the main context from a queue the main queue is waiting for, or \
    DispatchQueue.main.sync called on the main queue.
    """
  }
}

/// Lets the main queue run what was queued there, then asks `condition` again, for up to 5 seconds; whether
/// it came to hold. A merge queued with `perform` runs a moment after the worker's save returns.
func eventually(_ condition: () throws -> Bool) rethrows -> Bool {
  let deadline = Date().addingTimeInterval(5)
  repeat {
    DispatchQueue.main.sync {}
    if try condition() { return true }
    Thread.sleep(forTimeInterval: 0.02)
  } while Date() < deadline
  return false
}

/// Lets the main queue and the stack's writer run what was queued on them, twice over, so that a merge the
/// stack should not have made would have been made by now.
func settle(_ stack: any StackUnderTest) {
  for _ in 0..<2 {
    DispatchQueue.main.sync {}
    stack.writer.performAndWait {}
    Thread.sleep(forTimeInterval: 0.05)
  }
  DispatchQueue.main.sync {}
}

/// One objects-did-change notification of a main context: the IDs it lists as inserted and refreshed, and
/// whether it came on the main queue.
struct Change: Sendable {
  let inserted: [NSManagedObjectID]
  let refreshed: [NSManagedObjectID]
  let onMainQueue: Bool
}

/// The objects-did-change notifications of `context` (a merge posts one), for as long as the log is in use.
func changes(of context: NSManagedObjectContext) -> NotificationLog<Change> {
  NotificationLog(NSManagedObjectContext.didChangeObjectsNotification, object: context) { notification in
    // Only objectID is read here: the notification may come on any queue, and objectID is safe on all.
    func ids(_ key: NSManagedObjectContext.NotificationKey) -> [NSManagedObjectID] {
      (notification.userInfo?[key.rawValue] as? Set<NSManagedObject> ?? []).map(\.objectID)
    }
    return Change(inserted: ids(.insertedObjects), refreshed: ids(.refreshedObjects), onMainQueue: MainQueueProbe.isOnMainQueue)
  }
}

/// A SQLite store holding the note "Shopping", the stack under test on it, and "Shopping" fetched in the main
/// context, as the list screen holds it.
struct Fixture {
  let coordinator: NSPersistentStoreCoordinator
  let stack: any StackUnderTest
  let shopping: NSManagedObjectID
  let writeErrors = Shared<[String]>([])

  init() throws {
    coordinator = try TutorialStack.coordinator(storeURL: try TemporaryFolder().appending("Notes.sqlite"))
    let seeder = TutorialStack.context(.privateQueue, on: coordinator)
    try seeder.performAndWait {
      let note = Note(context: seeder)
      note.title = "Shopping"
      note.createdAt = Date()
      try seeder.save()
    }
    let writeErrors = writeErrors
    stack = try Subject.makeStack(coordinator) { error in writeErrors.withLock { $0.append("\(error)") } }
    let main = stack.mainContext
    shopping = try main.performAndWait {
      let request = NSFetchRequest<Note>(entityName: "Note")
      guard let note = try main.fetch(request).first else {
        throw CocoaError(.coreData, userInfo: [NSLocalizedDescriptionKey: "The checks' store has no note."])
      }
      return note.objectID
    }
  }

  /// On a new worker of the stack: inserts notes titled `titles`, renames "Shopping" to `rename` when given,
  /// and saves, all on the worker's queue. Returns the new notes' IDs (permanent, as exercise 11 teaches).
  @discardableResult
  func workerSaves(_ titles: [String], renamingShoppingTo rename: String? = nil) throws -> [NSManagedObjectID] {
    let worker = stack.newWorker()
    return try worker.performAndWait {
      let notes = titles.map { title in
        let note = Note(context: worker)
        note.title = title
        note.createdAt = Date()
        return note
      }
      if let rename, let shopping = try worker.existingObject(with: shopping) as? Note {
        shopping.title = rename
        shopping.modifiedAt = Date()
      }
      try worker.obtainPermanentIDs(for: notes)
      try worker.save()
      return notes.map(\.objectID)
    }
  }

  /// The title of the note `id` names in the main context, read on the main queue, without fetching again.
  func titleInMain(_ id: NSManagedObjectID) -> String? {
    let main = stack.mainContext
    return main.performAndWait { (try? main.existingObject(with: id) as? Note)?.title }
  }

  /// What the main context holds, as an observer of it (a list screen) knows it: the objects it has registered.
  func registeredInMain() -> Set<NSManagedObjectID> {
    let main = stack.mainContext
    return main.performAndWait { Set(main.registeredObjects.map(\.objectID)) }
  }
}

// MARK: - The checks

/// The checks; each runs in a child process.
enum ChildCheck: String, Codable, Sendable, CustomStringConvertible, ChildProcessCheck {
  case mainContextHasTheWorkersNotes, mergeRunsOnTheMainQueue, workerDoesNotWaitForTheMainQueue, strangersAreNotMerged
  case writerReachesTheDisk, workersAreHeldWeakly

  var description: String { rawValue }

  func run() throws {
    switch self {
    case .mainContextHasTheWorkersNotes: try Self.checkMainContextHasTheWorkersNotes()
    case .mergeRunsOnTheMainQueue: try Self.checkMergeRunsOnTheMainQueue()
    case .workerDoesNotWaitForTheMainQueue: try Self.checkWorkerDoesNotWaitForTheMainQueue()
    case .strangersAreNotMerged: try Self.checkStrangersAreNotMerged()
    case .writerReachesTheDisk: try Self.checkWriterReachesTheDisk()
    case .workersAreHeldWeakly: try Self.checkWorkersAreHeldWeakly()
    }
  }

  private static func checkMainContextHasTheWorkersNotes() throws {
    let fixture = try Fixture()
    let log = changes(of: fixture.stack.mainContext)
    let ids = try fixture.workerSaves(["Pancakes", "Lemonade"], renamingShoppingTo: "Shopping list")

    let told = eventually { Set(log.entries.flatMap(\.inserted)).isSuperset(of: ids) }
    #expect(
      told,
      """
      After the worker saved two new notes, the main context should have been told of them (a merge posts an \
      objects-did-change notification listing them as inserted, which is how a list screen learns of new rows). \
      It was told of \(log.entries.flatMap(\.inserted).count) inserted objects in 5 seconds. A worker's save goes \
      into the writer, not into the main context: merge the save's IDs into the main context, \
      mainContext.mergeChanges(fromContextDidSave:), when one of the stack's workers has saved.
      """)
    let renamed = eventually { fixture.titleInMain(fixture.shopping) == "Shopping list" }
    #expect(
      renamed,
      """
      The main context held the note "Shopping" when the worker renamed it "Shopping list" and saved. The main \
      context's copy should show the new title without being fetched again (a merge refreshes the objects it \
      holds); it shows \(fixture.titleInMain(fixture.shopping).map { "\"\($0)\"" } ?? "nothing"). Merge the \
      worker's save into the main context.
      """)
  }

  private static func checkMergeRunsOnTheMainQueue() throws {
    let fixture = try Fixture()
    let log = changes(of: fixture.stack.mainContext)
    // From here on, the engine reports every touch of a context or an object from outside its queue.
    let recorder = ConcurrencyViolationRecorder()
    let ids = try fixture.workerSaves(["Pancakes"], renamingShoppingTo: "Shopping list")
    let merged = eventually { Set(log.entries.flatMap(\.inserted)).isSuperset(of: ids) }
    settle(fixture.stack)
    let violations = recorder.stop()

    #expect(
      violations.isEmpty,
      """
      The merge touched the main context off the main queue. A did-save notification comes on the queue of the \
      context that saved: the worker's. The main context may only be touched on the main queue (rule 2): take \
      the IDs out of the notification there (SavedObjectIDs(notification)), and merge them inside \
      mainContext.perform { }. The engine reported \(violations.count) violation\(violations.count == 1 ? "" : "s"):
      \(violations.prefix(4).joined(separator: "\n"))\(violations.count > 4 ? "\n…" : "")
      """)
    let offMain = log.entries.filter { !$0.onMainQueue }.count
    #expect(
      merged && offMain == 0,
      """
      The main context should learn of the worker's note through a merge on the main queue. \
      \(merged ? "\(offMain) of its \(log.entries.count) objects-did-change notifications came off the main queue, where the UI cannot take them." : "It was not told of the note at all in 5 seconds.")
      """)
  }

  private static func checkWorkerDoesNotWaitForTheMainQueue() throws {
    let fixture = try Fixture()
    let log = changes(of: fixture.stack.mainContext)
    // The UI is busy (a long layout, a big table reload): the main queue runs nothing else until it is released.
    let busy = DispatchSemaphore(value: 0)
    let release = DispatchSemaphore(value: 0)
    DispatchQueue.main.async {
      busy.signal()
      _ = release.wait(timeout: .now() + 15)
    }
    busy.wait()
    // Meanwhile a worker saves, on a thread of its own. The recorder tells a wait the stack asked for
    // (performAndWait) from one the engine makes when the main context is touched off its queue.
    let recorder = ConcurrencyViolationRecorder()
    let saved = DispatchSemaphore(value: 0)
    let failure = Shared<String?>(nil)
    DispatchQueue.global().async {
      do { try fixture.workerSaves(["Pancakes"]) } catch { failure.withLock { $0 = "\(error)" } }
      saved.signal()
    }
    let returned = saved.wait(timeout: .now() + 5) == .success
    release.signal()
    if !returned { _ = saved.wait(timeout: .now() + 15) }
    let offQueue = !recorder.stop().isEmpty
    let stalled = """
      While the main queue was busy (the checks kept it busy, as a long layout or a big table reload would), a \
      worker's save did not return for 5 seconds.
      """
    #expect(
      returned,
      Comment(
        rawValue: offQueue
          ? """
          \(stalled) contextDidSave(_:), which runs inside that save, touches the main context from the worker's \
          queue, and ObjectGraph, rather than let two queues into one context, waits for the main queue to do it \
          there. (Core Data would not wait: it would crash, now and then.) The check "The merge runs on the main \
          queue…" says what to change.
          """
          : """
          \(stalled) contextDidSave(_:), which runs inside that save, waits for the main queue. \
          Every import then stalls whenever the UI is busy, and a main queue that is itself waiting for the \
          worker never comes: a deadlock. Queue the merge with mainContext.perform { }, which returns at once and \
          merges when the main queue is free.
          """))
    #expect(failure.withLock { $0 } == nil, "The worker's save failed: \(failure.withLock { $0 } ?? "")")
    let merged = eventually { !log.entries.flatMap(\.inserted).isEmpty }
    #expect(merged, "Once the main queue was free again, the main context should have been told of the worker's note; it was not.")
  }

  private static func checkStrangersAreNotMerged() throws {
    let fixture = try Fixture()
    let main = fixture.stack.mainContext
    let log = changes(of: main)

    // Another stack in the same process (another window, another account), on a store of its own.
    let otherCoordinator = try TutorialStack.coordinator(storeURL: try TemporaryFolder().appending("Other.sqlite"))
    let other = try Subject.makeStack(otherCoordinator) { _ in }
    let otherWorker = other.newWorker()
    let otherNote = try otherWorker.performAndWait {
      let note = Note(context: otherWorker)
      note.title = "Another stack's note"
      note.createdAt = Date()
      try otherWorker.obtainPermanentIDs(for: [note])
      try otherWorker.save()
      return note.objectID
    }
    // A context the stack did not make, hung under its writer by someone else (a test, a sync engine).
    let stranger = NSManagedObjectContext(concurrencyType: .privateQueueConcurrencyType)
    stranger.parent = fixture.stack.writer
    let strangersNote = try stranger.performAndWait {
      let note = Note(context: stranger)
      note.title = "A stranger's note"
      note.createdAt = Date()
      try stranger.obtainPermanentIDs(for: [note])
      try stranger.save()
      return note.objectID
    }
    settle(fixture.stack)
    settle(other)

    let inserted = log.entries.flatMap(\.inserted)
    #expect(
      inserted.isEmpty,
      """
      Every context in the process posts its did-save notification to the same notification center: this \
      stack's workers, its main context and writer, other stacks' contexts, a test's. Only the saves of the \
      workers this stack made are its to merge. Yet the main context was told of \(inserted.count) inserted \
      object\(inserted.count == 1 ? "" : "s") (\(inserted.prefix(3).map { $0.uriRepresentation().absoluteString })) after \
      another stack's worker and a stranger's context saved. \
      \(whoseSavesWereMerged(Set(inserted), anotherStacksWorker: otherNote, stranger: strangersNote).map { "\($0) " } ?? "")\
      Keep a directory of the workers newWorker() made (weakly: it must not keep them alive), and merge a save \
      only when notification.object is one of them.
      """)
    let registered = fixture.registeredInMain().subtracting([fixture.shopping])
    #expect(
      registered.isEmpty,
      "The main context holds objects it never fetched and no worker of its stack made: \(registered.prefix(3).map { $0.uriRepresentation().absoluteString })."
    )
  }

  /// Which of the two saves the stack should have ignored it merged (by the note each inserted), and what that
  /// says about how it picks its workers; `nil` when it merged neither.
  private static func whoseSavesWereMerged(
    _ inserted: Set<NSManagedObjectID>, anotherStacksWorker: NSManagedObjectID, stranger: NSManagedObjectID
  ) -> String? {
    switch (inserted.contains(anotherStacksWorker), inserted.contains(stranger)) {
    case (true, true):
      return """
        It merged both: the other stack's worker's save, and the save of a context the checks hung under this \
        stack's writer. It does not ask whether the context that saved is one of the workers this stack made.
        """
    case (false, true):
      return """
        It merged the save of the stranger: a context the checks made themselves and hung under this stack's \
        writer (stranger.parent = writer); the other stack's worker's save was not merged. Being a child of the writer \
        does not make a context one of this stack's workers: anyone can set a context's parent to the writer (a \
        test, a sync engine, a library). Only the stack's own record of what newWorker() handed out knows its \
        workers.
        """
    case (true, false):
      return """
        It merged the save of another stack's worker (one that another WorkerStack's newWorker() made, under \
        that stack's writer). What every stack's workers have in common (their name, "worker"; their private \
        queue) does not tell whose worker a context is: only the stack's own record of what newWorker() handed \
        out does.
        """
    case (false, false):
      return nil
    }
  }

  private static func checkWriterReachesTheDisk() throws {
    let fixture = try Fixture()
    try fixture.workerSaves(["Pancakes", "Lemonade", "Banana bread"], renamingShoppingTo: "Shopping list")
    let written = eventually { (try? TutorialStack.notesInStore(fixture.coordinator)) == 4 }
    let onDisk = try TutorialStack.notesInStore(fixture.coordinator)
    #expect(
      written,
      """
      The store should hold 4 notes (Shopping and the worker's 3) soon after the worker saved; it holds \(onDisk) \
      after 5 seconds. A worker's save stops at the writer: the writer must save too, on its own queue \
      (writer.perform { }), after each of the stack's workers has saved. Otherwise a relaunch loses the import.
      """)
    let errors = fixture.writeErrors.withLock { $0 }
    #expect(errors.isEmpty, "Writing to disk failed: \(errors)")
  }

  private static func checkWorkersAreHeldWeakly() throws {
    let fixture = try Fixture()
    weak var letGo: NSManagedObjectContext?
    do {
      let worker = fixture.stack.newWorker()
      letGo = worker
      try worker.performAndWait {
        let note = Note(context: worker)
        note.title = "Pancakes"
        note.createdAt = Date()
        try worker.obtainPermanentIDs(for: [note])
        try worker.save()
      }
    }
    settle(fixture.stack)
    #expect(
      letGo == nil,
      """
      The app let its worker go once the work was done, but the worker is still alive: the stack keeps it. An \
      app makes a worker for each import or sync, and a stack that holds on to every one keeps each, with all \
      its objects, for as long as the app runs. Keep the directory of workers with weak references (a struct \
      with a weak var, or an NSHashTable-like table of weak entries).
      """)
  }
}
