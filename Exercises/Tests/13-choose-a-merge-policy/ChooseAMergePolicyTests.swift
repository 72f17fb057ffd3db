// The checks of exercise 13. They run against your code in Exercises/13-choose-a-merge-policy/Sources, or
// against the reference solution when WORKSHOP_SOLUTIONS=1. Each check runs in a child process, so that code
// which stops the process (a force unwrap, a try!) fails one check with an explanation instead of ending the
// whole run.
//
// Every check builds stage 4's shape on a SQLite store that holds one note ("Groceries", body "Milk", not
// pinned): your writer holding the coordinator, and the main context as its child. The user changes the
// note's title and body in the main context, and the app saves as stage 4 does: the main context into the
// writer at once, the writer to the file a moment later. In that moment a worker of the app's share extension
// (a stack of its own on the same file, which no merge into the writer can see) renames the note, pins it, and
// saves. Then the writer writes. The checks read the file afterwards with a new coordinator, and name the
// writer's policy as your makeWriter set it.
import EngineTestSupport
import Exercise13
import Exercise13Solution
import ExerciseChecks
import Foundation
import NotesModel
import ObjectGraph
import TestSupport
import Testing

/// The function under test: your `makeWriter(for:)`, or the solution's.
enum Subject {
  static let makeWriter: @Sendable (NSPersistentStoreCoordinator) throws -> NSManagedObjectContext = CodeUnderTest.pick(
    starter: Exercise13.makeWriter(for:), solution: Exercise13Solution.makeWriter(for:))
}

/// Said when a check's child process stopped (a crash, or the watchdog) instead of finishing.
let stoppedAdvice: Comment = """
  makeWriter(for:) or the save through its writer stopped the whole process, or never finished. A writer that \
  cannot be made is an error to throw: no fatalError(), try! or force unwrap (!).
  """

@Suite("Exercise 13: choose the writer's merge policy", .temporaryFolders)
struct ChooseAMergePolicyTests {
  @Test("The user's save goes through, although a worker changed the note's row since the writer read it")
  func userSaveGoesThrough() async throws { try await runInChildProcess(.userSaveGoesThrough) }

  @Test("Where the user and the worker changed the same property (the title), the file has the user's value")
  func userWinsWhereBothChanged() async throws { try await runInChildProcess(.userWinsWhereBothChanged) }

  @Test("The user's change to a property the worker did not touch (the body) reaches the file")
  func userOtherChangeKept() async throws { try await runInChildProcess(.userOtherChangeKept) }

  @Test("The worker's change to a property the user did not touch (the pin) stays in the file")
  func workerOtherChangeKept() async throws { try await runInChildProcess(.workerOtherChangeKept) }
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

extension ChildCheck {
  /// Said when the watchdog ends a check that has not finished after 25 seconds: a deadlock would otherwise
  /// hang the run.
  var hangReport: String? {
    """
    The check '\(self)' did not finish within 25 seconds: the save through your writer never returned. \
    Something waits for a queue that is waiting for it.
    """
  }
}

// MARK: - What the checks observe

/// The note as it starts, as the user edits it, and as the worker edits it.
enum Edit {
  static let title = "Groceries"
  static let body = "Milk"
  static let userTitle = "Groceries for Sunday"
  static let userBody = "Milk, eggs"
  static let workerTitle = "Groceries (shared list)"
}

/// The writer's merge policy, as a check names it: one of the five, or a subclass and the type it starts from.
func policyName(_ policy: Any) -> String {
  guard let policy = policy as? NSMergePolicy else { return "\(policy)" }
  let base: String
  switch policy.mergeType {
  case .errorMergePolicyType: base = "error (the default)"
  case .mergeByPropertyStoreTrumpMergePolicyType: base = "mergeByPropertyStoreTrump"
  case .mergeByPropertyObjectTrumpMergePolicyType: base = "mergeByPropertyObjectTrump"
  case .overwriteMergePolicyType: base = "overwrite"
  case .rollbackMergePolicyType: base = "rollback"
  @unknown default: base = "\(policy.mergeType)"
  }
  return type(of: policy) == NSMergePolicy.self ? base : "\(type(of: policy)), a policy of your own built on \(base)"
}

/// What the file held after the user's save, the error that save threw, if any, and the writer's policy.
struct Outcome {
  var title = ""
  var body = ""
  var isPinned = false
  /// The error the user's save (main context, then writer) threw.
  var saveError: (any Error)?
  /// The writer's merge policy, named (``policyName(_:)``).
  var policy = ""

  /// The file's note, in the words of the checks.
  var described: String {
    "title \"\(title)\", body \"\(body)\", \(isPinned ? "pinned" : "not pinned")"
  }

  /// What happened to the user's edit, when it is not what the app wants, told by what the file holds, and the
  /// check that explains it (the other checks that fail for it point there): each wrong choice named by its
  /// effect.
  var diagnosis: (explainedBy: ChildCheck, text: String)? {
    if let saveError {
      let refused = (saveError as NSError).code == NSManagedObjectMergeError
      return (
        .userSaveGoesThrough,
        """
        The user's edit never reached the file: the writer's save was refused (error \((saveError as NSError).code))\
        \(refused ? ", because the worker had changed the note's row since the writer read it, and the writer's merge policy, \(policy), did not settle the conflict" : ""). \
        The file keeps the worker's version (\(described)). The user's edit now waits in the writer, and each \
        later save of the writer meets the same conflict: the stack saves on its own (after merges, at lifecycle \
        moments), with nobody there to resolve it. Choose a policy that settles the conflict, keeping the user's \
        edit.
        """
      )
    }
    if title == Edit.workerTitle && body == Edit.userBody {
      return (
        .userWinsWhereBothChanged,
        """
        The user's title was replaced by the worker's: the file has "\(title)", not "\(Edit.userTitle)"; only the \
        body, which the worker did not touch, kept the user's edit. Under the writer's merge policy, \(policy), \
        the row wins every property both changed, so the user typed a title, saw it, and lost it without a word. \
        Choose the policy under which the user's changes win, property by property.
        """
      )
    }
    if title == Edit.workerTitle && body == Edit.body {
      return (
        .userOtherChangeKept,
        """
        The user's whole edit was thrown away: the file has the worker's title "\(title)" and the body as it was \
        before the user changed it ("\(body)"). Under the writer's merge policy, \(policy), a note in conflict \
        takes the row's values, the properties the worker never touched included. Choose the policy under which \
        the user's changes win, property by property, and the worker's changes to other properties stay.
        """
      )
    }
    if title == Edit.userTitle && !isPinned {
      return (
        .workerOtherChangeKept,
        """
        The user's edit was saved, but the worker's change was undone: the note is no longer pinned. Under the \
        writer's merge policy, \(policy), the user's whole note is written over the row, properties the user \
        never touched included, at the values the user's context read before the worker saved. Choose the \
        policy that keeps the user's changes and only those: the worker's pin must stay.
        """
      )
    }
    return nil
  }
}

/// Builds the stack on a new store, plays the two edits, saves the user's, and reads the file.
func playTheEdits() throws -> Outcome {
  let storeURL = try TemporaryFolder().appending("Notes.sqlite")
  let coordinator = try TutorialStack.coordinator(storeURL: storeURL)
  // The note, saved by an earlier launch.
  let earlier = TutorialStack.context(.privateQueue, on: coordinator)
  let noteID = try earlier.performAndWait {
    let note = Note(context: earlier)
    note.title = Edit.title
    note.body = Edit.body
    note.createdAt = Date(timeIntervalSinceReferenceDate: 800_000_000)
    try earlier.save()
    return note.objectID
  }

  let writer = try Subject.makeWriter(coordinator)
  let policy = writer.performAndWait { policyName(writer.mergePolicy) }
  let main = NSManagedObjectContext(concurrencyType: .privateQueueConcurrencyType)
  main.name = "Main"
  main.parent = writer
  // The user opens the note and edits it, and the app saves as stage 4 does: the main context's save puts the
  // edit in the writer at once; the writer writes it to the file a moment later, on its own queue.
  var saveError: (any Error)?
  do {
    try main.performAndWait {
      let request = NSFetchRequest<Note>(entityName: "Note")
      guard let note = try main.fetch(request).first, note.objectID == noteID else {
        throw CocoaError(.coreData, userInfo: [NSLocalizedDescriptionKey: "The checks' note is not in the store: the fixture is broken."])
      }
      note.title = Edit.userTitle
      note.body = Edit.userBody
      try main.save()
    }
  } catch {
    saveError = error
  }
  // In that moment, a worker of the app's share extension (a stack of its own, on the same file) renames and pins
  // the same note, and saves it to the file. No merge into the writer can see it coming: the writer learns of it
  // only when its own save finds the row changed.
  let extensionCoordinator = try TutorialStack.coordinator(storeURL: storeURL)
  let worker = TutorialStack.context(.privateQueue, on: extensionCoordinator)
  worker.name = "Worker"
  try worker.performAndWait {
    guard let note = try worker.fetch(NSFetchRequest<Note>(entityName: "Note")).first else {
      throw CocoaError(.coreData, userInfo: [NSLocalizedDescriptionKey: "The worker cannot find the note: the fixture is broken."])
    }
    note.title = Edit.workerTitle
    note.isPinned = true
    try worker.save()
  }
  // Then the writer writes the user's edit to the file.
  if saveError == nil {
    do {
      try writer.performAndWait { if writer.hasChanges { try writer.save() } }
    } catch {
      saveError = error
    }
  }

  // The file, as a new coordinator reads it.
  for store in coordinator.persistentStores { try coordinator.remove(store) }
  for store in extensionCoordinator.persistentStores { try extensionCoordinator.remove(store) }
  let reader = TutorialStack.context(.privateQueue, on: try TutorialStack.coordinator(storeURL: storeURL))
  var outcome = try reader.performAndWait {
    guard let note = try reader.fetch(NSFetchRequest<Note>(entityName: "Note")).first else {
      throw CocoaError(.coreData, userInfo: [NSLocalizedDescriptionKey: "The file holds no note after the save."])
    }
    return Outcome(title: note.title, body: note.body ?? "", isPinned: note.isPinned)
  }
  outcome.saveError = saveError
  outcome.policy = policy
  return outcome
}

// MARK: - The checks

/// The checks; each runs in a child process.
enum ChildCheck: String, Codable, Sendable, CustomStringConvertible, ChildProcessCheck {
  case userSaveGoesThrough, userWinsWhereBothChanged, userOtherChangeKept, workerOtherChangeKept

  var description: String { rawValue }

  /// The first words of the check's name, to point to it.
  var name: String {
    switch self {
    case .userSaveGoesThrough: "\"The user's save goes through…\""
    case .userWinsWhereBothChanged: "\"Where the user and the worker changed the same property (the title)…\""
    case .userOtherChangeKept: "\"The user's change to a property the worker did not touch (the body)…\""
    case .workerOtherChangeKept: "\"The worker's change to a property the user did not touch (the pin)…\""
    }
  }

  func run() throws {
    let outcome = try playTheEdits()
    let passed: Bool
    let expected: String
    switch self {
    case .userSaveGoesThrough:
      passed = outcome.saveError == nil
      expected = "The user's save should go through"
    case .userWinsWhereBothChanged:
      passed = outcome.saveError == nil && outcome.title == Edit.userTitle
      expected = "The file should have the user's title, \"\(Edit.userTitle)\""
    case .userOtherChangeKept:
      passed = outcome.saveError == nil && outcome.body == Edit.userBody
      expected = "The file should have the user's body, \"\(Edit.userBody)\""
    case .workerOtherChangeKept:
      passed = outcome.isPinned
      expected = "The note should stay pinned, as the worker left it"
    }
    guard !passed else { return }
    let why: String
    if let diagnosis = outcome.diagnosis {
      why =
        diagnosis.explainedBy == self
        ? diagnosis.text
        : outcome.saveError != nil
          ? "The user's save was refused (the check \(diagnosis.explainedBy.name) says why)."
          : "The file holds \(outcome.described) (the check \(diagnosis.explainedBy.name) says why)."
    } else {
      why = "The file holds \(outcome.described), under the writer's merge policy, \(outcome.policy)."
    }
    Issue.record(Comment(rawValue: "\(expected). \(why)"))
  }
}
