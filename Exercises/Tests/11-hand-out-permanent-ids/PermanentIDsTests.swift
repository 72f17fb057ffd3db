// The checks of exercise 11. They run against your code in Exercises/11-hand-out-permanent-ids/Sources, or
// against the reference solution when WORKSHOP_SOLUTIONS=1. Each check runs in a child process, so that code
// which stops the process (a force unwrap, a try!) fails one check with an explanation instead of ending the
// whole run.
//
// Every check builds stage 4's shape on a SQLite store: a private-queue writer holding the coordinator, the
// main context as its child, and a worker beside the main context (another child of the writer). After
// importNotes returns, the checks save the writer, as stage 4's controller does after each worker's save.
import EngineTestSupport
import Exercise11
import Exercise11Solution
import ExerciseChecks
import Foundation
import NotesModel
import ObjectGraph
import TestSupport
import Testing

/// The function under test: your `importNotes(_:on:)`, or the solution's.
enum Subject {
  static let importNotes: @Sendable ([String], NSManagedObjectContext) throws -> [NSManagedObjectID] = CodeUnderTest.pick(
    starter: Exercise11.importNotes(_:on:), solution: Exercise11Solution.importNotes(_:on:))
}

/// Said when a check's child process stopped (a crash, or the watchdog) instead of finishing.
let stoppedAdvice: Comment = """
  importNotes(_:on:) stopped the whole process, or never finished. A save that fails, or IDs that cannot be \
  had, are errors to throw to the caller: no fatalError(), try! or force unwrap (!).
  """

@Suite("Exercise 11: hand out permanent IDs", .temporaryFolders)
struct PermanentIDsTests {
  @Test("The IDs importNotes hands out are permanent, one per title, in order")
  func idsArePermanent() async throws { try await runInChildProcess(.idsArePermanent) }

  @Test("The main context, a sibling of the worker, finds each note by its ID, and fetches the notes under the same IDs")
  func mainContextFindsThem() async throws { try await runInChildProcess(.mainContextFindsThem) }

  @Test("After a relaunch (a new coordinator on the same file), each stored URI names the right note")
  func urisSurviveARelaunch() async throws { try await runInChildProcess(.urisSurviveARelaunch) }

  @Test("The worker saves once, and its save hands the writer the notes under the IDs handed out")
  func idsObtainedBeforeTheSave() async throws { try await runInChildProcess(.idsObtainedBeforeTheSave) }
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

/// A SQLite store with one note ("Already here"), the writer holding its coordinator, the main context as the
/// writer's child, and a worker beside the main context.
struct Fixture {
  let storeURL: URL
  let coordinator: NSPersistentStoreCoordinator
  let writer: NSManagedObjectContext
  let main: NSManagedObjectContext
  let worker: NSManagedObjectContext

  init() throws {
    storeURL = try TemporaryFolder().appending("Notes.sqlite")
    coordinator = try TutorialStack.coordinator(storeURL: storeURL)
    let writer = TutorialStack.context(.privateQueue, on: coordinator)
    writer.name = "Writer"
    self.writer = writer
    try writer.performAndWait {
      let note = Note(context: writer)
      note.title = "Already here"
      note.createdAt = Date()
      try writer.save()
    }
    main = NSManagedObjectContext(concurrencyType: .mainQueueConcurrencyType)
    main.name = "Main"
    main.parent = writer
    worker = NSManagedObjectContext(concurrencyType: .privateQueueConcurrencyType)
    worker.name = "Worker"
    worker.parent = writer
  }

  /// Imports `titles` with the code under test, and notes what the writer and the store hold as it returns.
  func runImport(_ titles: [String]) throws -> Imported {
    // What each save of the worker hands the writer: whether any new note went up under a temporary ID.
    let saves = NotificationLog(NSManagedObjectContext.didSaveObjectsNotification, object: worker) { notification in
      let key = NSManagedObjectContext.NotificationKey.insertedObjectIDs.rawValue
      let inserted = notification.userInfo?[key] as? Set<NSManagedObjectID> ?? []
      return inserted.contains(where: \.isTemporaryID)
    }
    let ids = try Subject.importNotes(titles, worker)
    let writer = writer
    let inWriter = try writer.performAndWait {
      let request = NSFetchRequest<Note>(entityName: "Note")
      request.predicate = NSPredicate(format: "title != %@", "Already here")
      return try writer.fetch(request).map(\.objectID)
    }
    let storeHadThem = try TutorialStack.notesInStore(coordinator) == titles.count + 1
    return Imported(ids: ids, inWriter: inWriter, storeHadThem: storeHadThem, workerSaves: saves.entries)
  }

  /// Imports `titles` with the code under test, then saves the writer, as stage 4's stack does after a worker's
  /// save: the notes are on disk when this returns.
  func importAndWrite(_ titles: [String]) throws -> Imported {
    let imported = try runImport(titles)
    try writer.performAndWait {
      if writer.hasChanges { try writer.save() }
    }
    return imported
  }

  /// The title of the note `id` names in `context`, or why there is none.
  static func title(of id: NSManagedObjectID, in context: NSManagedObjectContext) -> String {
    context.performAndWait {
      do {
        guard let note = try context.existingObject(with: id) as? Note else { return "(not a note)" }
        return note.title
      } catch {
        return "(nothing: \(error))"
      }
    }
  }
}

let titles = ["Groceries", "Call the bank", "Book a table"]

/// What the checks saw of one call of importNotes, as it returned (before the checks save the writer).
struct Imported {
  /// The IDs it handed out.
  let ids: [NSManagedObjectID]
  /// The IDs the new notes have in the writer, where the worker's save put them.
  let inWriter: [NSManagedObjectID]
  /// Whether the store already held the new notes: importNotes saved the writer itself.
  let storeHadThem: Bool
  /// One entry per save of the worker: whether it handed new notes to the writer under temporary IDs.
  let workerSaves: [Bool]

  /// Why the IDs handed out are temporary, when what the checks saw tells which of two likely ways it was:
  /// IDs read before `obtainPermanentIDs(for:)`, or a save of the writer in place of it.
  var whyTemporary: String? {
    guard ids.contains(where: \.isTemporaryID) else { return nil }
    if !storeHadThem && !inWriter.isEmpty && !inWriter.contains(where: \.isTemporaryID) {
      return """
        importNotes did call obtainPermanentIDs(for:): its notes have their permanent IDs (the writer holds \
        them under those). But the IDs it handed out were read before that call. An ID read from objectID is \
        a value taken at that \
        moment: it does not follow the object when the object gets its permanent ID, and the old one names \
        nothing any more, not even in the worker. Read the IDs after obtainPermanentIDs(for:) (notes.map(\\.objectID)).
        """
    }
    if storeHadThem {
      return """
        importNotes saved the writer itself (the store held the new notes before the checks saved the writer), \
        and read the IDs after that. The writer's save gives the rows their permanent IDs in the writer, not in \
        the worker: the worker's notes keep their temporary IDs, and those are what it handed out. Saving the \
        writer is the stack's job, not the import's. Ask for the permanent IDs with \
        worker.obtainPermanentIDs(for:) before the worker saves, and read objectID after that call.
        """
    }
    return nil
  }
}

/// What a check saw of temporary IDs: how many of the IDs handed out are temporary, and one of them.
func temporaryObservation(_ imported: Imported) -> String {
  let temporary = imported.ids.filter(\.isTemporaryID)
  let example = temporary.first.map { " (one is \($0.uriRepresentation().absoluteString))" } ?? ""
  return "\(temporary.count) of the \(imported.ids.count) IDs importNotes handed out are temporary\(example)."
}

/// Why the IDs handed out are temporary and what to do. Said by the check that the IDs are permanent; the
/// other checks that meet temporary IDs point to it (``Explained/permanent``).
func temporaryDiagnosis(_ imported: Imported) -> String {
  if let why = imported.whyTemporary { return why }
  return """
    A new object gets a temporary ID, known only to its context and, once it saves, to its parent. Saving the \
    worker does not change that: the worker's save goes into the writer, not to the store. When the writer \
    saves, each row gets a permanent ID, and the temporary ID names nothing any more. Ask for the permanent IDs \
    with worker.obtainPermanentIDs(for:) before the worker saves, and read objectID after that call.
    """
}

/// The check that explains temporary IDs, which the other checks meet too, by its name.
enum Explained {
  static let permanent = "\"The IDs importNotes hands out are permanent, one per title, in order\""
  /// What the other checks add when the IDs they were handed are temporary.
  static let temporary = "The IDs importNotes handed out are temporary: the check \(permanent) says why."
}

/// Whether `results` (what the IDs name, in the order handed out) are the titles in another order.
func isOnlyOutOfOrder(_ results: [String], _ expected: [String] = titles) -> Bool {
  results != expected && results.sorted() == expected.sorted()
}

/// Said when the IDs name the right notes, in another order than the titles': in full by the check that the
/// IDs are permanent and in order (`explains`), briefly by the others.
func outOfOrder(_ results: [String], _ expected: [String] = titles, explains: Bool = false) -> String {
  explains
    ? """
    The IDs name the right notes, in another order: for \(expected) they name \(results). The app opens the wrong \
    note when the user taps one. Hand them back in the order of the titles, mapping the notes as you made them, \
    not a Set such as insertedObjects, whose order is any (and changes from one run to the next).
    """
    : """
    The IDs name the right notes, in another order: for \(expected) they name \(results) (the check \
    \(Explained.permanent) says more).
    """
}

/// What lookups by the IDs handed out found, said briefly: the list when every lookup found a note, else how
/// many found nothing and what the first of those said (the others say the same of another ID).
func foundByID(_ results: [String]) -> String {
  let missed = results.filter { $0.hasPrefix("(") }
  guard let first = missed.first else { return "\(results)" }
  let found = results.filter { !$0.hasPrefix("(") }
  let said = first.dropFirst().dropLast()
  let what = found.isEmpty ? "no note" : "only \(found)"
  return "\(what) (\(missed.count) of the \(results.count) lookups found nothing; the first: \(said))"
}

/// What the checks say when the worker saved before asking for the permanent IDs.
let savedFirstAdvice = """
  importNotes saved the worker first and asked for the permanent IDs afterwards: the save had already handed \
  the notes to the writer under their temporary IDs. Core Data documents that obtainPermanentIDs(for:) changes \
  the IDs of the objects you pass, in the context you call it on, and nothing more: the writer keeps its copies \
  under the temporary IDs and gives their rows permanent IDs of its own when it saves, so the IDs handed out \
  may name rows that were never written (apps that did this met duplicate objects and faults that could not be \
  fulfilled). ObjectGraph renumbers the writer's copies too, so here it happens to work; do not rely on it. \
  Call worker.obtainPermanentIDs(for:) before worker.save(), then read objectID.
  """

// MARK: - The checks

/// The checks; each runs in a child process.
enum ChildCheck: String, Codable, Sendable, CustomStringConvertible, ChildProcessCheck {
  case idsArePermanent, mainContextFindsThem, urisSurviveARelaunch, idsObtainedBeforeTheSave

  var description: String { rawValue }

  func run() throws {
    switch self {
    case .idsArePermanent: try Self.checkIDsArePermanent()
    case .mainContextFindsThem: try Self.checkMainContextFindsThem()
    case .urisSurviveARelaunch: try Self.checkURIsSurviveARelaunch()
    case .idsObtainedBeforeTheSave: try Self.checkIDsObtainedBeforeTheSave()
    }
  }

  private static func checkIDsObtainedBeforeTheSave() throws {
    let fixture = try Fixture()
    let imported = try fixture.runImport(titles)
    #expect(
      imported.workerSaves.count == 1,
      "importNotes should save the worker once, after obtaining the IDs; it saved it \(imported.workerSaves.count) times.")
    guard imported.workerSaves.contains(true) else { return }
    if imported.ids.contains(where: \.isTemporaryID) {
      Issue.record(
        Comment(
          rawValue: """
            The worker's save handed the writer its new notes under temporary IDs, the ones importNotes handed out \
            (the check \(Explained.permanent) says why they are temporary).
            """))
    } else {
      Issue.record(Comment(rawValue: savedFirstAdvice))
    }
  }

  private static func checkIDsArePermanent() throws {
    let fixture = try Fixture()
    let imported = try fixture.runImport(titles)
    let ids = imported.ids
    #expect(
      ids.count == titles.count,
      "importNotes should hand back one ID per title (\(titles.count)), in the order of the titles; it handed back \(ids.count)."
    )
    guard !ids.contains(where: \.isTemporaryID) else {
      Issue.record(Comment(rawValue: "\(temporaryObservation(imported)) \(temporaryDiagnosis(imported))"))
      return
    }
    #expect(Set(ids).count == ids.count, "Each note should have its own ID; some of the IDs handed back are the same.")
    let inWorker = ids.map { Fixture.title(of: $0, in: fixture.worker) }
    if isOnlyOutOfOrder(inWorker) {
      Issue.record(Comment(rawValue: outOfOrder(inWorker, explains: true)))
      return
    }
    #expect(
      inWorker == titles,
      """
      Each ID should name the note made for the title at the same place, in the worker too: expected \(titles), \
      the IDs name \(foundByID(inWorker)) there.
      """)
    guard inWorker == titles else { return }
    // Three IDs in the right order may be luck (a Set's order changes from run to run): eight more, once.
    let more = (1...8).map { "Note \($0)" }
    let again = try Fixture()
    let moreIDs = try again.runImport(more).ids
    let named = moreIDs.map { Fixture.title(of: $0, in: again.worker) }
    #expect(
      named == more,
      Comment(
        rawValue: isOnlyOutOfOrder(named, more)
          ? outOfOrder(named, more, explains: true)
          : "Importing \(more.count) more titles, the IDs name \(foundByID(named)), not \(more).")
    )
  }

  private static func checkMainContextFindsThem() throws {
    let fixture = try Fixture()
    let imported = try fixture.importAndWrite(titles)
    let ids = imported.ids
    let temporary = ids.contains(where: \.isTemporaryID)
    // The user taps a note the import made: the main context, not the worker's descendant, looks it up.
    let inMain = ids.map { Fixture.title(of: $0, in: fixture.main) }
    // The list screen fetches the notes in the main context; the app finds the imported ones among them by ID
    // (to select the newest, say). The fetched notes carry their rows' IDs: the IDs handed out must be those.
    let fetched = try fixture.main.performAndWait {
      let request = NSFetchRequest<Note>(entityName: "Note")
      request.predicate = NSPredicate(format: "title != %@", "Already here")
      return Dictionary(try fixture.main.fetch(request).map { ($0.objectID, $0.title) }, uniquingKeysWith: { first, _ in first })
    }
    let matched = ids.map { fetched[$0] ?? "(no fetched note has this ID)" }
    if isOnlyOutOfOrder(inMain) {
      Issue.record(Comment(rawValue: outOfOrder(inMain)))
    } else if inMain != titles {
      Issue.record(
        """
        The main context should find each imported note by the ID importNotes handed out, after the writer has \
        saved: expected \(titles), it found \(foundByID(inMain)).\(temporary ? " \(Explained.temporary)" : "")
        """)
    } else if matched != titles {
      Issue.record(
        """
        A fetch in the main context should return the imported notes under the very IDs importNotes handed out: \
        expected \(titles), matching the IDs to the fetched notes gives \(foundByID(matched)).\
        \(temporary ? " The lookups above found the notes only because ObjectGraph's writer remembers which row each temporary ID became; a fetch returns the rows' own IDs. \(Explained.temporary)" : "")
        """)
    }
    let onDisk = try TutorialStack.notesInStore(fixture.coordinator)
    #expect(
      onDisk == titles.count + 1,
      "The store should hold the note it had and the \(titles.count) imported ones once the writer saved; it holds \(onDisk). Save the worker once."
    )
  }

  private static func checkURIsSurviveARelaunch() throws {
    let uris: [URL]
    let storeURL: URL
    let imported: Imported
    do {
      let fixture = try Fixture()
      storeURL = fixture.storeURL
      imported = try fixture.importAndWrite(titles)
      // What the app stores to reopen the notes at the next launch.
      uris = imported.ids.map { $0.uriRepresentation() }
      for store in fixture.coordinator.persistentStores { try fixture.coordinator.remove(store) }
    }
    // The next launch: a new coordinator on the same file.
    let coordinator = try TutorialStack.coordinator(storeURL: storeURL)
    let context = TutorialStack.context(.privateQueue, on: coordinator)
    let found = uris.map { uri in
      coordinator.managedObjectID(forURIRepresentation: uri).map { Fixture.title(of: $0, in: context) }
        ?? "(the coordinator cannot read \(uri.absoluteString))"
    }
    guard found != titles else { return }
    if isOnlyOutOfOrder(found) {
      Issue.record(Comment(rawValue: outOfOrder(found)))
      return
    }
    let temporary = uris.filter { $0.host == nil || $0.host?.isEmpty == true }
    Issue.record(
      """
      After a relaunch, each stored URI should name its note: expected \(titles), found \(foundByID(found)). The \
      user's "reopen my last note" opens nothing.\
      \(temporary.isEmpty ? "" : " A URI with no store in it (x-coredata:///Note/t…) is a temporary ID's: it names nothing outside the context that made it, and nothing at all in the next process.")\
      \(imported.ids.contains(where: \.isTemporaryID) ? " \(Explained.temporary)" : "")
      """)
  }
}
