// The checks of exercise 04. They run against your code in Exercises/04-main-child-private-parent/Sources,
// or against the reference solution when WORKSHOP_SOLUTIONS=1. Each check runs in a child process, so that
// code which stops the process (a force unwrap, fatalError()) fails one check with an explanation instead of
// ending the whole run.
import EngineTestSupport
import Exercise04
import Exercise04Solution
import ExerciseChecks
import Foundation
import NotesModel
import ObjectGraph
import TestSupport
import Testing

/// The function under test: your `makeMainContext(for:)`, or the solution's.
enum Subject {
  static let makeMainContext: @Sendable (NSPersistentStoreCoordinator) throws -> NSManagedObjectContext = CodeUnderTest.pick(
    starter: Exercise04.makeMainContext(for:), solution: Exercise04Solution.makeMainContext(for:))
}

/// Said when a check's child process stopped (a crash) instead of returning.
let stoppedAdvice: Comment = """
  makeMainContext(for:) stopped the whole process. Building two contexts cannot fail, so nothing in it \
  needs to stop the app; what the process printed before it stopped (below) names the line that did.
  """

@Suite("Exercise 04: a main-queue child under a private parent", .temporaryFolders)
struct MainChildPrivateParentTests {
  @Test("The main context is a main-queue child of a private-queue writer, and only the writer holds the coordinator")
  func shape() async throws { try await runInChildProcess(.shape) }

  @Test("Saving the main context hands the note to the writer and leaves the store as it was; the writer's save writes it")
  func childSaveStopsAtTheWriter() async throws { try await runInChildProcess(.childSaveStopsAtTheWriter) }

  @Test("The main context reads what is in the store, through the writer")
  func readsThroughTheWriter() async throws { try await runInChildProcess(.readsThroughTheWriter) }
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

/// A SQLite store in a temporary folder, and its coordinator.
struct Fixture {
  let coordinator: NSPersistentStoreCoordinator

  init() throws {
    coordinator = try TutorialStack.coordinator(storeURL: try TemporaryFolder().appending("Notes.sqlite"))
  }

  /// The titles of the notes in the store, read through a context of the checks' own (so changes that have
  /// not reached the store do not count).
  func titlesInStore() throws -> [String] {
    let reader = TutorialStack.context(.privateQueue, on: coordinator)
    return try reader.performAndWait { try reader.fetch(NSFetchRequest<Note>(entityName: "Note")).map(\.title).sorted() }
  }
}

extension NSManagedObjectContextConcurrencyType {
  /// How the messages name the type.
  var wording: String { self == .mainQueueConcurrencyType ? ".mainQueueConcurrencyType" : ".privateQueueConcurrencyType" }
}

/// The checks; each runs in a child process.
enum ChildCheck: String, Codable, Sendable, ChildProcessCheck {
  case shape, childSaveStopsAtTheWriter, readsThroughTheWriter

  func run() throws {
    switch self {
    case .shape: try Self.checkShape()
    case .childSaveStopsAtTheWriter: try Self.checkChildSaveStopsAtTheWriter()
    case .readsThroughTheWriter: try Self.checkReadsThroughTheWriter()
    }
  }

  private static func checkShape() throws {
    let fixture = try Fixture()
    let main = try Subject.makeMainContext(fixture.coordinator)

    if main.concurrencyType == .privateQueueConcurrencyType, main.parent == nil, main.persistentStoreCoordinator != nil {
      Issue.record(
        """
        The context you return is a private-queue context that holds \
        \(main.persistentStoreCoordinator === fixture.coordinator ? "the coordinator" : "a coordinator") itself and \
        has no parent: that is the writer. The app's screens, on the main queue, would be handed a context they \
        may not touch from there, and every save would go straight to the file. Return the other context, the \
        main-queue child whose parent is the writer.
        """)
      return
    }
    #expect(
      main.concurrencyType == .mainQueueConcurrencyType,
      """
      The context you return is the one the app's screens read and edit, and screens live on the main queue: \
      make it NSManagedObjectContext(concurrencyType: .mainQueueConcurrencyType). It is \(main.concurrencyType.wording).
      """)
    guard let writer = main.parent else {
      if let held = main.persistentStoreCoordinator {
        Issue.record(
          """
          The main context holds \(held === fixture.coordinator ? "the coordinator" : "a coordinator") itself, and has \
          no parent. That is stage 1's stack: every save of the main context writes to the file, on the main \
          queue, while the user waits. In stage 2 the main context's parent is the writer, and only the writer \
          holds the coordinator. (A context has a parent or a coordinator, never both: setting \
          persistentStoreCoordinator clears the parent, and setting parent clears the coordinator, so the one set \
          last is the one it keeps.)
          """)
      } else {
        Issue.record(
          """
          The main context has no parent, so its saves have nowhere to go. Make a private-queue context (the \
          writer), give the writer the coordinator, and set mainContext.parent = writer.
          """)
      }
      return
    }
    #expect(
      writer.concurrencyType == .privateQueueConcurrencyType,
      """
      The main context's parent (the writer) is \(writer.concurrencyType.wording). The writer's save is the one \
      that writes to the file, the slow part; on the main queue it would stall the UI just as stage 1 did. \
      Make the writer NSManagedObjectContext(concurrencyType: .privateQueueConcurrencyType): it gets a queue of its own.
      """)
    #expect(
      writer.parent == nil,
      """
      The main context's parent has a parent of its own, so the stack has three levels and the writer's save \
      does not reach the store either. In stage 2 the writer is the root: it holds the coordinator \
      (writer.persistentStoreCoordinator = coordinator) and has no parent.
      """)
    #expect(
      writer.persistentStoreCoordinator === fixture.coordinator,
      """
      The writer should hold the coordinator you were given, so that its save writes to that coordinator's \
      store. \(writer.persistentStoreCoordinator == nil ? "It has none." : "It holds another one.") Set \
      writer.persistentStoreCoordinator = coordinator (do not make a coordinator of your own).
      """)
  }

  /// Said by the checks that need a working stack when the returned context reaches no coordinator (the shape
  /// check says how to build one).
  static let noCoordinator: Comment = """
    The context you returned reaches no coordinator: neither it nor its parent holds one, so it can neither \
    save to the store nor fetch from it.
    """

  private static func checkChildSaveStopsAtTheWriter() throws {
    let fixture = try Fixture()
    let main = try Subject.makeMainContext(fixture.coordinator)
    guard main.persistentStoreCoordinator != nil else {
      // Without a coordinator somewhere above it, a context knows no model, so it cannot even make a note.
      Issue.record(noCoordinator)
      return
    }

    try main.performAndWait {
      let note = Note(context: main)
      note.title = "Buy milk"
      note.createdAt = Date()
      try main.save()
    }
    let afterMainSave = try fixture.titlesInStore()
    guard let writer = main.parent else {
      Issue.record(
        """
        The context you returned has no parent, so its save went straight to the store: after that save alone \
        the store holds \(afterMainSave). In stage 2 that save stops at the writer, in memory, and the main \
        queue never waits for the disk.
        """)
      return
    }
    #expect(
      afterMainSave.isEmpty,
      """
      The main context saved, and the note went straight into the store (it holds \(afterMainSave)). In stage 2 a \
      save of the main context only hands its changes one level up, to its parent, the writer, in memory.
      """)
    let pending = writer.performAndWait { writer.insertedObjects.count }
    #expect(
      pending == 1,
      """
      After the main context's save, the new note should wait in the writer as an unsaved insert (one object in \
      writer.insertedObjects); the writer holds \(pending).
      """)

    do {
      try writer.performAndWait { try writer.save() }
    } catch {
      Issue.record(
        """
        The writer's save failed: \(error) The writer is the context that writes to the store, so it needs the \
        coordinator: writer.persistentStoreCoordinator = coordinator.
        """)
      return
    }
    let afterWriterSave = try fixture.titlesInStore()
    #expect(
      afterWriterSave == ["Buy milk"],
      """
      Once the writer saves, the note should be in the store: only the context that holds the coordinator \
      writes to disk. The store holds \(afterWriterSave).
      """)
  }

  private static func checkReadsThroughTheWriter() throws {
    let fixture = try Fixture()
    // Two notes saved in an earlier launch.
    let seeder = TutorialStack.context(.privateQueue, on: fixture.coordinator)
    try seeder.performAndWait {
      for title in ["Call the bank", "Plan the hike"] {
        let note = Note(context: seeder)
        note.title = title
        note.createdAt = Date()
      }
      try seeder.save()
    }

    let main = try Subject.makeMainContext(fixture.coordinator)
    guard main.persistentStoreCoordinator != nil else {
      Issue.record(noCoordinator)
      return
    }
    let titles: [String]
    do {
      titles = try main.performAndWait { try main.fetch(NSFetchRequest<Note>(entityName: "Note")).map(\.title).sorted() }
    } catch {
      Issue.record(
        """
        A fetch in the main context failed: \(error) A child context reads through its parent: the main context \
        asks the writer, and the writer asks the store through its coordinator.
        """)
      return
    }
    #expect(
      titles == ["Call the bank", "Plan the hike"],
      "The store holds two notes, and the main context should see them through the writer; it sees \(titles).")
  }
}
