// stage1-demo: the life of an app whose only context is on the main queue.
//
// 1. Launch: build a CoreDataManager, create a notebook with a few tagged notes, save.
// 2. Relaunch: build a second manager on the same folder and find the notes on disk.
// 3. Import: insert and save many notes on the main queue while a 60 Hz "UI" ticks, and measure how
//    long the main queue could not tick. That stall is the cost stage 2 removes.
//
// The main queue is driven by dispatchMain(), as an app's run loop would drive it; everything below
// runs on the main queue. The command line is in Stage1Demo.swift; the 60 Hz "UI" is DemoSupport's.
//
//   swift run stage1-demo [--count N] [--store-folder PATH]

import DemoSupport
import Dispatch
import Foundation
import NotesModel
import ObjectGraph
import Stage1

// MARK: - Launch, save, relaunch

let notebookName = "Weekend"
let launchNotes: [(title: String, tags: [String])] = [
  ("Buy milk", ["errands"]),
  ("Call the plumber", ["errands", "home"]),
  ("Plan the hike", ["outdoors"]),
]

/// The first launch: creates a notebook, its notes and their tags on the main context, and saves.
@MainActor
func firstLaunch(storeFolder: URL) throws {
  let manager = CoreDataManager(modelName: NotesModel.name, storeFolder: storeFolder)
  let context = try manager.mainContext
  print("Launch: the store is \(manager.storeURL.path)")

  let now = Date()
  let notebook = Notebook(context: context)
  notebook.name = notebookName
  notebook.createdAt = now
  var tags: [String: Tag] = [:]
  for (title, tagNames) in launchNotes {
    let note = Note(context: context)
    note.title = title
    note.createdAt = now
    note.notebook = notebook
    for name in tagNames {
      let tag = tags[name] ?? Tag(context: context)
      tag.name = name
      tags[name] = tag
      note.tags.insert(tag)
    }
  }
  try context.save()
  print("  created \(launchNotes.count) notes in notebook '\(notebookName)' with \(tags.count) tags, and saved")
}

/// The second launch: a new manager on the same folder, as after quitting and reopening the app.
@MainActor
func relaunch(storeFolder: URL) throws -> CoreDataManager {
  let manager = CoreDataManager(modelName: NotesModel.name, storeFolder: storeFolder)
  let context = try manager.mainContext
  let request = NSFetchRequest<Note>(entityName: "Note")
  request.predicate = NSPredicate(format: "notebook.name == %@", notebookName)
  request.sortDescriptors = [NSSortDescriptor(key: "title", ascending: true)]
  let notes = try context.fetch(request)
  print("Relaunch: a second CoreDataManager on the same folder found \(notes.count) notes in '\(notebookName)':")
  for note in notes {
    let tags = note.tags.map(\.name).sorted().joined(separator: ", ")
    print("  - \(note.title) [\(tags)]")
  }
  return manager
}

// MARK: - A large save on the main queue

/// Inserts `count` notes and saves them, all in one block on the main queue: what a stage 1 app does
/// when the user imports a batch of notes.
@MainActor
func importNotes(count: Int, into context: NSManagedObjectContext) throws -> (insert: Duration, save: Duration) {
  let clock = ContinuousClock()
  let now = Date()
  let insertTime = clock.measure {
    let notebook = Notebook(context: context)
    notebook.name = "Imported"
    notebook.createdAt = now
    for number in 1...count {
      let note = Note(context: context)
      note.title = "Imported note \(number)"
      note.body = "Text of imported note \(number)."
      note.createdAt = now
      note.notebook = notebook
    }
  }
  let saveTime = try clock.measure { try context.save() }
  return (insertTime, saveTime)
}

/// Runs the import on the main queue while the "UI" ticks, and reports how long the main queue
/// stalled.
@MainActor
func measureImport(count: Int, manager: CoreDataManager) async throws {
  let context = try manager.mainContext
  print("Import: saving \(count) notes on the main queue while the UI ticks at 60 Hz...")
  let (times, stall) = try await measureStall { try importNotes(count: count, into: context) }
  print("  inserting took \(milliseconds(times.insert)) ms, saving took \(milliseconds(times.save)) ms, both on the main queue")
  print("  (\(Stall.legend))")
  print("  look inside: sqlite3 \(manager.storeURL.path) 'SELECT COUNT(*) FROM ZNOTE'")
  print("Main queue, while saving \(count) notes: \(stall.summary).")
}

// MARK: - The app's life

let options = Stage1Demo.parseForDemo().options

Task { @MainActor in
  do {
    let storeFolder = options.storeFolder(for: "stage1-demo")
    try firstLaunch(storeFolder: storeFolder)
    let manager = try relaunch(storeFolder: storeFolder)
    try await measureImport(count: options.count, manager: manager)
    exit(0)
  } catch {
    Stage1Demo.failDemo(with: error)
  }
}

dispatchMain()
