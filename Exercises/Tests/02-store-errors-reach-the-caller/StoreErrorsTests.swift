// The checks of exercise 02. They run against your code in Exercises/02-store-errors-reach-the-caller/Sources,
// or against the reference solution when WORKSHOP_SOLUTIONS=1. Each check runs in a child process, so that
// code which stops the process (abort(), fatalError(), try!) fails one check with an explanation instead of
// ending the whole run.
import EngineTestSupport
import Exercise02
import Exercise02Solution
import ExerciseChecks
import Foundation
import NotesModel
import ObjectGraph
import TestSupport
import Testing

/// The function under test: your `makeCoordinator(for:storeFolder:storeName:)`, or the solution's.
enum Subject {
  static let makeCoordinator: @Sendable (NSManagedObjectModel, URL, String) throws -> NSPersistentStoreCoordinator =
    CodeUnderTest.pick(
      starter: Exercise02.makeCoordinator(for:storeFolder:storeName:),
      solution: Exercise02Solution.makeCoordinator(for:storeFolder:storeName:))
}

/// Said when a check's child process stopped (a crash) instead of getting a thrown error back.
let stoppedAdvice: Comment = """
  makeCoordinator(for:storeFolder:storeName:) stopped the whole process instead of throwing. Xcode's \
  template calls abort() when the store cannot be added; an app that does that on a user's phone just \
  vanishes at launch, every launch. Let the error reach the caller: no abort(), fatalError(), try! or \
  force unwrap (!).
  """

@Suite("Exercise 02: store errors reach the caller", .temporaryFolders)
struct StoreErrorsTests {
  @Test("The folder is created (parents too), the store goes in it, and a second launch finds what was saved")
  func createsFolderAndStore() async throws { try await runInChildProcess(.createsFolderAndStore) }

  @Test("A store that version 1 of the model wrote opens, after an update, with its notes")
  func olderStoreOpens() async throws { try await runInChildProcess(.olderStoreOpens) }

  @Test("A file that is not a store: ObjectGraph's error reaches the caller, and the file is left untouched")
  func foreignFile() async throws { try await runInChildProcess(.foreignFile) }

  @Test("A folder that cannot be created: that error reaches the caller, naming the folder")
  func folderCannotBeCreated() async throws { try await runInChildProcess(.folderCannotBeCreated) }
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

/// The checks; each runs in a child process.
enum ChildCheck: String, Codable, Sendable, ChildProcessCheck {
  case createsFolderAndStore, olderStoreOpens, foreignFile, folderCannotBeCreated

  func run() throws {
    switch self {
    case .createsFolderAndStore: try Self.checkCreatesFolderAndStore()
    case .olderStoreOpens: try Self.checkOlderStoreOpens()
    case .foreignFile: try Self.checkForeignFile()
    case .folderCannotBeCreated: try Self.checkFolderCannotBeCreated()
    }
  }

  private static func checkCreatesFolderAndStore() throws {
    let folder = try TemporaryFolder()
    // Neither "Application Support" nor "Notes" exists yet.
    let storeFolder = folder.appending("Application Support/Notes")
    let expectedURL = storeFolder.appendingPathComponent("Notes.sqlite")

    let coordinator: NSPersistentStoreCoordinator
    do {
      coordinator = try Subject.makeCoordinator(try TutorialStack.model(), storeFolder, "Notes.sqlite")
    } catch {
      try rethrowIfNotDone(error)
      Issue.record(
        """
        makeCoordinator threw, but nothing is wrong here: \(storeFolder.path) does not exist yet, and neither does \
        its parent 'Application Support'. Create both before adding the store \
        (FileManager.default.createDirectory(at:withIntermediateDirectories: true)). It threw: \(error)
        """)
      return
    }
    let stores = coordinator.persistentStores
    #expect(
      stores.count == 1,
      "makeCoordinator should return the coordinator with its store already added; it has \(stores.count) store(s).")
    if let store = stores.first {
      #expect(store.type == NSSQLiteStoreType, "The store should be a SQLite store (NSSQLiteStoreType); it is \(store.type).")
      #expect(
        store.url?.standardizedFileURL.path == expectedURL.standardizedFileURL.path,
        "The store should be the file storeName inside storeFolder, \(expectedURL.path); it is at \(store.url?.path ?? "no URL").")
    }

    // The app saves a note, quits, and launches again: the folder exists now, and the note is on disk.
    let context = TutorialStack.context(.privateQueue, on: coordinator)
    try context.performAndWait {
      let note = Note(context: context)
      note.title = "Buy milk"
      note.createdAt = Date()
      try context.save()
    }
    let relaunched: NSPersistentStoreCoordinator
    do {
      relaunched = try Subject.makeCoordinator(try TutorialStack.model(), storeFolder, "Notes.sqlite")
    } catch {
      let fileExists =
        (error as NSError).domain == NSCocoaErrorDomain
        && (error as NSError).code == CocoaError.Code.fileWriteFileExists.rawValue
      var message = """
        The second launch failed: makeCoordinator threw when \(storeFolder.path) already exists and holds the store \
        the first launch made.
        """
      if fileExists {
        message += """
           Its error says a file is already there: the folder itself. Making a folder that exists must not be an \
          error on every launch after the first (withIntermediateDirectories: true takes care of that).
          """
      }
      Issue.record(Comment(rawValue: message + " It threw: \(error)"))
      return
    }
    let notes = try TutorialStack.notesInStore(relaunched)
    #expect(notes == 1, "The second launch should find the note the first one saved in \(expectedURL.path); it finds \(notes).")
  }

  private static func checkOlderStoreOpens() throws {
    let folder = try TemporaryFolder()
    // Three notes, saved by the app's previous version, whose model is version 1 of the tutorial's.
    try TutorialStack.writeVersionOneStore(at: folder.appending("Notes.sqlite"), notes: 3)

    let coordinator: NSPersistentStoreCoordinator
    do {
      coordinator = try Subject.makeCoordinator(try TutorialStack.model(), folder.url, "Notes.sqlite")
    } catch {
      try rethrowIfNotDone(error)
      let opening = """
        The store at \(folder.appending("Notes.sqlite").path) was written by the app's previous version, with \
        version 1 of the model; makeCoordinator, with the current model, threw for it.
        """
      switch (error as NSError).code {
      case NSPersistentStoreIncompatibleVersionHashError:
        Issue.record(
          """
          \(opening) Error 134100 says the store was made with another version of the model, and the coordinator \
          was not asked to migrate stores as it adds them. After an update, every user's notes would be out of \
          reach. It threw: \(error)
          """)
      case NSMigrationMissingMappingModelError:
        Issue.record(
          """
          \(opening) Error 134140 says the coordinator was asked to migrate the store but found no mapping model, \
          and was not asked to infer one from the two versions. It threw: \(error)
          """)
      default:
        Issue.record("\(opening) Such a store should open, migrated to the current version. It threw: \(error)")
      }
      return
    }
    guard !coordinator.persistentStores.isEmpty else {
      Issue.record(
        """
        makeCoordinator returned the coordinator without its store, for a store the app's previous version wrote \
        (version 1 of the model): adding it failed, and the caller was not told.
        """)
      return
    }
    let notes = try TutorialStack.notesInStore(coordinator)
    #expect(notes == 3, "The store the previous version wrote held 3 notes; after it opened, it holds \(notes).")
  }

  private static func checkForeignFile() throws {
    let folder = try TemporaryFolder()
    let storeURL = folder.appending("Notes.sqlite")
    let original = Data("Shopping list\n- milk\n- eggs\n".utf8)
    try original.write(to: storeURL)

    var returned: NSPersistentStoreCoordinator?
    let error = try errorThrown(by: { returned = try Subject.makeCoordinator(try TutorialStack.model(), folder.url, "Notes.sqlite") })
    let now = FileManager.default.contents(atPath: storeURL.path)
    if let error {
      #expect(
        (error as NSError).code == NSPersistentStoreInvalidTypeError,
        """
        The file at the store's URL is a text file, so addPersistentStore throws error 134000 \
        (persistentStoreInvalidType), which says what the file is and what to do. That error should reach the \
        caller unchanged, so the app can decide (tell the user, offer a fresh start). Your function threw \
        instead: \(error)
        """)
    } else if now != original {
      // Told apart by what is on disk now: the text file is gone, or a new store was written over it.
      Issue.record(
        """
        makeCoordinator returned normally, and the text file at \(storeURL.path) \(now == nil ? "is gone" : "was replaced"): \
        when addPersistentStore failed, your code deleted (or overwrote) the file it could not open and made a new, \
        empty store in its place ("start fresh"). The launch works, and the user's data is gone without a word: a \
        file the app cannot read today may open after an update, or with help from support. Do not catch that \
        error at all: a plain try hands it to the caller, and the file stays as it was. Starting fresh is for the \
        user to choose, and then the old store is moved aside, never deleted (exercise 08).
        """)
    } else {
      let stores = returned?.persistentStores.count ?? 0
      Issue.record(
        """
        makeCoordinator returned normally, with \(stores) store(s), but the file at \(storeURL.path) is a text file, \
        not a store: addPersistentStore threw, and your code caught that error and went on (a try?, or a catch \
        that only prints or logs it). The caller believes the launch went well, and the app fails later, at its \
        first save, far from the cause. Do not catch it: a plain try hands ObjectGraph's error (134000) to the \
        caller, unchanged.
        """)
    }
    // (When it returned normally, the message above has said what became of the file.)
    #expect(
      error == nil || now == original,
      """
      The file at \(storeURL.path) must be left exactly as it was: a file the store cannot open may be the \
      user's only copy of their data. It was \(now == nil ? "removed" : "changed").
      """)
  }

  private static func checkFolderCannotBeCreated() throws {
    let folder = try TemporaryFolder()
    // "Application Support" is a file here, so no folder can be made inside it.
    let blocker = folder.appending("Application Support")
    let blockerContents = Data("I am a file, not a folder.\n".utf8)
    try blockerContents.write(to: blocker)
    let storeFolder = blocker.appendingPathComponent("Notes")

    guard
      let error = try errorThrown(by: { _ = try Subject.makeCoordinator(try TutorialStack.model(), storeFolder, "Notes.sqlite") })
    else {
      Issue.record(
        """
        makeCoordinator returned normally, but \(storeFolder.path) cannot be created: \(blocker.path) is a file. \
        A coordinator without its store only fails later, at the first save. Let the error reach the caller.
        """)
      return
    }
    if case let engineError = error as NSError, engineError.code == NSPersistentStoreOpenError {
      Issue.record(
        """
        The error came from addPersistentStore: "\(engineError.localizedDescription)" So the folder could not be created, but \
        that first error was dropped (a try? or an empty catch around createDirectory) and the failure showed up \
        one step later, with less to say about why. Let createDirectory's own error reach the caller (a plain \
        try): it names the folder and the reason. A folder that already exists needs no try? either: with \
        withIntermediateDirectories: true, createDirectory does not complain about it.
        """)
    }
    let text = String(describing: error)
    #expect(
      text.contains("Application Support"),
      "The error should name the folder that could not be created (\(storeFolder.path)) so the reader can look at it. It said: \(text)")
    #expect(
      FileManager.default.contents(atPath: blocker.path) == blockerContents,
      "The file \(blocker.path), which stood in the way, must be left as it was; it was changed or removed.")
  }
}
