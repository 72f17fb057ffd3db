// stage4-demo --merge-policies: the user and a worker edit the same note, tried under each of the five
// merge policies. The stack has stage 4's shape: a private writer holding the coordinator and the main
// context as its child. The note starts as "Groceries", body "Milk", not pinned. The user changes its title
// and body, and the app saves as stage 4 does: the main context into the writer at once, the writer to the
// file a moment later. In that moment a worker changes the note's title, pins it, and saves. Then the
// writer writes, with its merge policy. The file is read afterwards, by a new coordinator.
//
// Two workers: first one of stage 4's own, a child of the writer, whose save goes into the writer; then one
// that writes to the file without the writer, on the coordinator (as a context from Core Data's
// `newBackgroundContext()` does), which a second stack on the same file (an app extension's) does too.

import DemoSupport
import Foundation
import NotesModel
import ObjectGraph

/// What the file holds for the note after the user's save, or the error that save threw.
struct TourOutcome: Equatable {
  var title = ""
  var body = ""
  var isPinned = false
  var error: String?

  var line: String {
    let row = "\"\(title)\", \"\(body)\", \(isPinned ? "pinned" : "not pinned")"
    guard let error else { return row }
    return "\(row) (save refused: \(error))"
  }
}

/// Where the worker hangs: under the writer, as stage 4's workers, or on the coordinator beside it.
enum TourWorker {
  case childOfWriter, onCoordinator
}

/// Runs the edit once with `policy` on the writer, on a fresh store in `folder`, and reads the file after.
func editTheSameNote(policy: NSMergePolicy, worker shape: TourWorker, in folder: URL) throws -> TourOutcome {
  try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
  let storeURL = folder.appendingPathComponent("Notes.sqlite")
  try? FileManager.default.removeItem(at: storeURL)
  let model = try tourModel()
  let outcome: TourOutcome
  do {
    let coordinator = NSPersistentStoreCoordinator(managedObjectModel: model)
    try coordinator.addPersistentStore(type: .sqlite, at: storeURL)
    // The note, saved by an earlier launch.
    let earlier = NSManagedObjectContext(concurrencyType: .privateQueueConcurrencyType)
    earlier.persistentStoreCoordinator = coordinator
    let noteID = try earlier.performAndWait {
      let note = Note(context: earlier)
      note.title = "Groceries"
      note.body = "Milk"
      note.createdAt = Date(timeIntervalSinceReferenceDate: 800_000_000)
      try earlier.save()
      return note.objectID
    }
    let writer = NSManagedObjectContext(concurrencyType: .privateQueueConcurrencyType)
    writer.name = "writer"
    writer.persistentStoreCoordinator = coordinator
    writer.mergePolicy = policy
    let main = NSManagedObjectContext(concurrencyType: .privateQueueConcurrencyType)
    main.name = "main"
    main.parent = writer

    // The user edits the note, and the app saves: the main context's save puts the edit in the writer at
    // once; the writer's write to the file comes after (stage 4 queues it on the writer's queue).
    try main.performAndWait {
      guard let note = try main.existingObject(with: noteID) as? Note else { throw DemoFailure("the note is missing") }
      note.title = "Groceries for Sunday"
      note.body = "Milk, eggs"
      try main.save()
    }
    // Before the writer writes, a worker renames and pins the same note, and saves.
    let worker = NSManagedObjectContext(concurrencyType: .privateQueueConcurrencyType)
    worker.name = "worker"
    switch shape {
    case .childOfWriter: worker.parent = writer
    case .onCoordinator: worker.persistentStoreCoordinator = coordinator
    }
    try worker.performAndWait {
      guard let note = try worker.existingObject(with: noteID) as? Note else { throw DemoFailure("the note is missing") }
      note.title = "Groceries (shared list)"
      note.isPinned = true
      try worker.save()
    }
    // The writer writes to the file.
    var failure: String?
    do {
      try writer.performAndWait { try writer.save() }
    } catch {
      failure = "\((error as NSError).code)"
    }
    for store in coordinator.persistentStores { try coordinator.remove(store) }
    var read = try readNote(at: storeURL, model: model)
    read.error = failure.map { "error \($0)" }
    outcome = read
  }
  return outcome
}

/// The note as a new coordinator reads it from the file.
func readNote(at storeURL: URL, model: NSManagedObjectModel) throws -> TourOutcome {
  let coordinator = NSPersistentStoreCoordinator(managedObjectModel: model)
  try coordinator.addPersistentStore(type: .sqlite, at: storeURL)
  let context = NSManagedObjectContext(concurrencyType: .privateQueueConcurrencyType)
  context.persistentStoreCoordinator = coordinator
  let outcome = try context.performAndWait {
    guard let note = try context.fetch(NSFetchRequest<Note>(entityName: "Note")).first else {
      throw DemoFailure("the file holds no note")
    }
    return TourOutcome(title: note.title, body: note.body ?? "", isPinned: note.isPinned)
  }
  for store in coordinator.persistentStores { try coordinator.remove(store) }
  return outcome
}

/// The tutorial's model, from the bundle the stages use.
func tourModel() throws -> NSManagedObjectModel {
  guard let url = NotesModel.bundle.url(forResource: NotesModel.name, withExtension: "xcdatamodeld") else {
    throw DemoFailure("DataModel.xcdatamodeld is not in \(NotesModel.bundle.bundleURL.path)")
  }
  guard let model = NSManagedObjectModel(contentsOf: url) else {
    throw DemoFailure("the tutorial's model at \(url.path) cannot be read (the reason is logged above)")
  }
  return model
}

/// The five policies, in the order the chapter gives them.
let tourPolicies: [(name: String, policy: NSMergePolicy)] = [
  ("error", .error), ("mergeByPropertyStoreTrump", .mergeByPropertyStoreTrump),
  ("mergeByPropertyObjectTrump", .mergeByPropertyObjectTrump), ("overwrite", .overwrite), ("rollback", .rollback),
]

/// Runs the edit under each policy, with each kind of worker, and prints what the file holds.
func tourMergePolicies(in folder: URL) throws {
  print("The note: \"Groceries\", body \"Milk\", not pinned.")
  print("The user changes it to \"Groceries for Sunday\", body \"Milk, eggs\"; the main context saves.")
  print("Before the writer writes that to the file, a worker renames the note \"Groceries (shared list)\",")
  print("pins it, and saves. Then the writer writes. The file afterwards, by the writer's merge policy:")
  for (shape, heading) in [
    (TourWorker.childOfWriter, "1. A stage 4 worker (a child of the writer, which saves into it):"),
    (.onCoordinator, "2. A worker on the coordinator, beside the writer (or an app extension):"),
  ] {
    print(heading)
    for (number, entry) in tourPolicies.enumerated() {
      let outcome = try editTheSameNote(
        policy: entry.policy, worker: shape, in: folder.appendingPathComponent("\(shape)-\(number + 1)", isDirectory: true))
      let name = ".\(entry.name)".padding(toLength: 28, withPad: " ", startingAt: 0)
      print("  \(name) \(outcome.line)")
    }
  }
}
