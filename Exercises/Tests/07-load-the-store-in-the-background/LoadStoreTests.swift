// The checks of exercise 07. They run against your code in Exercises/07-load-the-store-in-the-background/Sources,
// or against the reference solution when WORKSHOP_SOLUTIONS=1. Each check runs in a child process, so that code
// which stops the process (fatalError(), try!), or never returns (a DispatchQueue.main.sync called on the main
// queue), fails one check with an explanation instead of ending or hanging the whole run.
//
// How "returns before the store is added" is proven without measuring time: the checks hand loadStore a
// progress handler that, when a migration first reports progress from another thread than loadStore's caller,
// holds that thread until loadStore has returned. A store added in the background therefore cannot be in the
// coordinator when loadStore returns; a store added before loadStore returns is there, and a migration on the
// caller's thread reports progress there. Whether the main queue stays free while the store migrates is asked
// of the main queue itself: the handler queues a block there and waits (3 seconds at most) for it to run.
import Dispatch
import EngineTestSupport
import Exercise07
import Exercise07Solution
import ExerciseChecks
import Foundation
import NotesModel
import ObjectGraph
import Synchronization
import TestSupport
import Testing

/// The function under test: your `loadStore(into:at:progress:completion:)`, or the solution's.
enum Subject {
  static let loadStore:
    @Sendable (
      NSPersistentStoreCoordinator, URL, @escaping @Sendable (MigrationProgress) -> Void,
      @escaping @Sendable (Result<NSPersistentStore, any Error>) -> Void
    ) -> Void = CodeUnderTest.pick(
      starter: Exercise07.loadStore(into:at:progress:completion:), solution: Exercise07Solution.loadStore(into:at:progress:completion:))
}

/// Said when a check's child process stopped (a crash, or the watchdog) instead of finishing.
let stoppedAdvice: Comment = """
  loadStore(into:at:progress:completion:) stopped the whole process, or never finished (what the process \
  printed follows). A store that cannot be added is news for the completion, not a reason to stop the app.
  """

@Suite("Exercise 07: load the store in the background", .temporaryFolders)
struct LoadStoreTests {
  @Test("Called on the main queue: loadStore returns before the store is added, and the migration runs off the main queue")
  func returnsAtOnce() async throws { try await runInChildProcess(.returnsAtOnce) }

  @Test("From another thread: the completion runs once, on the main queue, with the store, and the old store is migrated")
  func completesOnTheMainQueue() async throws { try await runInChildProcess(.completesOnTheMainQueue) }

  @Test("A file that is not a store: the error reaches the completion, on the main queue, and the file is left untouched")
  func errorReachesTheCompletion() async throws { try await runInChildProcess(.errorReachesTheCompletion) }

  @Test("A store from a newer app that this one cannot migrate back: the refusal (134140) reaches the completion, the file untouched")
  func newerStoreIsRefused() async throws { try await runInChildProcess(.newerStoreIsRefused) }
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
    The check '\(self)' did not finish within 25 seconds: loadStore, or a block it queued, never returned. \
    Something waits for a queue that is waiting for it: look for a wait in loadStore or in what it queues.
    """
  }
}

/// Everything one call of loadStore did, as its progress handler and its completion saw it.
final class LoadLog: Sendable {
  /// One progress report: how far, whether it came on the thread that called loadStore, and whether loadStore
  /// had returned.
  struct Report: Sendable {
    let fraction: Double
    let onCallersThread: Bool
    let beforeReturn: Bool
  }

  /// One call of the completion.
  struct Call: Sendable {
    let result: Result<NSPersistentStore, any Error>
    let onMainQueue: Bool
    let onCallersThread: Bool
    /// Whether it ran on the thread that had reported the migration's first progress: called right where the
    /// store was added.
    let onMigrationThread: Bool
    let beforeReturn: Bool

    var error: (any Error)? {
      if case .failure(let error) = result { return error }
      return nil
    }
  }

  private let hasReturned = Atomic<Bool>(false)
  /// The thread that called loadStore (set by ``markCalling()``).
  private let callersThread = Mutex<pthread_t?>(nil)
  /// The thread that reported the migration's first progress.
  private let migrationThread = Mutex<pthread_t?>(nil)
  /// Entered at creation, left when loadStore has returned: a migration off the caller's thread waits on it.
  private let returning = DispatchGroup()
  private let recordedReports = Mutex<[Report]>([])
  /// Whether the main queue could run a block while the migration ran; `nil` before the first report.
  private let mainQueueFree = Mutex<Bool?>(nil)
  private let recordedCalls = Mutex<[Call]>([])
  private let firstCall = DispatchSemaphore(value: 0)

  init() { returning.enter() }

  /// The progress handler to pass to loadStore.
  ///
  /// At the first report: a migration on another thread than loadStore's caller waits (10 seconds at most) until
  /// loadStore has returned, so it cannot end sooner; then it asks the main queue to run a block, and waits 3
  /// seconds at most to see whether the main queue is free while the migration runs. (A queue-specific probe
  /// cannot tell here: the engine migrates inside a block it runs synchronously on its database's own queue.)
  var progress: @Sendable (MigrationProgress) -> Void {
    { [self] report in
      let caller = callersThread.withLock { $0 }
      let onCallersThread = caller.map { pthread_equal($0, pthread_self()) != 0 } ?? false
      let beforeReturn = !hasReturned.load(ordering: .sequentiallyConsistent)
      let isFirst = recordedReports.withLock { reports in
        reports.append(Report(fraction: report.fractionCompleted, onCallersThread: onCallersThread, beforeReturn: beforeReturn))
        return reports.count == 1
      }
      guard isFirst else { return }
      migrationThread.withLock { $0 = pthread_self() }
      if beforeReturn && !onCallersThread { _ = returning.wait(timeout: .now() + .seconds(10)) }
      let answered = DispatchSemaphore(value: 0)
      DispatchQueue.main.async { answered.signal() }
      let free = answered.wait(timeout: .now() + .seconds(3)) == .success
      mainQueueFree.withLock { $0 = free }
    }
  }

  /// Says that loadStore is about to be called on this thread.
  func markCalling() { callersThread.withLock { $0 = pthread_self() } }

  /// Whether the main queue was blocked while the store migrated.
  var mainQueueBlockedByMigration: Bool { mainQueueFree.withLock { $0 } == false }

  /// The completion to pass to loadStore.
  var completion: @Sendable (Result<NSPersistentStore, any Error>) -> Void {
    { [self] result in
      let caller = callersThread.withLock { $0 }
      let migration = migrationThread.withLock { $0 }
      let call = Call(
        result: result, onMainQueue: MainQueueProbe.isOnMainQueue,
        onCallersThread: caller.map { pthread_equal($0, pthread_self()) != 0 } ?? false,
        onMigrationThread: migration.map { pthread_equal($0, pthread_self()) != 0 } ?? false,
        beforeReturn: !hasReturned.load(ordering: .sequentiallyConsistent))
      recordedCalls.withLock { $0.append(call) }
      firstCall.signal()
    }
  }

  /// Says that loadStore has returned, and lets a migration that waits for it go on.
  func markReturned() {
    guard !hasReturned.exchange(true, ordering: .sequentiallyConsistent) else { return }
    returning.leave()
  }

  /// Waits up to 15 seconds for the first call of the completion, then a little longer for a second one, which
  /// would be a mistake; false when none came.
  func waitForCompletion() -> Bool {
    guard firstCall.wait(timeout: .now() + .seconds(15)) == .success else { return false }
    Thread.sleep(forTimeInterval: 0.3)
    DispatchQueue.main.sync {}
    return true
  }

  var reports: [Report] { recordedReports.withLock { $0 } }
  var calls: [Call] { recordedCalls.withLock { $0 } }

  /// Throws an ``ExerciseNotDone`` that reached the completion, so the check says "not done yet".
  func rethrowNotDone() throws {
    for call in calls {
      if let error = call.error { try rethrowIfNotDone(error) }
    }
  }
}

/// What a check says when the completion never came.
func noCompletion(_ situation: String) -> Comment {
  """
  \(situation), but the completion was never called (the checks waited 15 seconds). The app's launch screen \
  waits for it: without it, the app shows its placeholder forever. Call it exactly once, on every path: with \
  the store, or with the error.
  """
}

/// The checks that explain a mistake other checks meet too, by the first words of their names: the others say
/// briefly that they fail for the same reason, and where it is explained.
enum Explained {
  static let success = "\"From another thread: the completion runs once, on the main queue…\""
  static let failure = "\"A file that is not a store…\""
}

/// The error's code, as a check names it: "error 134100".
func code(_ error: any Error) -> String { "error \((error as NSError).code)" }

/// Why adding a store that version 2 can migrate failed, told by the error's code when the code tells it;
/// `nil` when it does not.
func whyTheMigrationFailed(_ error: any Error) -> String? {
  switch (error as NSError).code {
  case NSPersistentStoreIncompatibleVersionHashError:
    return """
      Adding the store failed with error 134100: the store was made by version 1 of the model, and adding it \
      did not ask for a migration, so the engine refused a store made by another version. Every user who \
      updates the app would meet this. Ask for the store to be migrated, and for the mapping to be inferred, \
      in the options you add it with.
      """
  case NSMigrationMissingMappingModelError:
    return """
      Adding the store failed with error 134140: a migration was asked for, but no mapping model was found, and \
      version 1 to version 2 is a change the engine can infer. Ask for the mapping to be inferred too, in the \
      options you add the store with.
      """
  default:
    return nil
  }
}

/// Loads a new, empty store (no migration) with loadStore, from a thread of the test runner, and tells whether
/// its completion came on the main queue; `nil` when it came with an error, or not at all.
func successArrivesOnTheMainQueue() throws -> Bool? {
  let storeURL = try TemporaryFolder().appending("New.sqlite")
  let coordinator = NSPersistentStoreCoordinator(managedObjectModel: try TutorialStack.model())
  let log = LoadLog()
  log.markCalling()
  Subject.loadStore(coordinator, storeURL, log.progress, log.completion)
  log.markReturned()
  guard log.waitForCompletion(), let call = log.calls.first, call.error == nil else { return nil }
  return call.onMainQueue
}

/// The notes in the store, read through a new context on `coordinator`: title, whether it has a modifiedAt, and
/// its wordCount.
func notes(in coordinator: NSPersistentStoreCoordinator) throws -> [(title: String, modified: Bool, wordCount: Int32)] {
  let reader = TutorialStack.context(.privateQueue, on: coordinator)
  return try reader.performAndWait {
    let request = NSFetchRequest<Note>(entityName: "Note")
    return try reader.fetch(request).map { ($0.title, $0.modifiedAt != nil, $0.wordCount) }
  }
}

// MARK: - The checks

/// The checks; each runs in a child process.
enum ChildCheck: String, Codable, Sendable, CustomStringConvertible, ChildProcessCheck {
  case returnsAtOnce, completesOnTheMainQueue, errorReachesTheCompletion, newerStoreIsRefused

  var description: String { rawValue }

  func run() throws {
    switch self {
    case .returnsAtOnce: try Self.checkReturnsAtOnce()
    case .completesOnTheMainQueue: try Self.checkCompletesOnTheMainQueue()
    case .errorReachesTheCompletion: try Self.checkErrorReachesTheCompletion()
    case .newerStoreIsRefused: try Self.checkNewerStoreIsRefused()
    }
  }

  private static func checkReturnsAtOnce() throws {
    let storeURL = try TemporaryFolder().appending("Notes.sqlite")
    // Version 1 of the app wrote this store; the app now runs with version 2, so adding it migrates it.
    try TutorialStack.writeVersionOneStore(at: storeURL, notes: 200)
    let coordinator = NSPersistentStoreCoordinator(managedObjectModel: try TutorialStack.model())
    let log = LoadLog()

    // As an app calls it: on the main queue, at launch.
    let storesAtReturn = DispatchQueue.main.sync {
      log.markCalling()
      Subject.loadStore(coordinator, storeURL, log.progress, log.completion)
      let stores = coordinator.persistentStores.count
      log.markReturned()
      return stores
    }
    try log.rethrowNotDone()

    let calledEarly = log.calls.filter { $0.beforeReturn && $0.onCallersThread }
    #expect(
      calledEarly.isEmpty,
      """
      The completion ran before loadStore returned, on the caller's thread. The caller may not be ready for it \
      yet (it has not even shown its placeholder), and it expects the outcome on the main queue, later.
      """)
    guard log.waitForCompletion() else {
      Issue.record(
        """
        The completion never came (the checks waited 15 seconds), so this check cannot tell whether loadStore \
        returns before the store is added. The check \(Explained.success) says more.
        """)
      return
    }
    if let error = log.calls.first?.error {
      Issue.record(
        """
        The store was not added (\(code(error))), so this check cannot tell whether loadStore returns before the \
        store is added. The check \(Explained.success) says why it was not.
        """)
      return
    }
    // Where the main queue went, told apart by where and when the migration first reported its progress: on the
    // caller's thread (the main queue here) before loadStore returned; on another thread, while loadStore had not
    // returned and the main queue could not run a block (loadStore was waiting for the store); or only after it
    // returned, while the main queue could not run a block (the migration itself ran in a block queued there).
    let inside = log.reports.filter { $0.onCallersThread && $0.beforeReturn }.count
    let onMain = log.reports.filter(\.onCallersThread).count
    let startedBeforeReturn = log.reports.first?.beforeReturn ?? false
    let freeze = """
      While it runs, the app's UI cannot draw or answer a touch, and a migration of a big store takes seconds: the \
      system may even end an app whose launch takes that long.
      """
    let blocked: String?
    if inside > 0 {
      blocked = """
        The migration ran on the main queue, inside loadStore: it reported its progress on the caller's thread \
        before loadStore returned, and when loadStore returned, the store was already added. \(freeze) \
        Queuing only the completion for later does not help: the slow part is adding the store. Add it on \
        another queue, and return at once.
        """
    } else if storesAtReturn > 0 || (startedBeforeReturn && log.mainQueueBlockedByMigration) {
      blocked = """
        The migration ran on another queue, but loadStore, called on the main queue, waited there until it was \
        done: when loadStore returned, the store was already added\(log.reports.isEmpty ? "" : ", and meanwhile the main queue could not run anything (the checks queued a block there, and it did not run within 3 seconds)"). \
        (The checks hold a migration on another queue back until loadStore returns, so this wait lasted 10 \
        seconds.) \(freeze) Start the work and return without waiting: the completion says when the store is ready.
        """
    } else if onMain > 0 || log.mainQueueBlockedByMigration {
      blocked = """
        The migration ran on the main queue, after loadStore returned: the main queue could not run anything \
        while it did (the checks queued a block there, and it did not run within 3 seconds). A block queued on \
        the main queue only moves the freeze a moment later. \(freeze) Add the store on another queue.
        """
    } else if log.reports.isEmpty {
      blocked = """
        The store needed a migration, yet the progress handler was never called. Hand it to the store options as \
        it is: an app shows it on its launch screen while a big store migrates. (Without it, these checks also \
        cannot see whether the migration ran on the main queue.)
        """
    } else {
      blocked = nil
    }
    if let blocked { Issue.record(Comment(rawValue: blocked)) }
  }

  private static func checkCompletesOnTheMainQueue() throws {
    let storeURL = try TemporaryFolder().appending("Notes.sqlite")
    try TutorialStack.writeVersionOneStore(at: storeURL, notes: 40)
    let coordinator = NSPersistentStoreCoordinator(managedObjectModel: try TutorialStack.model())
    let log = LoadLog()

    // From a thread of the test runner: neither the main queue nor the coordinator's.
    log.markCalling()
    Subject.loadStore(coordinator, storeURL, log.progress, log.completion)
    log.markReturned()
    try log.rethrowNotDone()
    guard log.waitForCompletion() else {
      Issue.record(noCompletion("The store was made by version 1 of the model and needs a migration"))
      return
    }

    let inside = log.reports.filter { $0.onCallersThread && $0.beforeReturn }
    #expect(
      inside.isEmpty,
      """
      Called from another thread, loadStore migrated the store on that thread before returning: its caller \
      waited for the whole migration. It must return at once, whichever queue calls it.
      """)
    let calls = log.calls
    #expect(
      calls.count == 1,
      "The completion should be called exactly once per loadStore; it was called \(calls.count) times. The app would show its notes twice.")
    guard let call = calls.first else { return }
    #expect(
      call.onMainQueue,
      """
      The completion ran off the main queue\(call.onMigrationThread ? ", on the thread that had just migrated the store: it was called right where the store was added" : ""). \
      The app builds its real screen in the completion, and the UI lives on the main queue: hand the outcome \
      over to the main queue, and call the completion there.
      """)
    switch call.result {
    case .failure(let error):
      Issue.record(
        Comment(
          rawValue: whyTheMigrationFailed(error)
            ?? """
            The completion reported an error, but this store can be migrated: version 1 of the model made it, and \
            the engine can infer the mapping to version 2. It got: \(error)
            """))
    case .success(let store):
      #expect(
        store.url?.standardizedFileURL.path == storeURL.standardizedFileURL.path,
        "The completion should get the store at \(storeURL.path); it got \(store).")
      #expect(
        coordinator.persistentStores.count == 1,
        "The store should be added to the coordinator given to loadStore; it has \(coordinator.persistentStores.count) stores.")
      let found = try notes(in: coordinator)
      #expect(found.count == 40, "The migrated store should hold the 40 notes version 1 wrote; it holds \(found.count).")
      #expect(
        found.filter(\.modified).count == 20,
        "Version 2 renamed updatedAt to modifiedAt through a renaming identifier: the 20 notes that had one should keep it; \(found.filter(\.modified).count) do."
      )
      #expect(
        log.reports.isEmpty || log.reports.last?.fraction == 1, "The last progress report should say the migration is done (1.0).")
    }
  }

  private static func checkErrorReachesTheCompletion() throws {
    let storeURL = try TemporaryFolder().appending("Notes.sqlite")
    let original = Data("Shopping list\n- milk\n- eggs\n".utf8)
    try original.write(to: storeURL)
    let coordinator = NSPersistentStoreCoordinator(managedObjectModel: try TutorialStack.model())
    let log = LoadLog()

    DispatchQueue.main.sync {
      log.markCalling()
      Subject.loadStore(coordinator, storeURL, log.progress, log.completion)
      log.markReturned()
    }
    try log.rethrowNotDone()
    #expect(
      !log.calls.contains { $0.beforeReturn && $0.onCallersThread },
      """
      The completion ran before loadStore returned, on the caller's thread. Even when adding the store fails at \
      once, report it the same way as every other outcome: later, on the main queue.
      """)
    guard log.waitForCompletion() else {
      Issue.record(
        noCompletion("The file at the store's URL is a text file, so adding the store fails"))
      return
    }
    let calls = log.calls
    #expect(calls.count == 1, "The completion should be called exactly once; it was called \(calls.count) times.")
    if let call = calls.first {
      if !call.onMainQueue {
        // Told apart by a store that opens: does its outcome reach the main queue?
        let success = try successArrivesOnTheMainQueue()
        Issue.record(
          Comment(
            rawValue: success == false
              ? "The error, too, reached the completion off the main queue, for the same reason as in the check \(Explained.success)."
              : """
              The error reached the completion off the main queue\(success == true ? ", although a store that opens reaches it on the main queue: the path that fails calls the completion right where adding the store failed" : ""). \
              The app shows the error in its UI, which lives on the main queue: hand every outcome over to the \
              main queue, the errors too.
              """))
      }
      #expect(
        (call.error as? NSError)?.code == NSPersistentStoreInvalidTypeError,
        """
        The file at the store's URL is a text file, so adding the store fails with error 134000 \
        (persistentStoreInvalidType), which says what the file is. The completion should get that error \
        unchanged, so the app can tell the user and decide what to do. It got: \
        \(call.error.map { "\($0)" } ?? "success, with a store that cannot be there")
        """)
    }
    #expect(
      coordinator.persistentStores.isEmpty, "The store could not be added, yet the coordinator has \(coordinator.persistentStores.count).")
    let now = FileManager.default.contents(atPath: storeURL.path)
    #expect(
      now == original,
      """
      The file at \(storeURL.path) must be left exactly as it was: a file the app cannot open may be the user's \
      only copy of their notes. It was \(now == nil ? "removed" : "changed").
      """)
  }

  private static func checkNewerStoreIsRefused() throws {
    let storeURL = try TemporaryFolder().appending("Notes.sqlite")
    // Version 2 of the app wrote this store, after turning `priority` from text into a number; the user then
    // went back to version 1 (a restored backup, a second device). Version 1 finds version 2's model in the
    // store's own copy of it, but no migration can turn a number back into text: adding the store fails.
    let version2 = Inbox.model(priority: .integer16)
    do {
      let stack = try StoreStack(model: version2, at: storeURL)
      let writer = stack.context
      try writer.performAndWait {
        guard let entity = version2.entitiesByName["Note"] else {
          throw CocoaError(.coreData, userInfo: [NSLocalizedDescriptionKey: "No Note entity."])
        }
        let note = NSManagedObject(entity: entity, insertInto: writer)
        note.setValue("Written by version 2", forKey: "title")
        note.setValue(Int16(3), forKey: "priority")
        try writer.save()
      }
      try stack.close()
    }
    let original = try Data(contentsOf: storeURL)
    let coordinator = NSPersistentStoreCoordinator(managedObjectModel: Inbox.model(priority: .string))
    let log = LoadLog()

    log.markCalling()
    Subject.loadStore(coordinator, storeURL, log.progress, log.completion)
    log.markReturned()
    try log.rethrowNotDone()
    guard log.waitForCompletion() else {
      Issue.record(
        """
        This store cannot be added either (a newer version of the model made it), and the completion was never \
        called (the checks waited 15 seconds), as in the check \(Explained.failure).
        """)
      return
    }
    let calls = log.calls
    #expect(calls.count == 1, "The completion should be called exactly once; it was called \(calls.count) times.")
    if let call = calls.first {
      let got = (call.error as? NSError)?.code
      #expect(
        got == NSMigrationMissingMappingModelError,
        Comment(
          rawValue: got == NSPersistentStoreIncompatibleVersionHashError
            ? """
            The completion got error 134100, not 134140: adding the store did not ask for a migration, so the \
            engine refused it before looking for one (the check \(Explained.success) says more).
            """
            : """
            Version 2 of the model made this store, and the app runs version 1, which cannot turn version 2's \
            numbers back into text: adding the store fails with error 134140 (NSMigrationMissingMappingModelError). \
            The completion should get that error unchanged: the app can then say what happened and offer a way \
            out, rather than hang or crash. It got: \(call.error.map { "\($0)" } ?? "success")
            """))
    }
    #expect(
      try Data(contentsOf: storeURL) == original,
      "The store at \(storeURL.path) must be left exactly as it was when it cannot be opened; it was changed.")
  }
}
