import ArgumentParser
import Foundation
import NotesModel
import ObjectGraph
import Synchronization

/// An app and its extension in two processes on one store, as Apple recommends they share it: both track
/// persistent history and ask for remote change notifications; the app hears of the extension's saves, reads
/// the history after its last token, keeps the extension's transactions (not its own) and merges them.
struct RemoteChange: ParsableCommand {
  static let configuration = CommandConfiguration(
    commandName: "remote-change",
    abstract: "An app hears another process's saves through remote change notifications and reads them from history.")

  @Option(help: "How many saves the other process makes.")
  var saves = 5
  @Option(help: "The store's journal mode: wal, delete or both.")
  var journal: JournalMode = .both

  func run() throws {
    try journal.runTrials(named: "remote-change") { try trial(store: $0, journalMode: $1) }
  }

  /// One trial; returns whether it failed.
  private func trial(store: URL, journalMode: String) throws -> Bool {
    let app = try HistoryStore.context(store: store, journalMode: journalMode, author: "app")
    guard let coordinator = app.persistentStoreCoordinator else { return true }
    let heard = Heard()
    let observer = NotificationCenter.default.addObserver(
      forName: .NSPersistentStoreRemoteChange, object: coordinator, queue: nil
    ) { notification in
      heard.add(notification.userInfo?[NSPersistentHistoryTokenKey] as? NSPersistentHistoryToken)
    }
    defer { NotificationCenter.default.removeObserver(observer) }

    try app.performAndWait {
      let note = Note(context: app)
      note.title = "written by the app"
      note.createdAt = Date()
      try app.save()
    }
    let start = coordinator.currentPersistentHistoryToken()

    let child = TutorialStore.child([
      "history-writer", "--store", store.path, "--journal-mode", journalMode, "--saves", "\(saves)", "--author", "extension",
    ])
    try child.run()
    child.waitUntilExit()
    guard child.terminationStatus == 0 else {
      print("\(journalMode): the other process failed (status \(child.terminationStatus))")
      return true
    }
    let childID = "\(child.processIdentifier)"

    // The last notification's token must reach the extension's last transaction.
    let last = coordinator.currentPersistentHistoryToken()
    let deadline = Date().addingTimeInterval(30)
    while !heard.tokens.contains(where: { $0 == last }) && Date() < deadline { usleep(2_000) }
    let heardLast = heard.tokens.contains { $0 == last }

    let request = NSPersistentHistoryChangeRequest.fetchHistory(after: start)
    let transactions = try app.performAndWait {
      try (app.execute(request) as? NSPersistentHistoryResult)?.result as? [NSPersistentHistoryTransaction] ?? []
    }
    let fromExtension = transactions.filter { $0.author == "extension" }
    let byChild = fromExtension.filter { $0.processID == childID }.count
    let notes = try app.performAndWait {
      for transaction in fromExtension { app.mergeChanges(fromContextDidSave: transaction.objectIDNotification()) }
      let fetch = NSFetchRequest<Note>(entityName: "Note")
      return try app.fetch(fetch).count
    }
    print(
      "\(journalMode): heard \(heard.tokens.count) remote change notification(s), the last token reaching the "
        + "other process's last transaction: \(heardLast ? "yes" : "no"); history after the app's token: "
        + "\(fromExtension.count) transaction(s) by the extension (\(byChild) with its process ID), "
        + "\(transactions.count - fromExtension.count) by the app; the app now fetches \(notes) notes")
    return !heardLast || fromExtension.count != saves || byChild != saves || transactions.count != saves
      || notes != saves + 1
  }
}

/// The other process: `--saves` saves of one new note each, by `--author`.
struct HistoryWriter: ParsableCommand {
  static let configuration = CommandConfiguration(
    commandName: "history-writer", abstract: "The other process of remote-change (not for direct use).", shouldDisplay: false)

  @Option var store: String
  @Option var journalMode = "WAL"
  @Option var saves = 5
  @Option var author = "extension"

  func run() throws {
    let context = try HistoryStore.context(store: URL(fileURLWithPath: store), journalMode: journalMode, author: author)
    try context.performAndWait {
      for index in 0..<saves {
        let note = Note(context: context)
        note.title = "written by \(author), \(index + 1) of \(saves)"
        note.createdAt = Date()
        try context.save()
      }
    }
  }
}

/// The tutorial's store as an app and its extension share it: history tracked, remote changes posted.
enum HistoryStore {
  static func context(store: URL, journalMode: String, author: String) throws -> NSManagedObjectContext {
    let coordinator = NSPersistentStoreCoordinator(managedObjectModel: try TutorialStore.model())
    try coordinator.addPersistentStore(
      type: .sqlite, at: store,
      options: [
        NSMigratePersistentStoresAutomaticallyOption: true, NSInferMappingModelAutomaticallyOption: true,
        NSSQLitePragmasOption: ["journal_mode": journalMode], NSPersistentHistoryTrackingKey: true,
        NSPersistentStoreRemoteChangeNotificationPostOptionKey: true,
      ])
    let context = NSManagedObjectContext(concurrencyType: .privateQueueConcurrencyType)
    context.persistentStoreCoordinator = coordinator
    context.transactionAuthor = author
    return context
  }
}

/// The tokens of the notifications heard, from any queue.
final class Heard: Sendable {
  private let received = Mutex<[NSPersistentHistoryToken?]>([])
  func add(_ token: NSPersistentHistoryToken?) { received.withLock { $0.append(token) } }
  var tokens: [NSPersistentHistoryToken?] { received.withLock { $0 } }
}
