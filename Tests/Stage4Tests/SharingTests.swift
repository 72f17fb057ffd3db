import Foundation
import NotesModel
import ObjectGraph
import Stage4
import TestSupport
import Testing

// An app and its share extension on one store file: two controllers, each with a coordinator of its own,
// as two processes would have (stage4-demo --share runs them as two real processes; DemoTests checks it).

/// A controller sharing the store in `folder` as `author`, returned once its store has loaded.
@MainActor
func makeSharingStack(in folder: TemporaryFolder, as author: String, purges: Bool = false, historyLimit: TimeInterval? = nil)
  async throws -> PersistenceController
{
  let loaded = Signal<Result<Void, PersistenceControllerError>>()
  var sharing = StoreSharing(author: author, purgesHistory: purges)
  if let historyLimit { sharing.historyLimit = historyLimit }
  let controller = PersistenceController(storeFolder: folder.url, sharing: sharing) { loaded.fulfil($0) }
  try await loaded.wait("the store to load").get()
  return controller
}

/// The transactions in the store's history, by author, read through a coordinator of their own.
func historyAuthors(in folder: TemporaryFolder) throws -> [String] {
  let coordinator = NSPersistentStoreCoordinator(managedObjectModel: try TutorialModel.load())
  try coordinator.addPersistentStore(
    type: .sqlite, at: folder.appending("\(NotesModel.name).sqlite"), options: [NSPersistentHistoryTrackingKey: true])
  let context = NSManagedObjectContext(concurrencyType: .privateQueueConcurrencyType)
  context.persistentStoreCoordinator = coordinator
  return try context.performAndWait {
    let result = try context.execute(NSPersistentHistoryChangeRequest.fetchHistory(after: nil as NSPersistentHistoryToken?))
    let transactions = (result as? NSPersistentHistoryResult)?.result as? [NSPersistentHistoryTransaction] ?? []
    return transactions.map { $0.author ?? "(none)" }
  }
}

/// The tutorial's model, for a coordinator of the test's own.
enum TutorialModel {
  static func load() throws -> NSManagedObjectModel {
    guard let url = NotesModel.bundle.url(forResource: NotesModel.name, withExtension: "xcdatamodeld"),
      let model = NSManagedObjectModel(contentsOf: url)
    else { throw StillWaiting(what: "the tutorial's model") }
    return model
  }
}

/// Records the merges the controller reports to its delegate.
@MainActor
final class MergeLog: PersistenceControllerDelegate {
  private(set) var merges: [HistoryMerge] = []
  private(set) var failures: [PersistenceControllerError] = []
  func persistenceController(_ controller: PersistenceController, didFailToSave error: PersistenceControllerError) {}
  func persistenceController(
    _ controller: PersistenceController, didMergeHistory result: Result<HistoryMerge, PersistenceControllerError>
  ) {
    switch result {
    case .success(let merge): merges.append(merge)
    case .failure(let error): failures.append(error)
    }
  }
  /// Everything merged from others, summed.
  var insertedByOthers: Int { merges.reduce(0) { $0 + $1.inserted } }
}

@Suite("Stage 4: sharing the store with an app extension", .temporaryFolders)
@MainActor
struct SharingTests {
  @Test("The extension's save reaches the app's main context and list without a fetch, through history")
  func extensionSaveReachesTheApp() async throws {
    let folder = try TemporaryFolder()
    let app = try await makeSharingStack(in: folder, as: "app", purges: true)
    let log = MergeLog()
    app.delegate = log
    let list = try NoteList(context: app.mainContext)
    let share = try await makeSharingStack(in: folder, as: "share-extension")

    newNote("Shared from Safari", in: share.mainContext)
    try await share.writeToDisk()

    try await eventually("the app's list to count the shared note") { list.count == 1 }
    try await eventually("the merge to be reported") { log.insertedByOthers == 1 }
    let merged = try #require(log.merges.first { $0.inserted == 1 })
    #expect(merged.authorsMerged == ["share-extension"])
    #expect(log.failures.isEmpty)
    let titles = try app.mainContext.fetch(NSFetchRequest<Note>(entityName: "Note")).map(\.title)
    #expect(titles == ["Shared from Safari"])
  }

  @Test("A process's own saves are in history under its author, and its merge skips them")
  func ownTransactionsAreSkipped() async throws {
    let folder = try TemporaryFolder()
    let app = try await makeSharingStack(in: folder, as: "app")
    let log = MergeLog()
    app.delegate = log
    let list = try NoteList(context: app.mainContext)
    newNote("Typed in the app", in: app.mainContext)
    try await app.writeToDisk()
    // Read either by this call or by the merge the save's own remote change started (whose report reaches
    // the delegate a moment later).
    let merge = try await app.mergeHistory()
    try await eventually("the app's save to be read from history and skipped") {
      merge.ownTransactionsSkipped + log.merges.reduce(0) { $0 + $1.ownTransactionsSkipped } >= 1
    }
    #expect(merge.authorsMerged.isEmpty && log.insertedByOthers == 0, "nothing of the app's own was merged back")
    #expect(list.count == 1, "the note was counted once, when the user inserted it, not again by a merge")
    #expect(try historyAuthors(in: folder) == ["app"])
  }

  @Test("The extension's edit and delete reach objects the app's main context already holds")
  func updatesAndDeletesReachHeldObjects() async throws {
    let folder = try TemporaryFolder()
    let app = try await makeSharingStack(in: folder, as: "app")
    let list = try NoteList(context: app.mainContext)
    let kept = newNote("Groceries", in: app.mainContext)
    let gone = newNote("Old draft", in: app.mainContext)
    try await app.writeToDisk()
    #expect(kept.title == "Groceries" && list.count == 2)

    let share = try await makeSharingStack(in: folder, as: "share-extension")
    let notes = try share.mainContext.fetch(NSFetchRequest<Note>(entityName: "Note"))
    for note in notes {
      if note.title == "Groceries" { note.title = "Groceries (shared list)" } else { share.mainContext.delete(note) }
    }
    try await share.writeToDisk()

    try await eventually("the rename to reach the app's note") { kept.title == "Groceries (shared list)" }
    try await eventually("the delete to reach the app's list") { list.count == 1 }
    #expect(gone.isDeleted || gone.managedObjectContext == nil)
  }

  @Test("A relaunched app reads only what was saved after its bookmark, the extension's save while it was away included")
  func bookmarkSurvivesARelaunch() async throws {
    let folder = try TemporaryFolder()
    do {
      let app = try await makeSharingStack(in: folder, as: "app")
      newNote("Before", in: app.mainContext)
      try await app.writeToDisk()
      _ = try await app.mergeHistory()
    }
    let share = try await makeSharingStack(in: folder, as: "share-extension")
    newNote("While the app was away", in: share.mainContext)
    try await share.writeToDisk()

    let relaunched = try await makeSharingStack(in: folder, as: "app")
    let merge = try await relaunched.mergeHistory()
    #expect(merge.transactionsRead == 1, "only the extension's transaction is after the app's bookmark")
    #expect(merge.authorsMerged == ["share-extension"] && merge.inserted == 1)
    let again = try await relaunched.mergeHistory()
    #expect(again.transactionsRead == 0, "the bookmark moved past it: nothing is merged twice")
  }

  @Test("The process that purges deletes only what every reader has read")
  func purgeWaitsForEveryReader() async throws {
    let folder = try TemporaryFolder()
    // The share extension ran once, and left its bookmark: it has read nothing since.
    _ = try await makeSharingStack(in: folder, as: "share-extension")
    let app = try await makeSharingStack(in: folder, as: "app", purges: true)
    for title in ["One", "Two", "Three"] {
      newNote(title, in: app.mainContext)
      try await app.writeToDisk()
      try await Task.sleep(for: .milliseconds(5))
    }
    // Once this returns, the app has read its three saves, and purged after reading the last.
    _ = try await app.mergeHistory()
    #expect(try historyAuthors(in: folder) == ["app", "app", "app"], "the extension has not read them: nothing goes")

    // The extension runs again and reads them; then the app saves once more and purges.
    do {
      let share = try await makeSharingStack(in: folder, as: "share-extension")
      let read = try await share.mergeHistory()
      #expect(read.authorsMerged == ["app"] && read.inserted == 3)
    }
    try await Task.sleep(for: .milliseconds(5))
    newNote("Four", in: app.mainContext)
    try await app.writeToDisk()
    _ = try await app.mergeHistory()
    // Both have read up to "Three": "One" and "Two" are purged; "Three" (where the extension's bookmark
    // stands) and "Four" (which it has not read) are kept.
    #expect(try historyAuthors(in: folder) == ["app", "app"])
  }

  @Test("History older than the limit goes even if a reader never read it")
  func historyLimitPurgesOldHistory() async throws {
    let folder = try TemporaryFolder()
    _ = try await makeSharingStack(in: folder, as: "share-extension")
    let app = try await makeSharingStack(in: folder, as: "app", purges: true, historyLimit: 0)
    for title in ["One", "Two"] {
      newNote(title, in: app.mainContext)
      try await app.writeToDisk()
    }
    try await Task.sleep(for: .milliseconds(20))
    _ = try await app.mergeHistory()
    #expect(try historyAuthors(in: folder).isEmpty, "with a limit of 0, all history before the merge goes")
  }

  @Test("An in-memory stack ignores sharing: no other process can open its store")
  func inMemoryIgnoresSharing() async throws {
    let loaded = Signal<Result<Void, PersistenceControllerError>>()
    let controller = PersistenceController(storeType: .inMemory, sharing: StoreSharing(author: "app")) { loaded.fulfil($0) }
    try await loaded.wait("the store to load").get()
    newNote("Kept in memory", in: controller.mainContext)
    try await controller.writeToDisk()
    #expect(try await controller.mergeHistory() == HistoryMerge())
  }

  @Test("A bookmark that cannot be written does not stop the store; a merge that cannot move it says why")
  func unwritableBookmarkIsReported() async throws {
    let folder = try TemporaryFolder()
    // A file where the bookmark folder should be.
    try Data("in the way".utf8).write(to: folder.appending("HistoryBookmarks"))
    let app = try await makeSharingStack(in: folder, as: "app")
    newNote("Typed in the app", in: app.mainContext)
    try await app.writeToDisk()
    await #expect {
      try await app.mergeHistory()
    } throws: { error in
      guard case .historyNotMerged = error as? PersistenceControllerError else { return false }
      return "\(error)".contains("the bookmark beside the store (HistoryBookmarks/) could not be written")
    }
    #expect(try titlesOnDisk(in: folder) == ["Typed in the app"], "the save itself went through")
  }

  @Test("A bookmark that cannot be read is not an error: the reader starts from now")
  func damagedBookmarkStartsFromNow() async throws {
    let folder = try TemporaryFolder()
    do {
      let app = try await makeSharingStack(in: folder, as: "app")
      newNote("Before", in: app.mainContext)
      try await app.writeToDisk()
    }
    let bookmark = folder.appending("HistoryBookmarks/app.plist")
    try Data("not a bookmark".utf8).write(to: bookmark)
    let relaunched = try await makeSharingStack(in: folder, as: "app")
    let merge = try await relaunched.mergeHistory()
    #expect(merge.transactionsRead == 0, "the save before the relaunch is in the store, which the app fetches anyway")
    #expect(HistoryBookmarkProbe.isReadable(bookmark))
  }
}

/// Whether a bookmark file is a property list again (the relaunch wrote a new one).
enum HistoryBookmarkProbe {
  static func isReadable(_ file: URL) -> Bool {
    guard let data = try? Data(contentsOf: file) else { return false }
    return (try? PropertyListSerialization.propertyList(from: data, format: nil)) != nil
  }
}
