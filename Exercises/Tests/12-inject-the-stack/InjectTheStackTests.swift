// The checks of exercise 12. They run against your code in Exercises/12-inject-the-stack/Sources, or against
// the reference solution when WORKSHOP_SOLUTIONS=1. Each check runs in a child process, so that code which
// stops the process (a force unwrap, a try!) fails one check with an explanation instead of ending the whole
// run.
//
// Every check builds its own stacks in memory and hands RecentNotes the context to use: nothing is shared
// between checks, and no file is written. Each child process first points the user's application-support
// folder (XDG_DATA_HOME, HOME) at an empty folder of the check's own, so that code which still reaches for
// the app's global stack writes its store there, where the checks can see it, and never in your real one.
import Dispatch
import EngineTestSupport
import Exercise12
import Exercise12Solution
import ExerciseChecks
import Foundation
import NotesModel
import ObjectGraph
import TestSupport
import Testing

/// What the checks use of the list screen: your `RecentNotes` or the solution's.
@MainActor
protocol RecentNotesUnderTest: AnyObject {
  var titles: [String] { get }
  func reload() throws
  func add(_ title: String) throws
}

extension Exercise12.RecentNotes: RecentNotesUnderTest {}
extension Exercise12Solution.RecentNotes: RecentNotesUnderTest {}

/// The list under test: your `RecentNotes(context:limit:)`, or the solution's.
enum Subject {
  typealias Make = @MainActor @Sendable (NSManagedObjectContext, Int) throws -> any RecentNotesUnderTest

  static let makeList: Make = CodeUnderTest.pick(starter: makeStarter, solution: makeSolution)

  private static let makeStarter: Make = { context, limit in try Exercise12.RecentNotes(context: context, limit: limit) }
  private static let makeSolution: Make = { context, limit in
    try Exercise12Solution.RecentNotes(context: context, limit: limit)
  }
}

/// Said when a check's child process stopped (a crash, or the watchdog) instead of finishing.
let stoppedAdvice: Comment = """
  RecentNotes stopped the whole process, or never finished. A context without a store, or a save that fails, \
  is an error to throw to the caller: no fatalError(), try! or force unwrap (!).
  """

@Suite("Exercise 12: inject the stack, don't reach for it", .temporaryFolders)
struct InjectTheStackTests {
  @Test("Two lists over two stacks of their own each see only their own notes")
  func twoStacksStayApart() async throws { try await runInChildProcess(.twoStacksStayApart) }

  @Test("The list works with a plain main-queue context over an in-memory store: newest first, loaded at once")
  func worksWithAPlainContext() async throws { try await runInChildProcess(.worksWithAPlainContext) }

  @Test("The app's global stack is gone, or at least never used: nothing is written to the user's folder")
  func globalIsGoneOrUnused() async throws { try await runInChildProcess(.globalIsGoneOrUnused) }
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

// MARK: - What the checks use

extension ChildCheck {
  /// Said when the watchdog ends a check that has not finished after 25 seconds: a deadlock would otherwise
  /// hang the run.
  var hangReport: String? {
    "The check '\(self)' did not finish within 25 seconds: RecentNotes never returned."
  }
}

/// Runs `body` on the main queue, where the list screen lives, and waits for it.
func onMainQueue<Result: Sendable>(_ body: @MainActor () throws -> Result) rethrows -> Result {
  try DispatchQueue.main.sync { try MainActor.assumeIsolated { try body() } }
}

/// A test's own stack: an in-memory store, and a main-queue context over it, either holding the coordinator
/// itself (`plain`) or as the child of a private writer, like stage 2's.
@MainActor
struct InMemoryStack {
  let main: NSManagedObjectContext
  /// The writer, when the stack has one.
  let writer: NSManagedObjectContext?

  init(plain: Bool) throws {
    let coordinator = NSPersistentStoreCoordinator(managedObjectModel: try TutorialStack.model())
    try coordinator.addPersistentStore(type: .inMemory, at: URL(fileURLWithPath: "/dev/null"))
    main = NSManagedObjectContext(concurrencyType: .mainQueueConcurrencyType)
    if plain {
      writer = nil
      main.persistentStoreCoordinator = coordinator
    } else {
      let writer = TutorialStack.context(.privateQueue, on: coordinator)
      main.parent = writer
      self.writer = writer
    }
  }

  /// The titles of every note the main context sees, fetched anew, sorted.
  func allTitles() throws -> [String] {
    try main.fetch(NSFetchRequest<Note>(entityName: "Note")).map(\.title).sorted()
  }
}

/// Every file under `folder`, as paths relative to it.
func files(under folder: URL) -> [String] {
  let enumerator = FileManager.default.enumerator(at: folder, includingPropertiesForKeys: nil)
  var found: [String] = []
  while let url = enumerator?.nextObject() as? URL {
    found.append(String(url.path.dropFirst(folder.path.count)))
  }
  return found.sorted()
}

let globalAdvice = """
  The app's global stack (NotesApp.shared) is still used: it opens the user's own store, so every list, and \
  every test, shares it. Make every method of RecentNotes use the context handed to init(context:limit:), \
  then delete NotesApp and the old init(limit:): the compiler then shows whatever still reaches for it.
  """

/// What the other checks say when files appeared in the user's folder: the check about the global explains.
let pointToTheGlobal = """
  files appeared in the user's folder, where NotesApp.shared keeps its store (the check "The app's global \
  stack is gone, or at least never used…" says more)
  """

/// Whether anything was written under `home`, the user's folder for this check: the global stack was made.
func globalWasReached(_ home: URL) -> Bool { !files(under: home).isEmpty }

// MARK: - The checks

/// The checks; each runs in a child process.
enum ChildCheck: String, Codable, Sendable, CustomStringConvertible, ChildProcessCheck {
  case twoStacksStayApart, worksWithAPlainContext, globalIsGoneOrUnused

  var description: String { rawValue }

  func run() throws {
    // Before anything can reach for the global stack: the user's folders, for this process, are the check's.
    let home = try TemporaryFolder()
    setenv("XDG_DATA_HOME", home.appending("data").path, 1)
    setenv("HOME", home.url.path, 1)
    switch self {
    case .twoStacksStayApart: try onMainQueue { try Self.checkTwoStacksStayApart(home: home.url) }
    case .worksWithAPlainContext: try onMainQueue { try Self.checkWorksWithAPlainContext(home: home.url) }
    case .globalIsGoneOrUnused: try onMainQueue { try Self.checkGlobalIsGoneOrUnused(home: home.url) }
    }
  }

  @MainActor
  private static func checkTwoStacksStayApart(home: URL) throws {
    let first = try InMemoryStack(plain: true)
    let second = try InMemoryStack(plain: false)
    let firstList = try Subject.makeList(first.main, 5)
    let secondList = try Subject.makeList(second.main, 5)
    try firstList.add("Only in the first")
    try secondList.add("Only in the second")
    try firstList.reload()

    let listsRight = firstList.titles == ["Only in the first"] && secondList.titles == ["Only in the second"]
    let inFirst = try first.allTitles()
    let inSecond = try second.allTitles()
    let contextsRight = inFirst == ["Only in the first"] && inSecond == ["Only in the second"]
    guard !(listsRight && contextsRight) else { return }
    if globalWasReached(home) {
      Issue.record(
        """
        Each list was handed the main context of a stack of its own, and added one note. The first list shows \
        \(firstList.titles), the second \(secondList.titles); the first stack's context holds \(inFirst), the \
        second's \(inSecond): the notes went somewhere else, and \(pointToTheGlobal).
        """)
      return
    }
    #expect(
      listsRight,
      """
      Each list was handed the main context of a stack of its own, and added one note. Each should show only \
      its own note; the first shows \(firstList.titles), the second \(secondList.titles).
      """)
    #expect(
      contextsRight,
      """
      add(_:) should put the note in the context the list was handed: the first stack's context holds \
      \(inFirst), the second's \(inSecond).
      """)
  }

  @MainActor
  private static func checkWorksWithAPlainContext(home: URL) throws {
    let stack = try InMemoryStack(plain: true)
    for day in 1...7 {
      let note = Note(context: stack.main)
      note.title = "Day \(day)"
      note.createdAt = Date(timeIntervalSinceReferenceDate: 800_000_000 + Double(day) * 86_400)
    }
    try stack.main.save()

    let list = try Subject.makeList(stack.main, 3)
    let newest = ["Day 7", "Day 6", "Day 5"]
    let atOnce = list.titles
    // Newest first, but not 3 of them: the list does not keep the limit it was handed.
    let allNewestFirst = (1...7).reversed().map { "Day \($0)" }
    let limitLost = !atOnce.isEmpty && atOnce.count != newest.count && Array(allNewestFirst.prefix(atOnce.count)) == atOnce
    if limitLost {
      Issue.record(
        """
        Made over a context whose store holds "Day 1" to "Day 7", with a limit of 3, the list shows \(atOnce.count) \
        titles, newest first: \(atOnce). It loads from the right context, but not with the limit it was handed: \
        keep it in init(context:limit:) (self.limit = limit), as the old init(limit:) does.
        """)
    } else if atOnce != newest {
      // Does the list find them when asked again? Then init(context:limit:) did not load them.
      try list.reload()
      let loadedLater = list.titles == newest
      Issue.record(
        """
        Made over a context whose store holds "Day 1" to "Day 7", with a limit of 3, the list should show the 3 \
        newest at once, newest first: \(newest). It shows \(atOnce). \
        \(loadedLater && atOnce.isEmpty ? "After a call of reload() it shows them: init(context:limit:) keeps the context and the limit, but does not load the titles. End it with try reload(), so the screen has its titles as soon as it exists." : "Load them in init(context:limit:) (reload() does), from the context it was handed.")
        """)
    }
    try list.add("Today")
    let holdsToday = try stack.allTitles().contains("Today")
    if !holdsToday {
      Issue.record(
        Comment(
          rawValue: """
            add(_:) should insert the note into the context it was handed, and save that context. That context \
            does not hold "Today", saved or not: \
            \(globalWasReached(home) ? "add(_:) put it somewhere else, and \(pointToTheGlobal)." : "add(_:) put it somewhere else.")
            """))
    } else if stack.main.hasChanges {
      Issue.record(
        Comment(
          rawValue: """
            add(_:) inserted "Today" into the context it was handed, but that context still has unsaved changes: \
            \(globalWasReached(home) ? "it saved another one, and \(pointToTheGlobal)." : "save it before reloading, or a relaunch loses the note.")
            """))
    } else {
      #expect(
        limitLost || list.titles == ["Today", "Day 7", "Day 6"],
        "After add(\"Today\"), the list should show [\"Today\", \"Day 7\", \"Day 6\"]; it shows \(list.titles).")
    }
  }

  @MainActor
  private static func checkGlobalIsGoneOrUnused(home: URL) throws {
    let stack = try InMemoryStack(plain: false)
    // What the user's folder holds after each step: the step that wrote first is where the global is reached for.
    var steps: [(step: String, files: [String])] = []
    let list = try Subject.makeList(stack.main, 5)
    steps.append(("init(context:limit:)", files(under: home)))
    try list.add("Groceries")
    steps.append(("add(_:)", files(under: home)))
    try list.reload()
    _ = list.titles
    steps.append(("reload()", files(under: home)))
    let written = files(under: home)
    let firstWriter = steps.first { !$0.files.isEmpty }?.step
    #expect(
      written.isEmpty,
      """
      The list was handed an in-memory stack, yet files appeared in the user's folder: \(written). \
      \(firstWriter.map { "They first appeared during \($0): look there for what still reaches for NotesApp.shared. " } ?? "")\
      \(globalAdvice)
      """)
    #expect(
      !written.isEmpty || list.titles == ["Groceries"], "The list should show the note it added; it shows \(list.titles).")
  }
}
