// The checks of exercise 06. They run against your code in Exercises/06-crossing-the-streams/Sources, or
// against the reference solution when WORKSHOP_SOLUTIONS=1. Each check runs in a child process, so that code
// which stops the process (a concurrency-debug stop, a force unwrap), or never returns, fails one check with
// an explanation instead of ending or hanging the whole run.
//
// Every check builds stage 2's stack (a private-queue writer holding the coordinator of a SQLite store, and
// a main-queue context whose parent is the writer) plus the importer: a private-queue context whose parent
// is the main context, for work that should not hold up the main queue.
import Dispatch
import EngineTestSupport
import Exercise06
import Exercise06Solution
import ExerciseChecks
import Foundation
import NotesModel
import ObjectGraph
import Synchronization
import TestSupport
import Testing

/// The function under test: your `importNotes(_:into:using:)`, or the solution's.
enum Subject {
  static let importNotes: @Sendable ([String], Notebook, NSManagedObjectContext) throws -> Void = CodeUnderTest.pick(
    starter: Exercise06.importNotes(_:into:using:), solution: Exercise06Solution.importNotes(_:into:using:))
}

/// Said when a check's child process stopped (a crash, or the watchdog) instead of finishing.
let stoppedAdvice: Comment = """
  importNotes(_:into:using:) stopped the whole process, or never finished. The checks collect concurrency \
  violations instead of stopping at them, so the stop is something else: what the process printed before it \
  stopped is below.
  """

@Suite("Exercise 06: don't cross the streams", .temporaryFolders)
struct CrossingTheStreamsTests {
  @Test("From a background thread: the notes are made in the importer and filed in the notebook, and nothing is touched off its queue")
  func fromABackgroundThread() async throws { try await runInChildProcess(.fromABackgroundThread) }

  @Test("From the main queue: the same import, and still nothing is touched off its queue")
  func fromTheMainQueue() async throws { try await runInChildProcess(.fromTheMainQueue) }

  @Test("The notebook was deleted meanwhile: importNotes throws, and no note is filed anywhere")
  func notebookDeletedMeanwhile() async throws { try await runInChildProcess(.notebookDeletedMeanwhile) }
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
    The check '\(self)' did not finish within 25 seconds: importNotes never returned. Something waits for \
    a queue that is waiting for it.
    """
  }
}

/// For each save of `context`, how many objects it inserted, for as long as the log is in use.
func insertCounts(_ context: NSManagedObjectContext) -> NotificationLog<Int> {
  NotificationLog(NSManagedObjectContext.didSaveObjectsNotification, object: context) { note in
    (note.userInfo?["insertedObjectIDs"] as? Set<NSManagedObjectID>)?.count ?? 0
  }
}

/// A SQLite store with two notebooks ("Inbox" holding "Old note", and "Recipes", empty), stage 2's two
/// contexts on it, and the importer under the main context.
struct Fixture {
  let coordinator: NSPersistentStoreCoordinator
  let writer: NSManagedObjectContext
  let main: NSManagedObjectContext
  let importer: NSManagedObjectContext

  init() throws {
    coordinator = try TutorialStack.coordinator(storeURL: try TemporaryFolder().appending("Notes.sqlite"))
    let seeder = TutorialStack.context(.privateQueue, on: coordinator)
    try seeder.performAndWait {
      let inbox = Notebook(context: seeder)
      inbox.name = "Inbox"
      inbox.createdAt = Date()
      let recipes = Notebook(context: seeder)
      recipes.name = "Recipes"
      recipes.createdAt = Date()
      let old = Note(context: seeder)
      old.title = "Old note"
      old.createdAt = Date()
      old.notebook = inbox
      try seeder.save()
    }
    writer = TutorialStack.context(.privateQueue, on: coordinator)
    writer.name = "Writer"
    main = NSManagedObjectContext(concurrencyType: .mainQueueConcurrencyType)
    main.name = "Main"
    main.parent = writer
    importer = NSManagedObjectContext(concurrencyType: .privateQueueConcurrencyType)
    importer.name = "Importer"
    importer.parent = main
  }

  /// The notebook called `name`, fetched in the main context. The checks hand it out of the main context's
  /// block, as the app's screen holds the notebook the user has open: holding an object anywhere is fine,
  /// touching it off its context's queue is not.
  func notebook(_ name: String) throws -> Notebook {
    try main.performAndWait {
      let request = NSFetchRequest<Notebook>(entityName: "Notebook")
      request.predicate = NSPredicate(format: "name == %@", name)
      guard let notebook = try main.fetch(request).first else {
        throw CocoaError(.coreData, userInfo: [NSLocalizedDescriptionKey: "The checks' store has no notebook named \(name)."])
      }
      return notebook
    }
  }

  /// What the main context holds now, read on the main queue: each notebook's name and its notes' titles.
  func notebooksInMain() throws -> [String: [String]] {
    try main.performAndWait {
      let notebooks = try main.fetch(NSFetchRequest<Notebook>(entityName: "Notebook"))
      var result: [String: [String]] = [:]
      for notebook in notebooks { result[notebook.name, default: []] += notebook.notes.map(\.title) }
      return result.mapValues { $0.sorted() }
    }
  }

  /// The notes the main context holds that it has not saved (the importer's save hands its notes up as such),
  /// each with where it is filed.
  func newNotesInMain() -> [String] {
    main.performAndWait {
      main.insertedObjects.compactMap { $0 as? Note }.map { note in
        let place = note.notebook.map { $0.isDeleted ? "the deleted notebook \($0.name)" : $0.name } ?? "no notebook"
        return "\(note.title) (in \(place))"
      }.sorted()
    }
  }

  /// The titles of the notes the main context holds that are in no notebook.
  func looseNotesInMain() throws -> [String] {
    try main.performAndWait {
      try main.fetch(NSFetchRequest<Note>(entityName: "Note")).filter { $0.notebook == nil }.map(\.title).sorted()
    }
  }
}

/// What a check says about the violations the engine reported: the same words in every check, so that each
/// is read on its own (the checks finish in no set order) and `workshop check` shows the explanation once. It
/// does not give the fix away: finding each line the engine names is the exercise (the hints lead the way).
func violationAdvice(_ violations: [String], calledFrom place: String) -> Comment {
  let found = "The engine reported \(violations.count) violation\(violations.count == 1 ? "" : "s"):"
  let list = "\(violations.prefix(6).joined(separator: "\n"))\(violations.count > 6 ? "\n…" : "")"
  return """
    importNotes was called \(place), and it touched managed objects off their contexts' queues. \
    Swift's compiler cannot see this; the engine's concurrency debugging can, and the checks turn it on. Each \
    message below names the object, its context, the queue it was touched from and the rule it broke, and \
    points to a line of importNotes. \(found)
    \(list)
    """
}

/// Keeps the importer's queue busy for a second, from now: work that importNotes does itself waits for
/// that, and work it only queues runs after it has returned. Read `isOver` when importNotes returns.
final class BusyImporter: Sendable {
  private let over = Mutex(false)

  init(_ importer: NSManagedObjectContext) {
    importer.perform {
      Thread.sleep(forTimeInterval: 1)
      self.over.withLock { $0 = true }
    }
  }

  /// Whether the importer's queue was free again.
  var isOver: Bool { over.withLock { $0 } }
}

/// Said when the importer saved only after importNotes had returned.
let queuedWork: Comment = """
  The importer saved the notes only after importNotes had returned: the checks kept the importer's queue busy \
  for a second, and importNotes did not wait for it, so its work was queued, not done. importNotes \
  promises the notes are in the main context when it returns, and an error in queued work can no longer \
  reach its caller.
  """

// MARK: - The checks

/// The checks; each runs in a child process.
enum ChildCheck: String, Codable, Sendable, CustomStringConvertible, ChildProcessCheck {
  case fromABackgroundThread, fromTheMainQueue, notebookDeletedMeanwhile

  var description: String { rawValue }

  func run() throws {
    switch self {
    case .fromABackgroundThread: try Self.checkImport(onMainQueue: false)
    case .fromTheMainQueue: try Self.checkImport(onMainQueue: true)
    case .notebookDeletedMeanwhile: try Self.checkNotebookDeletedMeanwhile()
    }
  }

  private static func checkImport(onMainQueue: Bool) throws {
    let fixture = try Fixture()
    let recipes = try fixture.notebook("Recipes")
    let importerSaves = insertCounts(fixture.importer)
    let titles = ["Pancakes", "Lemonade", "Banana bread"]

    // From here on, the engine reports every touch of a context or an object from outside its queue.
    let recorder = ConcurrencyViolationRecorder()
    let busy = BusyImporter(fixture.importer)
    if onMainQueue {
      try fixture.main.performAndWait { try Subject.importNotes(titles, recipes, fixture.importer) }
    } else {
      // This thread of the test runner stands in for a download's completion handler: it is neither the main
      // queue nor the importer's.
      try Subject.importNotes(titles, recipes, fixture.importer)
    }
    let savesAtReturn = importerSaves.entries
    let waitedForTheImporter = busy.isOver
    let violations = recorder.stop()
    let place = onMainQueue ? "on the main queue" : "from a background thread (a download's completion handler)"
    #expect(violations.isEmpty, violationAdvice(violations, calledFrom: place))

    let notebooks = try fixture.notebooksInMain()
    // Let whatever importNotes queued run, to tell work queued for later from work not done at all.
    fixture.importer.performAndWait {}
    fixture.main.performAndWait {}
    if savesAtReturn.isEmpty && !importerSaves.entries.isEmpty && !waitedForTheImporter {
      Issue.record(queuedWork)
      return
    }
    #expect(
      notebooks["Recipes"] == titles.sorted(),
      """
      After importNotes returns, the main context should show the three new notes in the notebook Recipes \
      (the importer's save hands them up to its parent, the main context). Recipes holds \
      \(notebooks["Recipes"] ?? []).
      """)
    #expect(
      notebooks["Inbox"] == ["Old note"] && notebooks.count == 2,
      """
      Only Recipes should change: the main context should still hold exactly the notebooks Inbox (with "Old \
      note") and Recipes. It holds \(notebooks). Look the notebook up by its objectID; do not make a new one \
      or pick one by name.
      """)
    let loose = try fixture.looseNotesInMain()
    #expect(loose.isEmpty, "These notes are in no notebook: \(loose). Each new note's notebook should be Recipes.")
    let saves = savesAtReturn
    let inserting = saves.filter { $0 > 0 }
    // Told apart by the importer's saves that inserted notes: none (the notes were made elsewhere), one per
    // note, or the import split some other way. A single save of the wrong count gets the figures alone.
    let why =
      inserting.isEmpty
      ? " Making them in the main context puts the import on the main queue, where the user waits."
      : inserting.count == titles.count && inserting.allSatisfy({ $0 == 1 })
        ? " That is one save per note: save once, after the loop, so the main context gets the import in one change."
        : inserting.count > 1
          ? " The import was split over \(inserting.count) saves: save once, after the loop, so the main context gets it in one change."
          : ""
    #expect(
      saves == [titles.count],
      """
      The notes should be made in the importer, the private context for this work, and reach the main context \
      by the importer's one save (expected one save inserting \(titles.count) notes; the importer's saves \
      inserted \(saves)).\(why)
      """)
  }

  private static func checkNotebookDeletedMeanwhile() throws {
    let fixture = try Fixture()
    let recipes = try fixture.notebook("Recipes")
    // While the download ran, the user deleted the notebook. The download's completion still holds it.
    fixture.main.performAndWait { fixture.main.delete(recipes) }

    let recorder = ConcurrencyViolationRecorder()
    let busy = BusyImporter(fixture.importer)
    let error = try errorThrown(by: { try Subject.importNotes(["Pancakes"], recipes, fixture.importer) })
    let returnedEarly = !busy.isOver
    let violations = recorder.stop()
    #expect(violations.isEmpty, violationAdvice(violations, calledFrom: "from a background thread, for a notebook the user had deleted"))

    fixture.importer.performAndWait {}
    let gained = fixture.newNotesInMain()
    switch (error, gained.isEmpty) {
    case (nil, true) where returnedEarly:
      Issue.record(
        """
        The notebook had been deleted, and importNotes returned normally before the importer's queue was free \
        (the checks kept it busy for a second): none of the importer's work had run when it returned, so \
        what that work finds, a notebook that is gone included, can no longer reach the caller.
        """)
    case (nil, true):
      Issue.record(
        """
        The notebook had been deleted, and importNotes returned normally without filing anything and without \
        an error: the caller believes the notes were filed. When the lookup finds no notebook, throw: call \
        existingObject(with:) with try, and let its error reach the caller.
        """)
    case (nil, false) where !violations.isEmpty:
      // The notebook handed in was used across contexts (the violations above): that is the mistake to fix.
      Issue.record(
        """
        The notebook had been deleted, yet importNotes returned normally, and the main context gained these \
        notes: \(gained). The caller thinks they were filed, into a notebook the user no longer has: when the \
        notebook is gone, importNotes throws and files nothing.
        """)
    case (nil, false):
      Issue.record(
        """
        The notebook had been deleted, yet importNotes returned normally, and the main context gained these \
        notes: \(gained). The caller thinks they were filed, into a notebook the user no longer has. Look the \
        notebook up with importer.existingObject(with:), which throws when the object no longer exists, and let \
        that error reach the caller. object(with:) never throws: it hands back a placeholder (a fault) even for \
        an object that is gone.
        """)
    case (.some, false):
      Issue.record(
        """
        importNotes threw, as it should when the notebook is gone, yet the main context gained these notes: \
        \(gained). Look the notebook up before making any note, and throw before the importer saves.
        """)
    case (.some, true):
      break
    }
  }
}
