// concurrency-rules: the programs the chapters quote. Each rule case breaks one concurrency rule on
// purpose, so that you can watch what happens with the debug switch off and on; `conflict` shows
// optimistic locking refuse a stale save (chapter 0).
//
//   swift run concurrency-rules rule2                                          # the switch off
//   swift run concurrency-rules rule2 -com.apple.CoreData.ConcurrencyDebug 1   # the switch on: it stops
//
// Every case works on a fresh store in a temporary folder, through stage 2's CoreDataManager, with one
// notebook and one note, "Buy milk", saved (`conflict` adds a store file of its own next to it). The docs
// tests run each case and compare what it prints with what the chapters quote.
import Dispatch
import Foundation
import NotesModel
import ObjectGraph
import Stage2

let cases: [(name: String, what: String, run: @MainActor (CoreDataManager) throws -> Void)] = [
  ("rule2", "the main context fetched from a background queue", runRule2),
  ("rule3-title", "a note read after it left performAndWait", runRule3Title),
  ("rule3-insert", "a note inserted into a private context outside its queue", runRule3Insert),
  ("rule5", "a relationship between objects of two contexts", runRule5),
  ("semaphore", "the main queue blocked until a completion that runs on the main queue", runSemaphore),
  ("conflict", "two coordinators of one file change the same note; the second save is refused", runConflict),
]

// MARK: - Rule 2

// Breaks rule 2: the main context, and its objects, used from a background queue.
@MainActor
func countInBackground(_ context: NSManagedObjectContext) {
  DispatchQueue.global().async {
    let notes = try? context.fetch(NSFetchRequest<Note>(entityName: "Note"))
    print(notes?.map(\.title) ?? [])
  }
}

@MainActor
func runRule2(_ manager: CoreDataManager) throws {
  countInBackground(try manager.mainContext)
  // The fetch hops onto the main queue, so the main queue must stay free: end once it has printed.
  DispatchQueue.global().asyncAfter(deadline: .now() + 1) { exit(0) }
  dispatchMain()
}

// MARK: - Rule 3

@MainActor
func runRule3Title(_ manager: CoreDataManager) throws {
  // Breaks rule 3: the note leaves performAndWait and is used after it.
  let worker = NSManagedObjectContext(concurrencyType: .privateQueueConcurrencyType)
  worker.parent = try manager.mainContext
  let note = try worker.performAndWait {
    try worker.fetch(NSFetchRequest<Note>(entityName: "Note")).first
  }
  print(note?.title ?? "none")
}

@MainActor
func runRule3Insert(_ manager: CoreDataManager) throws {
  let worker = NSManagedObjectContext(concurrencyType: .privateQueueConcurrencyType)
  worker.parent = try manager.mainContext
  // Breaks rule 3: an insert into a private context, outside its queue.
  let note = Note(context: worker)
  print("inserted", note.objectID)
}

// MARK: - Rule 5

@MainActor
func runRule5(_ manager: CoreDataManager) throws {
  let context = try manager.mainContext
  // Breaks rule 5: a relationship to an object of another context.
  let editor = NSManagedObjectContext(concurrencyType: .mainQueueConcurrencyType)
  editor.name = "editor"
  editor.parent = context
  let notebook = try context.fetch(NSFetchRequest<Notebook>(entityName: "Notebook")).first!
  let draft = Note(context: editor)
  draft.title = "Draft"
  draft.createdAt = Date()
  draft.notebook = notebook
  print("the draft's notebook:", draft.notebook?.name ?? "none")
}

// MARK: - Waiting in the wrong place

@MainActor
func runSemaphore(_ manager: CoreDataManager) throws {
  let note = Note(context: try manager.mainContext)
  note.title = "Call the bank"
  note.createdAt = Date()
  // Waits on the main queue for a completion that saveChanges delivers on the main queue.
  let saved = DispatchSemaphore(value: 0)
  try manager.saveChanges { _ in saved.signal() }
  let started = Date()
  if saved.wait(timeout: .now() + 3) == .timedOut {
    let waited = Date().timeIntervalSince(started)
    print("timed out after \(String(format: "%.0f", waited)) s: the completion waits for the main queue, which waits for it")
  } else {
    print("the completion came")
  }
}

// MARK: - Optimistic locking

/// A main-queue context on a coordinator of its own, over the store file at `url`.
@MainActor
func contextOnItsOwnCoordinator(_ model: NSManagedObjectModel, storeAt url: URL) throws -> NSManagedObjectContext {
  let coordinator = NSPersistentStoreCoordinator(managedObjectModel: model)
  try coordinator.addPersistentStore(type: .sqlite, at: url)
  let context = NSManagedObjectContext(concurrencyType: .mainQueueConcurrencyType)
  context.persistentStoreCoordinator = coordinator
  return context
}

@MainActor
func runConflict(_ manager: CoreDataManager) throws {
  guard let modelURL = NotesModel.bundle.url(forResource: NotesModel.name, withExtension: "xcdatamodeld") else {
    throw CocoaError(.coreData, userInfo: [NSLocalizedDescriptionKey: "The tutorial's model is missing from its bundle."])
  }
  let model = try NSManagedObjectModel(loadingContentsOf: modelURL)
  let url = manager.storeURL.deletingLastPathComponent().appendingPathComponent("Conflict.sqlite")
  let first = try contextOnItsOwnCoordinator(model, storeAt: url)
  let note = Note(context: first)
  note.title = "Buy milk"
  note.createdAt = Date()
  try first.save()  // the row is at version 1
  // Two contexts, on two coordinators of the same file, each read the note at version 1.
  let second = try contextOnItsOwnCoordinator(model, storeAt: url)
  guard let theirs = try second.existingObject(with: note.objectID) as? Note else { return }
  note.title = "Buy oat milk"
  theirs.title = "Buy milk and bread"
  try first.save()  // goes through: the row is now at version 2
  do {
    try second.save()  // asks for version 1, finds version 2
    print("the second save went through")
  } catch let error as NSError where error.code == NSManagedObjectMergeError {
    print("error \(error.code): \(error.localizedDescription)")
  }
}

// MARK: - The program

@MainActor
func makeManager() throws -> CoreDataManager {
  let folder = FileManager.default.temporaryDirectory.appendingPathComponent("concurrency-rules-\(UUID().uuidString)")
  let manager = CoreDataManager(modelName: NotesModel.name, storeFolder: folder)
  let context = try manager.mainContext
  let notebook = Notebook(context: context)
  notebook.name = "Errands"
  notebook.createdAt = Date()
  let note = Note(context: context)
  note.title = "Buy milk"
  note.createdAt = Date()
  note.notebook = notebook
  try context.save()
  return manager
}

let arguments = CommandLine.arguments.dropFirst().filter { !$0.hasPrefix("-com.apple.CoreData") && $0 != "1" }
guard let name = arguments.first, let chosen = cases.first(where: { $0.name == name }) else {
  print("Usage: swift run concurrency-rules CASE [-com.apple.CoreData.ConcurrencyDebug 1]\n\nCases:")
  for known in cases { print("  \(known.name.padding(toLength: 14, withPad: " ", startingAt: 0))\(known.what)") }
  exit(CommandLine.arguments.count > 1 ? 64 : 0)
}
MainActor.assumeIsolated {
  do {
    try chosen.run(try makeManager())
  } catch {
    print("error: \(error)")
    exit(1)
  }
}
