import ArgumentParser
import Foundation
import NotesModel
import ObjectGraph

/// A context pinned to a query generation while another process saves to the same store: in WAL mode it
/// keeps reading what the store held when it pinned (fetches and counts) until it moves on; in rollback-journal
/// mode, which has no generations, it reads the other process's saves at once, as Core Data's contexts
/// "gracefully revert to unpinned behavior".
struct QueryGenerations: ParsableCommand {
  static let configuration = CommandConfiguration(
    commandName: "query-generation",
    abstract: "A pinned context does not see another process's saves until it moves on to a newer generation.")

  @Option(help: "How many saves the other process makes.")
  var saves = 5
  @Option(help: "The store's journal mode: wal, delete or both.")
  var journal: JournalMode = .both

  func run() throws {
    try journal.runTrials(named: "query-generation") { try trial(store: $0, journalMode: $1) }
  }

  /// One trial; returns whether it failed.
  private func trial(store: URL, journalMode: String) throws -> Bool {
    let app = try HistoryStore.context(store: store, journalMode: journalMode, author: "app")
    guard let coordinator = app.persistentStoreCoordinator else { return true }
    try app.performAndWait {
      let note = Note(context: app)
      note.title = "written by the app"
      note.createdAt = Date()
      try app.save()
    }
    let pinned = NSManagedObjectContext(concurrencyType: .privateQueueConcurrencyType)
    pinned.persistentStoreCoordinator = coordinator
    try pinned.setQueryGenerationFrom(.current)
    let request = NSFetchRequest<Note>(entityName: "Note")
    let before = try pinned.performAndWait { try pinned.count(for: request) }

    let child = TutorialStore.child([
      "history-writer", "--store", store.path, "--journal-mode", journalMode, "--saves", "\(saves)", "--author", "extension",
    ])
    try child.run()
    child.waitUntilExit()
    guard child.terminationStatus == 0 else {
      print("\(journalMode): the other process failed (status \(child.terminationStatus))")
      return true
    }

    let (counted, fetched) = try pinned.performAndWait { (try pinned.count(for: request), try pinned.fetch(request).count) }
    let unpinned = NSManagedObjectContext(concurrencyType: .privateQueueConcurrencyType)
    unpinned.persistentStoreCoordinator = coordinator
    let latest = try unpinned.performAndWait { try unpinned.count(for: request) }
    try pinned.setQueryGenerationFrom(.current)
    let moved = try pinned.performAndWait { try pinned.fetch(request).count }
    print(
      "\(journalMode): pinned before the other process's \(saves) saves: \(before) note(s); after them the pinned "
        + "context counts \(counted) and fetches \(fetched), an unpinned one counts \(latest); moved on, it fetches \(moved)")
    let expectedPinned = journalMode == "WAL" ? before : before + saves
    return before != 1 || counted != expectedPinned || fetched != expectedPinned || latest != before + saves
      || moved != before + saves
  }
}
