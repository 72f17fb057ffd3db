// The checks of exercise 05. They run against your code in Exercises/05-save-changes-in-order/Sources, or
// against the reference solution when WORKSHOP_SOLUTIONS=1. Each check runs in a child process, so that code
// which stops the process (fatalError(), try!), or never returns (a DispatchQueue.main.sync called on the
// main queue), fails one check with an explanation instead of ending or hanging the whole run.
//
// Every check builds stage 2's stack itself: a private-queue writer holding the coordinator of a SQLite
// store, and a main-queue context whose parent is the writer.
import Dispatch
import EngineTestSupport
import Exercise05
import Exercise05Solution
import ExerciseChecks
import Foundation
import NotesModel
import ObjectGraph
import Synchronization
import TestSupport
import Testing

/// The function under test: your `saveChanges(main:writer:completion:)`, or the solution's.
enum Subject {
  static let saveChanges:
    @Sendable (NSManagedObjectContext, NSManagedObjectContext, @escaping @Sendable (Result<Void, any Error>) -> Void) throws -> Void =
      CodeUnderTest.pick(
        starter: Exercise05.saveChanges(main:writer:completion:), solution: Exercise05Solution.saveChanges(main:writer:completion:))
}

/// Said when a check's child process stopped (a crash, or the watchdog) instead of finishing.
let stoppedAdvice: Comment = """
  saveChanges(main:writer:completion:) stopped the whole process, or never finished. A failed save is an \
  error for the caller, not a reason to stop the app. What the process printed before it stopped is below.
  """

@Suite("Exercise 05: saveChanges(), main first, then the writer", .temporaryFolders)
struct SaveChangesTests {
  @Test("From the main queue: the main context saves before saveChanges returns, then the writer writes, and the completion says so")
  func fromTheMainQueue() async throws { try await runInChildProcess(.fromTheMainQueue) }

  @Test("The writer writes on its own queue: saveChanges returns without waiting for the disk")
  func doesNotWaitForTheDisk() async throws { try await runInChildProcess(.doesNotWaitForTheDisk) }

  @Test("From another thread: each context is touched only on its own queue")
  func fromAnotherThread() async throws { try await runInChildProcess(.fromAnotherThread) }

  @Test("With nothing to save the completion still reports success, and the writer's pending changes are still written")
  func cleanContexts() async throws { try await runInChildProcess(.cleanContexts) }

  @Test("The main context's save fails: its error is thrown, nothing moves on, and the completion is not called")
  func mainSaveFails() async throws { try await runInChildProcess(.mainSaveFails) }

  @Test("The writer's save fails: the completion gets the error, and the writer keeps the changes for the next try")
  func writerSaveFails() async throws { try await runInChildProcess(.writerSaveFails) }
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
    The check '\(self)' did not finish within 25 seconds: saveChanges, or a block it queued, never \
    returned. Something waits for a queue that is waiting for it: the checks call saveChanges on the main \
    queue too, where the completion runs, and where a block sent with DispatchQueue.main.sync can never start.
    """
  }
}

/// Records the did-save notifications of the two contexts, in order, and where each was posted, for as
/// long as the log is in use.
struct SaveLog: Sendable {
  /// One save: which context, and whether it ran on the main queue.
  struct Event: Equatable, Sendable, CustomStringConvertible {
    let context: String
    let onMainQueue: Bool

    var description: String { "\(context) saved on \(onMainQueue ? "the main queue" : "another queue")" }
  }

  private let log: NotificationLog<Event>

  /// Starts recording. `afterMainSave` runs on the main context's queue right after each of its saves.
  init(_ fixture: Fixture, afterMainSave: (@Sendable () -> Void)? = nil) {
    let (main, writer) = (fixture.main, fixture.writer)
    log = NotificationLog(NSManagedObjectContext.didSaveObjectsNotification) { note in
      guard let saver = note.object as? NSManagedObjectContext, saver === main || saver === writer else { return nil }
      defer { if saver === main { afterMainSave?() } }
      return Event(context: saver === main ? "main" : "writer", onMainQueue: MainQueueProbe.isOnMainQueue)
    }
  }

  /// The saves so far.
  var saves: [Event] { log.entries }
  /// Which contexts saved so far, in order: "main", "writer".
  var savers: [String] { saves.map(\.context) }
}

/// Records each call of the completion handler.
final class CompletionLog: Sendable {
  /// One call: the error it reported (`nil` for success), and whether it ran on the main queue.
  struct Call: Sendable {
    let error: (any Error)?
    let onMainQueue: Bool
  }

  private let recorded = Mutex<[Call]>([])
  private let firstCall = DispatchSemaphore(value: 0)

  /// The handler to pass to saveChanges.
  var handler: @Sendable (Result<Void, any Error>) -> Void {
    { [self] result in
      let error: (any Error)?
      switch result {
      case .success: error = nil
      case .failure(let failure): error = failure
      }
      recorded.withLock { $0.append(Call(error: error, onMainQueue: MainQueueProbe.isOnMainQueue)) }
      firstCall.signal()
    }
  }

  /// Waits up to `seconds` for the first call; false when none came.
  func waitForFirstCall(seconds: Int = 10) -> Bool {
    firstCall.wait(timeout: .now() + .seconds(seconds)) == .success
  }

  /// The calls so far.
  var calls: [Call] { recorded.withLock { $0 } }
}

/// A SQLite store in a temporary folder, and stage 2's two contexts on it.
struct Fixture {
  let coordinator: NSPersistentStoreCoordinator
  let writer: NSManagedObjectContext
  let main: NSManagedObjectContext

  init() throws {
    coordinator = try TutorialStack.coordinator(storeURL: try TemporaryFolder().appending("Notes.sqlite"))
    writer = TutorialStack.context(.privateQueue, on: coordinator)
    writer.name = "Writer"
    main = NSManagedObjectContext(concurrencyType: .mainQueueConcurrencyType)
    main.name = "Main"
    main.parent = writer
  }

  /// Inserts a note in the main context, on the main queue.
  func insertNote(title: String, createdAt: Date?) {
    main.performAndWait {
      let note = Note(context: main)
      note.title = title
      note.createdAt = createdAt
    }
  }

  /// The notes in the store (title and body), read through a context of the checks' own.
  func notesInStore() throws -> [String] {
    let reader = TutorialStack.context(.privateQueue, on: coordinator)
    return try reader.performAndWait {
      try reader.fetch(NSFetchRequest<Note>(entityName: "Note")).map { note in
        note.body.map { "\(note.title): \($0)" } ?? note.title
      }.sorted()
    }
  }

  /// Waits until the writer's queue and the main queue have run everything queued on them so far (a
  /// writer's block may queue a completion on the main queue, hence the order).
  func drainQueues() {
    writer.performAndWait {}
    main.performAndWait {}
  }

  /// Calls saveChanges from the checks' thread (not the main queue) and waits for its completion.
  func saveChangesAndWait(_ completion: CompletionLog) throws -> Bool {
    try Subject.saveChanges(main, writer, completion.handler)
    return completion.waitForFirstCall()
  }
}

/// What a check says when the completion never came.
func noCompletion(_ situation: String) -> Comment {
  """
  \(situation), but the completion was never called (the checks waited 10 seconds). The caller may be \
  waiting for it to hide a spinner or to let the app quit: call it exactly once, on every path, with \
  .success or the writer's error.
  """
}

/// What the checks say when, once everything queued has run, the main context has saved but the writer still
/// holds the changes, unsaved: they never reached the file. Said in full by the check that calls saveChanges
/// as an app does; the others say only what they saw.
func writerNeverWrote(_ notes: [String]) -> Comment {
  """
  The main context saved, and the note then waited in the writer, unsaved: once everything saveChanges queued \
  had run, the writer still held it, and the store held \(notes). A save of the main context only hands its \
  changes up to the writer, in memory; if the app is killed now, they are lost. The writer's own save, after \
  the main context's has finished, is the one that writes them to the file.
  """
}

// MARK: - The checks

/// The checks; each runs in a child process.
enum ChildCheck: String, Codable, Sendable, CustomStringConvertible, ChildProcessCheck {
  case fromTheMainQueue, doesNotWaitForTheDisk, fromAnotherThread, cleanContexts, mainSaveFails, writerSaveFails

  var description: String { rawValue }

  func run() throws {
    switch self {
    case .fromTheMainQueue: try Self.checkFromTheMainQueue()
    case .doesNotWaitForTheDisk: try Self.checkDoesNotWaitForTheDisk()
    case .fromAnotherThread: try Self.checkFromAnotherThread()
    case .cleanContexts: try Self.checkCleanContexts()
    case .mainSaveFails: try Self.checkMainSaveFails()
    case .writerSaveFails: try Self.checkWriterSaveFails()
    }
  }

  private static func checkFromTheMainQueue() throws {
    let fixture = try Fixture()
    let log = SaveLog(fixture)
    fixture.insertNote(title: "Buy milk", createdAt: Date())

    // As an app calls it: on the main queue (a button's action, the app resigning active).
    let completion = CompletionLog()
    let atReturn = try fixture.main.performAndWait {
      try Subject.saveChanges(fixture.main, fixture.writer, completion.handler)
      return (mainSaved: log.savers.contains("main"), mainHasChanges: fixture.main.hasChanges)
    }
    let called = completion.waitForFirstCall()
    fixture.drainQueues()
    let writerHolds = fixture.writer.performAndWait { fixture.writer.hasChanges }
    let notes = try fixture.notesInStore()

    guard log.savers.contains("main") else {
      Issue.record(
        """
        The main context never saved (the checks waited for the completion and for everything queued): the note \
        is still only in the main context, and the store holds \(notes). saveChanges starts with the main \
        context's save, which hands its changes to the writer.
        """)
      return
    }
    #expect(
      atReturn.mainSaved && !atReturn.mainHasChanges,
      """
      When saveChanges returned, the main context had not saved yet: it saved later, so its save was queued to \
      run after saveChanges returned, instead of run and waited for. Its save must be over before saveChanges \
      returns, so that the writer holds every change, whatever the app does next; on the main queue, a queued \
      block cannot even start until the caller's code is done.
      """)
    guard called else {
      Issue.record(noCompletion("The main context held a new note"))
      return
    }
    let saves = log.saves
    if !log.savers.contains("writer") && writerHolds {
      Issue.record(writerNeverWrote(notes))
    } else {
      #expect(
        log.savers == ["main", "writer"],
        "The contexts saved in the order \(log.savers). Expected the main context to save, then the writer.")
      #expect(notes == ["Buy milk"], "Once the completion has been called, the note should be in the store; it holds \(notes).")
    }
    if let mainSave = saves.first(where: { $0.context == "main" }) {
      #expect(mainSave.onMainQueue, "The main context saved off the main queue. A main-queue context is used on the main queue only.")
    }
    if let writerSave = saves.first(where: { $0.context == "writer" }) {
      #expect(
        !writerSave.onMainQueue,
        """
        The writer saved on the main queue. Writing to the file is the slow part of a save, and stage 2 exists \
        to take it off the main queue: the writer saves on its own queue.
        """)
    }

    let calls = completion.calls
    #expect(calls.count == 1, "The completion should be called exactly once per saveChanges; it was called \(calls.count) times.")
    if let call = calls.first {
      #expect(call.error == nil, "Both saves can succeed here, yet the completion reported: \(call.error.map { "\($0)" } ?? "")")
      #expect(
        call.onMainQueue,
        """
        The completion ran off the main queue. The app shows the outcome of a save (an alert, a spinner) in its \
        UI, which lives on the main queue: deliver it there (DispatchQueue.main.async { completion(result) }).
        """)
    }
  }

  private static func checkDoesNotWaitForTheDisk() throws {
    let fixture = try Fixture()
    // Right after the main context's save, the checks keep the writer's queue busy for up to three seconds, as
    // a slow disk or a big earlier write would. The writer's save can only run after that.
    let busy = DispatchSemaphore(value: 0)
    let writer = fixture.writer
    let log = SaveLog(fixture) { writer.perform { _ = busy.wait(timeout: .now() + .seconds(3)) } }
    fixture.insertNote(title: "Plan the hike", createdAt: Date())

    let completion = CompletionLog()
    let started = Date()
    let writerSavedAtReturn = try fixture.main.performAndWait {
      try Subject.saveChanges(fixture.main, fixture.writer, completion.handler)
      return log.savers.contains("writer")
    }
    let waited = Date().timeIntervalSince(started)
    busy.signal()

    #expect(
      !writerSavedAtReturn,
      """
      saveChanges returned only after the writer had written to the store: called on the main queue, it held \
      the main queue for \(String(format: "%.1f", waited)) s while the writer's queue was busy. That is the \
      stall stage 2 removes. Save the writer with writer.perform { } (it queues the block and returns at \
      once), not performAndWait, and report the outcome through the completion.
      """)
    guard completion.waitForFirstCall() else {
      Issue.record(noCompletion("The main context held a new note"))
      return
    }
    fixture.drainQueues()
    let notes = try fixture.notesInStore()
    #expect(notes == ["Plan the hike"], "After the completion the note should be in the store; it holds \(notes).")
  }

  private static func checkFromAnotherThread() throws {
    let fixture = try Fixture()
    fixture.insertNote(title: "Call the plumber", createdAt: Date())

    // From here on, the engine reports every touch of a context from outside its queue. This code runs on a
    // thread of the test runner: neither the main queue nor the writer's queue.
    let recorder = ConcurrencyViolationRecorder()
    let completion = CompletionLog()
    let called = try fixture.saveChangesAndWait(completion)
    fixture.drainQueues()
    let violations = recorder.stop()

    #expect(
      violations.isEmpty,
      """
      saveChanges was called from a thread that is neither the main queue nor the writer's, and it touched a \
      context from there. Every use of a context, hasChanges included, belongs on its own queue: the main \
      context's inside main.performAndWait { }, the writer's inside writer.perform { }. The engine's \
      concurrency debugging reported:
      \(violations.joined(separator: "\n"))
      """)
    guard called else {
      Issue.record(noCompletion("The main context held a new note"))
      return
    }
    let notes = try fixture.notesInStore()
    #expect(notes == ["Call the plumber"], "After the completion the note should be in the store; it holds \(notes).")
  }

  private static func checkCleanContexts() throws {
    let fixture = try Fixture()
    let log = SaveLog(fixture)

    // Nothing has changed anywhere.
    let nothing = CompletionLog()
    guard try fixture.saveChangesAndWait(nothing) else {
      Issue.record(noCompletion("Neither context had changes, so there was nothing to save"))
      return
    }
    fixture.drainQueues()
    #expect(log.savers.isEmpty, "Neither context had changes, so neither should save; these saved: \(log.savers).")
    #expect(
      nothing.calls.count == 1 && nothing.calls.first?.error == nil,
      "With nothing to save the completion should be called once with .success; it got \(nothing.calls.map { $0.error.map { "\($0)" } ?? "success" })."
    )

    // A screen saved the main context by itself earlier: the main context is clean, the writer is not.
    fixture.insertNote(title: "Water the plants", createdAt: Date())
    try fixture.main.performAndWait { try fixture.main.save() }
    let writerOnly = CompletionLog()
    guard try fixture.saveChangesAndWait(writerOnly) else {
      Issue.record(noCompletion("The writer held a note the main context had saved into it"))
      return
    }
    fixture.drainQueues()
    let notes = try fixture.notesInStore()
    if notes != ["Water the plants"] {
      // Does the writer write when the main context has changes too? Then only the clean main context stops it.
      fixture.insertNote(title: "Pay the rent", createdAt: Date())
      let both = CompletionLog()
      let calledWithBoth = try fixture.saveChangesAndWait(both)
      fixture.drainQueues()
      let written = try fixture.notesInStore()
      if calledWithBoth && written.contains("Water the plants") {
        Issue.record(
          """
          The main context had nothing to save, but the writer did: the main context had saved a note into it \
          earlier (a screen can do that by itself, or a previous write failed). saveChanges wrote nothing then \
          (the store held \(notes)); it wrote the note only once the main context had changes again. The \
          writer's changes have to reach the file whether or not the main context has any: whether each context \
          saves depends on that context's own changes.
          """)
      } else {
        Issue.record(
          """
          The main context had nothing to save, but the writer held a note the main context had saved into it \
          earlier. After the completion, the store holds \(notes): the note never reached the file (nor did it \
          when the main context had changes too).
          """)
      }
    }
    #expect(
      writerOnly.calls.count == 1 && writerOnly.calls.first?.error == nil,
      "The writer's save can succeed here, so the completion should report .success once; it got \(writerOnly.calls.map { $0.error.map { "\($0)" } ?? "success" })."
    )
  }

  private static func checkMainSaveFails() throws {
    let fixture = try Fixture()
    let log = SaveLog(fixture)
    // The model requires Note.createdAt; this note has none, so the main context's save fails validation.
    fixture.insertNote(title: "No date yet", createdAt: nil)

    let completion = CompletionLog()
    let error = try errorThrown(by: { try Subject.saveChanges(fixture.main, fixture.writer, completion.handler) })
    if error == nil {
      // saveChanges returned normally. Its error may still be on the way to the completion (a main.perform block
      // that saves later, then hops to the main queue): wait for it a little, to tell where the error went.
      _ = completion.waitForFirstCall(seconds: 3)
    }
    fixture.drainQueues()
    let calls = completion.calls

    if let error {
      #expect(
        (error as NSError).code == NSValidationMissingMandatoryPropertyError,
        """
        The main context's save fails because Note.createdAt is required and empty: error 1570, \
        which names the entity and the property. Throw that error unchanged, so the app can say what is \
        missing. saveChanges threw instead: \(error)
        """)
      #expect(
        calls.isEmpty,
        """
        The main context's save failed, so nothing reached the writer and there is nothing to write; yet the \
        completion was called (\(calls.map { $0.error.map { "\($0)" } ?? "success" })). After a failed main save, \
        stop: do not go on to the writer, do not call the completion.
        """)
    } else if let reported = calls.first?.error {
      Issue.record(
        """
        The main context's save failed, and its error went to the completion, while saveChanges returned \
        normally. Throw it from saveChanges, before it returns: the caller learns at once that the user's \
        changes did not even reach the writer, while it can still keep the screen open. The completion is for \
        the outcome of the disk write. It got: \(reported)
        """)
    } else {
      let told = calls.isEmpty ? "" : ", and the completion reported success"
      Issue.record(
        """
        The new note has no createdAt, which the model requires, so the main context's save throws a \
        validation error. saveChanges returned normally\(told): nobody heard about the failure, and the user \
        believes the note is saved. Let the error reach the caller.
        """)
    }
    #expect(
      !log.savers.contains("writer"),
      "The main context's save failed, so the writer should not save at all; it did (saves: \(log.savers)).")
    let kept = fixture.main.performAndWait { fixture.main.insertedObjects.count }
    #expect(
      kept == 1,
      """
      After a failed save the main context must keep the user's changes, so the app can fix them (here: set \
      createdAt) and save again. It holds \(kept) new notes: was rollback() or reset() called?
      """)
    let notes = try fixture.notesInStore()
    #expect(notes.isEmpty, "A failed save writes nothing, yet the store holds \(notes).")
  }

  private static func checkWriterSaveFails() throws {
    let fixture = try Fixture()
    // A note already in the store.
    fixture.insertNote(title: "Groceries", createdAt: Date())
    try fixture.main.performAndWait { try fixture.main.save() }
    try fixture.writer.performAndWait { try fixture.writer.save() }
    // The user adds a body; a screen saves the main context, so the edit waits in the writer.
    try fixture.main.performAndWait {
      try fixture.main.fetch(NSFetchRequest<Note>(entityName: "Note")).first?.body = "milk, eggs"
      try fixture.main.save()
    }
    // Meanwhile something else (a share extension, another stack on the file) renames the same note. The
    // writer's save will find the row changed since it read it, and its merge policy (.error) refuses.
    let other = TutorialStack.context(.privateQueue, on: fixture.coordinator)
    try other.performAndWait {
      try other.fetch(NSFetchRequest<Note>(entityName: "Note")).first?.title = "Shopping"
      try other.save()
    }

    let first = CompletionLog()
    let firstCalled: Bool
    do {
      firstCalled = try fixture.saveChangesAndWait(first)
    } catch {
      try rethrowIfNotDone(error)
      Issue.record(
        """
        saveChanges threw, but the main context had nothing to save here: the failure is the writer's, and \
        it happens later, on the writer's queue. It belongs in the completion. It threw: \(error)
        """)
      return
    }
    guard firstCalled else {
      Issue.record(noCompletion("The writer's save failed (another context had changed the note)"))
      return
    }
    fixture.drainQueues()
    let reported = first.calls.first?.error
    let stored = try fixture.notesInStore()
    let waiting = fixture.writer.performAndWait { fixture.writer.updatedObjects.count }
    #expect(
      stored == ["Shopping"], "A failed save writes nothing; the store should hold the other context's rename only. It holds \(stored).")
    #expect(
      waiting == 1,
      """
      After the failed write the writer must keep the user's edit (one updated note), so nothing is lost and the \
      next saveChanges can try again. It holds \(waiting) updated notes: its unsaved changes were thrown away \
      after the error (rollback() and reset() both do that).
      """)
    guard waiting == 1 else { return }

    // The app decides how to resolve the conflict (per property, ours wins) and saves again.
    fixture.writer.mergePolicy = NSMergePolicy.mergeByPropertyObjectTrump
    let second = CompletionLog()
    let secondCalled = try fixture.saveChangesAndWait(second)
    fixture.drainQueues()
    let afterRetry = try fixture.notesInStore()
    let retryWrote = afterRetry == ["Shopping: milk, eggs"]

    if let reported {
      #expect(
        (reported as NSError).code == NSManagedObjectMergeError,
        """
        The writer's save fails: another context changed the same note since the writer read it, and the \
        writer's merge policy (.error) refuses to overwrite that. The completion should get that error, \
        error 133020, so the app can tell the user their edit is not on disk yet. It got: \(reported)
        """)
    } else if retryWrote {
      Issue.record(
        """
        The writer's save failed here (another context had changed the same note, and the writer's merge policy, \
        .error, refuses to overwrite that): the store is unchanged and the writer still holds the edit. Yet the \
        completion got .success, so the app tells the user their edit is safe. The completion should get the \
        save's error, 133020, so the app can say their edit is not on disk yet.
        """)
    } else {
      // The writer wrote nothing, now or on the retry: what keeps it from writing is another check's to say.
      Issue.record(
        """
        The writer held the user's edit, and the completion got .success, yet the edit never reached the file: \
        not on this call, where the writer's save would have failed with error 133020 for the completion, nor \
        on the next, once the conflict was resolved (the store holds \(afterRetry)).
        """)
      return
    }
    guard secondCalled else {
      Issue.record(noCompletion("The writer held an edit it could now save"))
      return
    }
    #expect(retryWrote, "Once the conflict is resolved, the next saveChanges should write the kept edit; the store holds \(afterRetry).")
    #expect(
      second.calls.first?.error == nil,
      "The retry can succeed, yet the completion reported: \(second.calls.first?.error.map { "\($0)" } ?? "")")
  }
}
