// The checks of exercise 03. They run against your code in Exercises/03-save-only-when-needed/Sources, or
// against the reference solution when WORKSHOP_SOLUTIONS=1. Each check runs in a child process, so that code
// which stops the process (fatalError(), try!) fails one check with an explanation instead of ending the run.
// Every check but one runs twice: with a main-queue context and with a private-queue context. The one more is
// called on the main queue, with a main-queue context, as a button's action would call it.
import EngineTestSupport
import Exercise03
import Exercise03Solution
import ExerciseChecks
import Foundation
import NotesModel
import ObjectGraph
import TestSupport
import Testing

/// The function under test: your `saveIfNeeded(_:)`, or the solution's.
enum Subject {
  static let saveIfNeeded: @Sendable (NSManagedObjectContext) throws -> Bool = CodeUnderTest.pick(
    starter: Exercise03.saveIfNeeded(_:), solution: Exercise03Solution.saveIfNeeded(_:))
}

/// Said when a check's child process stopped (a crash) instead of getting a thrown error back.
let stoppedAdvice: Comment = """
  saveIfNeeded(_:) stopped the whole process. Xcode's template answers a failed save with \
  fatalError("Unresolved error ..."); in an app that throws away everything the user just typed. \
  Throw the save's error to the caller instead (no fatalError(), abort() or try!).
  """

/// Said when the check on the main queue did not finish: its process stopped, or its watchdog ended it (the
/// report that follows says which, and why).
let mainQueueStoppedAdvice: Comment = """
  saveIfNeeded(_:), called on the main queue with a main-queue context, did not return: the process \
  stopped, or never finished. What it printed follows.
  """

/// The kinds of context `saveIfNeeded(_:)` must handle.
enum ContextKind: String, CaseIterable, Codable, Sendable {
  case mainQueue = "main-queue"
  case privateQueue = "private-queue"

  var concurrencyType: NSManagedObjectContext.ConcurrencyType { self == .mainQueue ? .mainQueue : .privateQueue }
}

@Suite("Exercise 03: save only when needed", .temporaryFolders)
struct SaveIfNeededTests {
  @Test("A context with no changes is not saved, and the answer is false", arguments: ContextKind.allCases)
  func skipsCleanContexts(kind: ContextKind) async throws { try await runInChildProcess(.skipsCleanContexts(kind)) }

  @Test("Inserts and updates are saved to the store, and the answer is true", arguments: ContextKind.allCases)
  func savesChanges(kind: ContextKind) async throws { try await runInChildProcess(.savesChanges(kind)) }

  @Test("Called from another thread, it touches the context only on the context's queue", arguments: ContextKind.allCases)
  func staysOnTheContextsQueue(kind: ContextKind) async throws { try await runInChildProcess(.staysOnTheContextsQueue(kind)) }

  @Test("A failed save: the validation error reaches the caller, and the context keeps its changes", arguments: ContextKind.allCases)
  func surfacesSaveErrors(kind: ContextKind) async throws { try await runInChildProcess(.surfacesSaveErrors(kind)) }

  @Test("Called on the main queue with a main-queue context, as a button's action would, it saves and returns")
  func returnsOnTheMainQueue() async throws { try await runInChildProcess(.returnsOnTheMainQueue) }
}

/// Runs `check` in a child process (``ChildProcess``): code that stops or hangs the process fails this one
/// check, with ``stoppedAdvice`` and what the process printed, instead of ending the whole test run.
func runInChildProcess(_ check: ChildCheck) async throws {
  let scope = try TemporaryFolder()  // both runs' folders, removed by the suite's .temporaryFolders scope
  let finished = await #expect(processExitsWith: .success, check.adviceWhenStopped) {
    [check = check as ChildCheck, scope = scope as TemporaryFolder] in ChildProcess.run(check, in: scope)
  }
  guard finished == nil else { return }
  // The process stopped. Run the check once more, only to collect what it printed before stopping.
  let stopped = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
    [check = check as ChildCheck, scope = scope as TemporaryFolder] in ChildProcess.run(check, in: scope, recordingErrors: false)
  }
  ChildProcess.reportStop(stopped)
}

/// A SQLite store in a temporary folder, and a context of the kind under test on it.
struct Fixture {
  let coordinator: NSPersistentStoreCoordinator
  let context: NSManagedObjectContext

  init(_ kind: ContextKind) throws {
    coordinator = try TutorialStack.coordinator(storeURL: try TemporaryFolder().appending("Notes.sqlite"))
    context = TutorialStack.context(kind.concurrencyType, on: coordinator)
    context.name = "Notes (\(kind.rawValue))"
  }

  /// Inserts a note, on the context's queue.
  func insertNote(title: String, createdAt: Date?) -> Note {
    context.performAndWait {
      let note = Note(context: context)
      note.title = title
      note.createdAt = createdAt
      return note
    }
  }

  /// The titles of the notes in the store, read through another context.
  func titlesInStore() throws -> [String] {
    let reader = TutorialStack.context(.privateQueue, on: coordinator)
    return try reader.performAndWait { try reader.fetch(NSFetchRequest<Note>(entityName: "Note")).map(\.title).sorted() }
  }
}

/// The checks; each runs in a child process, once per kind of context.
enum ChildCheck: Codable, Sendable, ChildProcessCheck {
  case skipsCleanContexts(ContextKind)
  case savesChanges(ContextKind)
  case staysOnTheContextsQueue(ContextKind)
  case surfacesSaveErrors(ContextKind)
  case returnsOnTheMainQueue

  /// What to say when the check's process stopped or never finished.
  var adviceWhenStopped: Comment {
    if case .returnsOnTheMainQueue = self { return mainQueueStoppedAdvice }
    return stoppedAdvice
  }

  /// The check on the main queue has a watchdog: a wait there for the main queue never ends by itself.
  var hangReport: String? {
    guard case .returnsOnTheMainQueue = self else { return nil }
    return """
      saveIfNeeded did not return within 25 seconds, called on the main queue with a main-queue context: it \
      waits on the main queue for work that needs the main queue. For a main-queue context, context.perform { } \
      queues its block on the main queue, the very queue a wait after it (a semaphore, a DispatchGroup) \
      blocks, so the block never runs and the wait never ends. performAndWait { } runs the block there and \
      then when it is called on the context's queue, and gives back what the block returns and throws: use it \
      instead of perform and a wait.
      """
  }

  func run() throws {
    switch self {
    case .skipsCleanContexts(let kind): try Self.checkSkipsCleanContexts(kind)
    case .savesChanges(let kind): try Self.checkSavesChanges(kind)
    case .staysOnTheContextsQueue(let kind): try Self.checkStaysOnTheContextsQueue(kind)
    case .surfacesSaveErrors(let kind): try Self.checkSurfacesSaveErrors(kind)
    case .returnsOnTheMainQueue: try Self.checkReturnsOnTheMainQueue()
    }
  }

  private static func checkReturnsOnTheMainQueue() throws {
    let fixture = try Fixture(.mainQueue)
    _ = fixture.insertNote(title: "Buy milk", createdAt: Date())

    // A button's action: on the main queue, the main-queue context's own queue. The watchdog (hangReport)
    // ends the process when this never returns.
    let saved = try DispatchQueue.main.sync { try Subject.saveIfNeeded(fixture.context) }
    #expect(
      saved,
      "Called on the main queue, the main-queue context holds a new note: saveIfNeeded should save it and return true; it returned false.")
    let titles = try fixture.titlesInStore()
    #expect(
      titles == ["Buy milk"],
      "Called on the main queue, saveIfNeeded returned, but the store holds \(titles) instead of the new note, \"Buy milk\".")
  }

  private static func checkSkipsCleanContexts(_ kind: ContextKind) throws {
    let fixture = try Fixture(kind)
    let saved = try Subject.saveIfNeeded(fixture.context)
    #expect(
      saved == false,
      """
      A new \(kind.rawValue) context has no changes, so there is nothing to save: saveIfNeeded should skip the \
      save and return false. It returned true. Look at context.hasChanges first.
      """)

    // Reading is not changing: after a fetch there is still nothing to save.
    try fixture.context.performAndWait { _ = try fixture.context.fetch(NSFetchRequest<Note>(entityName: "Note")) }
    #expect(
      try Subject.saveIfNeeded(fixture.context) == false, "After only a fetch the context has no changes; saveIfNeeded returned true.")
  }

  private static func checkSavesChanges(_ kind: ContextKind) throws {
    let fixture = try Fixture(kind)
    let note = fixture.insertNote(title: "Buy milk", createdAt: Date())

    let savedInsert = try Subject.saveIfNeeded(fixture.context)
    #expect(savedInsert, "The \(kind.rawValue) context holds a new note, so saveIfNeeded should save and return true; it returned false.")
    var titles = try fixture.titlesInStore()
    #expect(
      titles == ["Buy milk"],
      "After saveIfNeeded returns, the new note should be in the store (read through another context); the store holds \(titles).")
    let leftOver = fixture.context.performAndWait { fixture.context.hasChanges }
    #expect(!leftOver, "After a save the context should have no changes left; context.hasChanges is still true. Call context.save().")

    fixture.context.performAndWait { note.title = "Buy oat milk" }
    let savedUpdate = try Subject.saveIfNeeded(fixture.context)
    #expect(savedUpdate, "Changing a saved note's title is a change too: saveIfNeeded should save it and return true; it returned false.")
    titles = try fixture.titlesInStore()
    #expect(titles == ["Buy oat milk"], "After saving the new title the store should hold [\"Buy oat milk\"]; it holds \(titles).")

    #expect(
      try Subject.saveIfNeeded(fixture.context) == false,
      "Right after a save there is nothing left to save: saveIfNeeded should return false; it returned true.")
  }

  private static func checkStaysOnTheContextsQueue(_ kind: ContextKind) throws {
    let fixture = try Fixture(kind)
    _ = fixture.insertNote(title: "Buy milk", createdAt: Date())

    // From here on, the engine reports every touch of the context from outside its queue. This code runs on
    // a thread of the test runner, which is not the context's queue.
    let recorder = ConcurrencyViolationRecorder()
    let savedChanges = try Subject.saveIfNeeded(fixture.context)
    let savedNothing = try Subject.saveIfNeeded(fixture.context)
    let violations = recorder.stop()

    #expect(
      violations.isEmpty,
      """
      saveIfNeeded was called from a thread that is not the \(kind.rawValue) context's queue, and it touched the \
      context from there. A context, hasChanges included, may only be used on its own queue: put all of the \
      work inside context.performAndWait { }, which runs it there and waits for it. The engine's concurrency \
      debugging reported:
      \(violations.joined(separator: "\n"))
      """)
    #expect(
      savedChanges && !savedNothing,
      "Expected true (a new note was saved), then false (nothing left); got \(savedChanges), then \(savedNothing).")
  }

  private static func checkSurfacesSaveErrors(_ kind: ContextKind) throws {
    let fixture = try Fixture(kind)
    // The model requires Note.createdAt; this note has none, so the save fails validation.
    let note = fixture.insertNote(title: "Call the bank", createdAt: nil)

    var answer: Bool?
    guard let error = try errorThrown(by: { answer = try Subject.saveIfNeeded(fixture.context) }) else {
      let told =
        answer == false
        ? "It returned false, \"nothing to save\": its caller believes there was nothing to write, and moves on"
        : "It returned normally instead: its caller believes the note is safe on disk"
      Issue.record(
        """
        The new note has no createdAt, which the model requires, so its save fails with a validation error. \
        \(told), while the store holds \(try fixture.titlesInStore()) and the user is never told what is missing. \
        Let the save's error reach the caller.
        """)
      return
    }
    #expect(
      (error as NSError).code == NSValidationMissingMandatoryPropertyError,
      """
      The save fails because Note.createdAt is required and empty: error 1570 (Core Data's \
      NSValidationMissingMandatoryPropertyError), whose message names the entity and the property. That error \
      should reach the caller unchanged, so the app can say what is missing. saveIfNeeded threw instead: \(error)
      """)

    let kept = fixture.context.performAndWait { fixture.context.hasChanges && note.isInserted }
    #expect(
      kept,
      """
      After the failed save, the new note is no longer pending in the context: its unsaved changes were thrown \
      away after the error (rollback() and reset() both do that). The user's work is gone, and the app has \
      nothing left to fix (here: set createdAt) and save again. Leave the context as the failed save left it.
      """)
    let titles = try fixture.titlesInStore()
    #expect(titles.isEmpty, "A failed save writes nothing, yet the store holds \(titles).")
    guard kept else { return }

    // The app fixes the note and tries again.
    fixture.context.performAndWait { note.createdAt = Date() }
    let saved = try Subject.saveIfNeeded(fixture.context)
    #expect(saved, "Once the note has its createdAt the save should succeed and saveIfNeeded return true; it returned false.")
    #expect(try fixture.titlesInStore() == ["Call the bank"], "After the second save the note should be in the store.")
  }
}
