// stage4-demo --share: an app and its share extension, two processes, one store file. The app (this
// process) makes a stage 4 controller sharing the store as "app", the one that purges history; twice it
// starts this program again as the share extension (`--as-share-extension add`, then `edit`), a controller
// of its own sharing the store as "share-extension", which saves, reads its own transaction back so its
// bookmark moves on, and quits. The app hears each write through a remote change notification and merges
// what the extension saved, read from history, into its main context, where its list counts the notes.
// Every figure printed is what the controllers reported (HistoryMerge) or what the list holds.

import DemoSupport
import Foundation
import NotesModel
import ObjectGraph
import Stage4

/// What the app's controller told its delegate since the last step, summed.
@MainActor
final class MergeTally: PersistenceControllerDelegate {
  var total = HistoryMerge()
  private(set) var failure: PersistenceControllerError?

  func persistenceController(_ controller: PersistenceController, didFailToSave error: PersistenceControllerError) {
    failure = error
  }

  func persistenceController(
    _ controller: PersistenceController, didMergeHistory result: Result<HistoryMerge, PersistenceControllerError>
  ) {
    switch result {
    case .success(let merge): total.add(merge)
    case .failure(let error): failure = error
    }
  }

  /// The sum so far, and a fresh start for the next step.
  func take() -> HistoryMerge {
    defer { total = HistoryMerge() }
    return total
  }
}

extension HistoryMerge {
  mutating func add(_ other: HistoryMerge) {
    transactionsRead += other.transactionsRead
    ownTransactionsSkipped += other.ownTransactionsSkipped
    for author in other.authorsMerged where !authorsMerged.contains(author) { authorsMerged.append(author) }
    inserted += other.inserted
    updated += other.updated
    deleted += other.deleted
    transactionsPurged += other.transactionsPurged
  }

  /// "1 transaction from share-extension (3 inserted)".
  var mergedLine: String {
    let counts = [(inserted, "inserted"), (updated, "updated"), (deleted, "deleted")].filter { $0.0 > 0 }
      .map { "\($0.0) \($0.1)" }.joined(separator: ", ")
    let merged = transactionsRead - ownTransactionsSkipped
    return "\(merged) \(merged == 1 ? "transaction" : "transactions") from \(authorsMerged.joined(separator: ", ")) (\(counts))"
  }
}

/// A sharing controller on `folder`, once its store has loaded.
@MainActor
func sharingController(in folder: URL, sharing: StoreSharing) async throws -> PersistenceController {
  let (loaded, report) = AsyncStream<Result<Void, PersistenceControllerError>>.makeStream()
  let controller = PersistenceController(storeFolder: folder, sharing: sharing) { result in
    report.yield(result)
    report.finish()
  }
  for await result in loaded { try result.get() }
  return controller
}

/// Waits (the main queue runs meanwhile) until `condition` holds; fails the demo after 10 seconds.
@MainActor
func waitFor(_ what: String, _ condition: () -> Bool) async throws {
  let deadline = ContinuousClock.now + .seconds(10)
  while !condition() {
    guard ContinuousClock.now < deadline else { throw DemoFailure("waited 10 s for \(what)") }
    try await Task.sleep(for: .milliseconds(5))
  }
}

/// The app's side: runs the whole tour.
@MainActor
func tourSharedStore(in folder: URL) async throws {
  try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
  print("Stage 4, sharing one store between an app and its share extension (two processes, one file)")
  let tally = MergeTally()
  let app = try await sharingController(in: folder, sharing: StoreSharing(author: "app", purgesHistory: true))
  app.delegate = tally
  let list = try NoteList(context: app.mainContext)
  let pid = ProcessInfo.processInfo.processIdentifier
  print("  app (process \(pid)): store loaded with history tracking and remote change notifications, author \"app\"")

  for title in ["Groceries", "Call the plumber"] {
    let note = Note(context: app.mainContext)
    note.title = title
    note.createdAt = Date()
  }
  try await app.writeToDisk()
  try await waitFor("the app to read its own save back") { tally.total.ownTransactionsSkipped >= 1 }
  let own = tally.take()
  print("  app: saved 2 notes; heard its own write, read \(own.ownTransactionsSkipped) transaction of its own from history and skipped it")
  print("  app: the list shows \(list.count) notes")

  try await runShareExtension("add", in: folder)
  try await waitFor("the extension's notes in the app's list") { list.count == 5 && tally.total.inserted == 3 }
  // As when the app comes back to the foreground: read again, which purges what both have read.
  tally.total.add(try await app.mergeHistory())
  let added = tally.take()
  print("  app: heard the write; merged \(added.mergedLine); the list shows \(list.count) notes")

  let request = NSFetchRequest<Note>(entityName: "Note")
  request.predicate = NSPredicate(format: "title == %@", "Shared link 1")
  guard let onScreen = try app.mainContext.fetch(request).first else { throw DemoFailure("the shared note is missing") }
  print("  app: a note on screen reads \"\(onScreen.title)\"")

  try await runShareExtension("edit", in: folder)
  try await waitFor("the extension's edit in the app") { list.count == 4 && tally.total.deleted == 1 }
  tally.total.add(try await app.mergeHistory())
  let edited = tally.take()
  print("  app: heard the write; merged \(edited.mergedLine); the list shows \(list.count) notes")
  print("  app: the same note on screen now reads \"\(onScreen.title)\", without a fetch")
  let purged = own.transactionsPurged + added.transactionsPurged + edited.transactionsPurged
  print("  app: purged \(purged) \(purged == 1 ? "transaction" : "transactions") of history that both processes had read")
  if let failure = tally.failure { throw failure }
}

/// Starts this program again as the share extension, doing `step`, and waits for it to quit.
@MainActor
func runShareExtension(_ step: String, in folder: URL) async throws {
  let process = Process()
  process.executableURL = Bundle.main.executableURL ?? URL(fileURLWithPath: CommandLine.arguments[0])
  process.arguments = ["--as-share-extension", step, "--store-folder", folder.path]
  // What the extension prints goes where ours goes, after what we printed so far.
  fflush(nil)
  let status: Int32 = try await withCheckedThrowingContinuation { continuation in
    process.terminationHandler = { continuation.resume(returning: $0.terminationStatus) }
    do {
      try process.run()
    } catch {
      continuation.resume(throwing: error)
    }
  }
  guard status == 0 else { throw DemoFailure("the share extension (\(step)) ended with status \(status)") }
}

/// The extension's side, in its own process: one step, then it quits.
@MainActor
func shareExtension(step: String, in folder: URL) async throws {
  let share = try await sharingController(in: folder, sharing: StoreSharing(author: "share-extension"))
  let context = share.mainContext
  let pid = ProcessInfo.processInfo.processIdentifier
  switch step {
  case "add":
    for number in 1...3 {
      let note = Note(context: context)
      note.title = "Shared link \(number)"
      note.createdAt = Date()
    }
    try await share.writeToDisk()
    print("  share extension (process \(pid)): saved 3 notes as \"share-extension\", then quit")
  case "edit":
    let notes = try context.fetch(NSFetchRequest<Note>(entityName: "Note"))
    for note in notes where note.title.hasPrefix("Shared link") {
      if note.title == "Shared link 1" { note.title = "Shared link 1 (read later)" }
      if note.title == "Shared link 2" { context.delete(note) }
    }
    try await share.writeToDisk()
    print("  share extension (process \(pid)): renamed \"Shared link 1\", deleted \"Shared link 2\", then quit")
  default:
    throw DemoFailure("unknown share extension step '\(step)': add or edit")
  }
  // Read our own write back, so our bookmark moves past it: the app may then purge what we both read.
  try await share.mergeHistory()
}
