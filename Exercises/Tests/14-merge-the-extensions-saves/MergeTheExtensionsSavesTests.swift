// The checks of exercise 14. They run against your code in Exercises/14-merge-the-extensions-saves/Sources, or
// against the reference solution when WORKSHOP_SOLUTIONS=1. Each check runs in a child process, so that code
// which stops the process (a force unwrap, a try!) fails one check with an explanation instead of ending the
// whole run.
//
// Every check builds an app and its share extension on one SQLite store with persistent history on: two
// coordinators, as two processes have. The app's context (a private-queue context on the app's coordinator)
// saves as "app"; the extension's saves as "share-extension". The store starts with one note, "Groceries",
// which the app saved and its context holds. The checks call your mergeHistory(into:after:skipping:) as the
// app would on each remote change notification, and watch what the app's context announces (its
// objects-did-change notifications: the notes it took in or refreshed, what a list redraws) and what the
// store's history holds.
import EngineTestSupport
import Exercise14
import Exercise14Solution
import ExerciseChecks
import Foundation
import NotesModel
import ObjectGraph
import Synchronization
import TestSupport
import Testing

/// The function under test: your `mergeHistory(into:after:skipping:)`, or the solution's.
enum Subject {
  static let mergeHistory: @Sendable (NSManagedObjectContext, NSPersistentHistoryToken?, String) throws -> NSPersistentHistoryToken? =
    CodeUnderTest.pick(
      starter: Exercise14.mergeHistory(into:after:skipping:), solution: Exercise14Solution.mergeHistory(into:after:skipping:))
}

/// Said when a check's child process stopped (a crash, or the watchdog) instead of finishing.
let stoppedAdvice: Comment = """
  mergeHistory(into:after:skipping:) stopped the whole process, or never finished. A history request that \
  fails is an error to throw: no fatalError(), try! or force unwrap (!).
  """

@Suite("Exercise 14: merge the share extension's saves", .temporaryFolders)
struct MergeTheExtensionsSavesTests {
  @Test("A note the share extension saved reaches the app's context, which announces it once")
  func extensionNoteReachesTheApp() async throws { try await runInChildProcess(.extensionNoteReachesTheApp) }

  @Test("The app's own save is not merged back: the app's context does not refresh the note the user edited")
  func ownSaveNotMergedBack() async throws { try await runInChildProcess(.ownSaveNotMergedBack) }

  @Test("The token returned moves past what was merged: the next call merges only what is new")
  func nothingMergedTwice() async throws { try await runInChildProcess(.nothingMergedTwice) }

  @Test("The history the app has read is deleted from the store")
  func readHistoryDeleted() async throws { try await runInChildProcess(.readHistoryDeleted) }

  @Test("When history cannot be read (the app's store was added without tracking), the error reaches the caller")
  func errorReachesTheCaller() async throws { try await runInChildProcess(.errorReachesTheCaller) }
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
  /// Said when the watchdog ends a check that has not finished after 25 seconds.
  var hangReport: String? {
    """
    The check '\(self)' did not finish within 25 seconds: mergeHistory(into:after:skipping:) never returned. \
    Something waits for a queue that is waiting for it.
    """
  }
}

// MARK: - The app and its extension

/// The app's author and the extension's, as their contexts sign their saves.
enum Author {
  static let app = "app"
  static let share = "share-extension"
}

/// One store file, written by the app's stack and the share extension's, each with a coordinator of its own.
final class SharedStore {
  let storeURL: URL
  /// The app's context: a private-queue context on the app's coordinator, signing its saves "app".
  let app: NSManagedObjectContext
  /// The extension's context, on a coordinator of its own, signing its saves "share-extension".
  let share: NSManagedObjectContext
  /// What the app's context announced as inserted or refreshed (objects-did-change notifications), in order.
  private let announced = Announcements()
  /// The note the app saved before the check began, which the app's context holds.
  let groceries: Note

  init(appTracksHistory: Bool = true) throws {
    storeURL = try TemporaryFolder().appending("Notes.sqlite")
    let tracking: [AnyHashable: Any] = [NSPersistentHistoryTrackingKey: true]
    // The extension makes the store, with history on, as the app's first launch would.
    let shareCoordinator = NSPersistentStoreCoordinator(managedObjectModel: try TutorialStack.model())
    try shareCoordinator.addPersistentStore(type: .sqlite, at: storeURL, options: tracking)
    share = TutorialStack.context(.privateQueue, on: shareCoordinator)
    share.transactionAuthor = Author.share
    let appCoordinator = NSPersistentStoreCoordinator(managedObjectModel: try TutorialStack.model())
    try appCoordinator.addPersistentStore(type: .sqlite, at: storeURL, options: appTracksHistory ? tracking : nil)
    app = TutorialStack.context(.privateQueue, on: appCoordinator)
    app.transactionAuthor = Author.app
    // The note of an earlier launch, saved by the app; its context holds it (the list shows it).
    let app = app
    groceries = try app.performAndWait {
      let note = Note(context: app)
      note.title = "Groceries"
      note.createdAt = Date(timeIntervalSinceReferenceDate: 800_000_000)
      try app.save()
      return note
    }
    // Kept for the whole check (its child process ends with it).
    _ = NotificationCenter.default.addObserver(
      forName: NSManagedObjectContext.didChangeObjectsNotification, object: app, queue: nil
    ) { [announced] notification in
      var notes: [NSManagedObjectID] = []
      for key in [NSManagedObjectContext.NotificationKey.insertedObjects, .refreshedObjects] {
        let objects = notification.userInfo?[key.rawValue] as? Set<NSManagedObject> ?? []
        notes += objects.filter { $0 is Note }.map(\.objectID)
      }
      announced.ids.withLock { $0 += notes }
    }
  }

  /// Saves a new note titled `title` in `context` (the app's or the extension's); returns its ID.
  @discardableResult
  func save(_ title: String, in context: NSManagedObjectContext) throws -> NSManagedObjectID {
    try context.performAndWait {
      let note = Note(context: context)
      note.title = title
      note.createdAt = Date(timeIntervalSinceReferenceDate: 800_000_000)
      try context.save()
      return note.objectID
    }
  }

  /// Renames the note "Groceries" in `context` (the app's or the extension's) and saves. Found by its title:
  /// an object ID names an object in its own coordinator's stack only.
  func rename(to title: String, in context: NSManagedObjectContext) throws {
    try context.performAndWait {
      let request = NSFetchRequest<Note>(entityName: "Note")
      request.predicate = NSPredicate(format: "title == %@", "Groceries")
      guard let note = try context.fetch(request).first else { throw CheckFailure(text: "The checks' note is missing.") }
      note.title = title
      try context.save()
    }
  }

  /// Calls the code under test as the app would; returns the token and what the app's context announced
  /// as inserted or refreshed during the call.
  func merge(after token: NSPersistentHistoryToken?) throws -> (token: NSPersistentHistoryToken?, announced: [NSManagedObjectID]) {
    announced.ids.withLock { $0 = [] }
    let next = try Subject.mergeHistory(app, token, Author.app)
    return (next, announced.ids.withLock { $0 })
  }

  /// The authors of the transactions the store's history holds, read through a coordinator of its own.
  func historyAuthors() throws -> [String] {
    let coordinator = NSPersistentStoreCoordinator(managedObjectModel: try TutorialStack.model())
    try coordinator.addPersistentStore(type: .sqlite, at: storeURL, options: [NSPersistentHistoryTrackingKey: true])
    let reader = TutorialStack.context(.privateQueue, on: coordinator)
    return try reader.performAndWait {
      let result = try reader.execute(NSPersistentHistoryChangeRequest.fetchHistory(after: nil as NSPersistentHistoryToken?))
      let transactions = (result as? NSPersistentHistoryResult)?.result as? [NSPersistentHistoryTransaction] ?? []
      return transactions.map { $0.author ?? "(no author)" }
    }
  }
}

/// The notes an app's context announced as inserted, collected on its queue, read by the check.
final class Announcements: Sendable {
  let ids = Mutex<[NSManagedObjectID]>([])
}

// MARK: - The checks

/// The checks; each runs in a child process.
enum ChildCheck: String, Codable, Sendable, CustomStringConvertible, ChildProcessCheck {
  case extensionNoteReachesTheApp, ownSaveNotMergedBack, nothingMergedTwice, readHistoryDeleted, errorReachesTheCaller

  var description: String { rawValue }

  func run() throws {
    switch self {
    case .extensionNoteReachesTheApp:
      let store = try SharedStore()
      let shared = try store.save("Shared from Safari", in: store.share)
      let (token, announced) = try store.merge(after: nil)
      guard announced.contains(shared) else {
        throw failure(
          """
          The app's context never announced the note the share extension saved, so the app's list would not \
          show it until the next launch. Read the history after the token, and merge each transaction of the \
          extension into the context (mergeChanges(fromContextDidSave:) takes transaction.objectIDNotification()).
          """)
      }
      guard announced.filter({ $0 == shared }).count == 1 else {
        throw failure("The app's context announced the extension's note \(announced.count) times: merge each transaction once.")
      }
      guard token != nil else {
        throw failure("mergeHistory returned nil after reading a transaction: return the token of the last transaction read.")
      }

    case .ownSaveNotMergedBack:
      let store = try SharedStore()
      try store.rename(to: "Groceries for Sunday", in: store.app)
      let shared = try store.save("Shared from Safari", in: store.share)
      let (_, announced) = try store.merge(after: nil)
      guard !announced.contains(store.groceries.objectID) else {
        throw failure(
          """
          The app's own edit came back: the app's context refreshed "Groceries for Sunday", which the user renamed \
          in the app, reading back the row it had just written. Every save of the app returns like this, and \
          whatever redraws on the announcement (the list, the note on screen) does so for changes it made \
          itself. The app's saves are in its context already: skip the transactions whose author is the app's \
          own (transaction.author).
          """)
      }
      guard announced == [shared] else {
        throw failure("The app's context should have announced only the extension's note; it announced \(announced.count) notes.")
      }

    case .nothingMergedTwice:
      let store = try SharedStore()
      try store.rename(to: "Groceries (shared list)", in: store.share)
      let (token, first) = try store.merge(after: nil)
      guard first.contains(store.groceries.objectID) else {
        throw failure("The app's context did not refresh \"Groceries\", which the share extension renamed: merge its transaction.")
      }
      let second = try store.save("Shared from Safari", in: store.share)
      let (_, announced) = try store.merge(after: token)
      guard !announced.contains(store.groceries.objectID) else {
        throw failure(
          """
          The extension's rename was merged again by the second call: the app's context refreshed "Groceries \
          (shared list)" once more, and every later remote change merges it again, as history grows. Return the \
          token of the last transaction you read, so that the next call starts after it.
          """)
      }
      guard announced == [second] else {
        throw failure("The second call should have announced the extension's new note, and only it; it announced \(announced.count) notes.")
      }

    case .readHistoryDeleted:
      let store = try SharedStore()
      try store.rename(to: "Groceries for Sunday", in: store.app)
      try store.save("Shared from Safari", in: store.share)
      _ = try store.merge(after: nil)
      let left = try store.historyAuthors()
      guard left.isEmpty else {
        throw failure(
          """
          The store's history still holds the \(left.count) transactions the app has read (by \(Set(left).sorted().joined(separator: ", "))). \
          Nobody deletes them later: history grows with every save for as long as the app is installed, and every \
          fetch of it reads more. The app is the only reader here: once it has read the transactions, delete them \
          (NSPersistentHistoryChangeRequest.deleteHistory(before:) with the last transaction's token).
          """)
      }

    case .errorReachesTheCaller:
      let store = try SharedStore(appTracksHistory: false)
      try store.save("Shared from Safari", in: store.share)
      let thrown = try errorThrown { _ = try store.merge(after: nil) }
      guard thrown != nil else {
        throw failure(
          """
          mergeHistory returned normally, but the app's store was added without NSPersistentHistoryTrackingKey, so \
          its history request failed: the error was swallowed. The app would never show the extension's notes, and \
          nobody would know why. Let the error of a history request reach the caller (try, not try?).
          """)
      }
    }
  }

  /// A failed check's error, worded for the learner.
  func failure(_ text: String) -> CheckFailure { CheckFailure(text: text) }
}

/// What a failed check throws: its text is the check's message.
struct CheckFailure: Error, CustomStringConvertible {
  let text: String
  var description: String { text }
}
