// stage2-demo: the same app as stage 1's, with the disk write moved off the main queue.
//
// 1. Proof: save a note in the main context, then count the notes in the file with a separate reader
//    (a stage 1 manager on the same folder: its own coordinator, its own connection to the file). There
//    are none: the main context's save stopped at its parent. saveChanges() saves the parent; count again.
// 2. Import: the same large save as stage 1's demo, done once with stage 1's manager and once with stage
//    2's, in the same run, while a 60 Hz "UI" ticks on the main queue. Each stack does what an app would:
//    stage 1 inserts and saves on the main queue; stage 2 inserts in the main context and calls
//    saveChanges(), which saves the main context on the main queue and writes to disk on the private one.
//    Whatever the main queue waits for shows up as a gap between ticks.
// 3. A busy writer: stage 2 saves the same number of notes again, and the main context counts its notes
//    right away, while the private context writes them, then once the write is over. The count goes
//    through the private context, so the first one waits for the write.
//
// The main queue is driven by dispatchMain(), as an app's run loop would drive it. The command line is in
// Stage2Demo.swift; the 60 Hz "UI" is DemoSupport's.
//
//   swift run stage2-demo [--count N] [--store-folder PATH]

import DemoSupport
import Dispatch
import Foundation
import NotesModel
import ObjectGraph
import Stage1
import Stage2

// MARK: - Proof: a child's save does not reach the file

/// A count of rows in words: "1 row", "3 rows".
func rows(_ count: Int) -> String {
  count == 1 ? "1 row" : "\(count) rows"
}

/// Counts the notes in the store file through a reader of its own. A stage 1 manager fits: its one
/// context sits right on a coordinator, so a count is a query on the file with nothing in between.
@MainActor
func notesInFile(_ reader: Stage1.CoreDataManager) throws -> Int {
  try reader.mainContext.count(for: NSFetchRequest<Note>(entityName: "Note"))
}

/// An object ID and whether it is temporary, as the proof prints them.
func describe(_ id: NSManagedObjectID) -> String {
  "\(id) (isTemporaryID: \(id.isTemporaryID))"
}

/// Saves a note in the main context alone and counts the rows in the file; then lets saveChanges() save
/// the private context and counts again. Along the way, the note's ID in the main context, which stays
/// temporary, and what a second stack on the same file makes of it.
@MainActor
func proveChildSaveStopsAtParent(_ manager: Stage2.CoreDataManager, storeFolder: URL) async throws {
  let reader = Stage1.CoreDataManager(modelName: NotesModel.name, storeFolder: storeFolder)
  let context = try manager.mainContext
  print("Proof: a note is saved in the main context; a separate reader counts the rows in the file")

  let note = Note(context: context)
  note.title = "Saved in the child"
  note.createdAt = Date()
  let inserted = note.objectID
  try context.save()  // the main context alone: the note moves into the private context, in memory
  let afterChild = try notesInFile(reader)
  let afterMainSave = note.objectID

  // The main context has nothing left to save, so saveChanges() skips it and saves the private context.
  try await withCheckedThrowingContinuation { (written: CheckedContinuation<Void, any Error>) in
    do {
      try manager.saveChanges { written.resume(with: $0) }
    } catch {
      written.resume(throwing: error)
    }
  }
  let afterParent = try notesInFile(reader)
  print("  after the main context saved: \(rows(afterChild)) in the file; after the private context saved: \(rows(afterParent))")

  // The private context's save gave the row a permanent ID; the main context's note keeps its temporary
  // one, which the private context maps to the row.
  let inParent =
    try context.parent.map { parent in
      try parent.performAndWait { try parent.fetch(NSFetchRequest<Note>(entityName: "Note")).map(\.objectID) }
    } ?? []
  print("IDs: the note's ID in the main context, and in the private context after saveChanges()")
  print("  inserted:                \(describe(inserted))")
  print("  after the main save:     \(describe(afterMainSave))")
  print("  after saveChanges():     \(describe(note.objectID))")
  print("  the private context has: \(inParent.map(describe).joined(separator: ", "))")
  // Another stack on the same file, as another process would be, cannot find the note by that ID.
  do {
    _ = try reader.mainContext.existingObject(with: note.objectID)
    print("  a second stack found the note by its temporary ID")
  } catch let error as NSError {
    print("  a second stack, asked for it: error \(error.code): \(error.localizedDescription)")
  }
}

// MARK: - The same large save, in both stacks

/// Inserts `count` notes in one notebook: what an app does when the user imports a batch of notes.
@MainActor
func insertNotes(count: Int, into context: NSManagedObjectContext) {
  let now = Date()
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

/// Stage 1: insert and save, in one block on the main queue; the save writes to the file.
@MainActor
func importWithStage1(count: Int, _ manager: Stage1.CoreDataManager) throws -> String {
  let context = try manager.mainContext
  let clock = ContinuousClock()
  let insert = clock.measure { insertNotes(count: count, into: context) }
  let save = try clock.measure { try context.save() }
  return "inserting \(milliseconds(insert)) ms, saving to the file \(milliseconds(save)) ms, all on the main queue"
}

/// Stage 2: insert and call saveChanges(), in one block on the main queue; the main context's save
/// happens inside that call, and the disk write goes on on the private queue until the completion.
@MainActor
func importWithStage2(count: Int, _ manager: Stage2.CoreDataManager) async throws -> String {
  let context = try manager.mainContext
  let clock = ContinuousClock()
  let insert = clock.measure { insertNotes(count: count, into: context) }
  let start = clock.now
  var push = Duration.zero
  try await withCheckedThrowingContinuation { (written: CheckedContinuation<Void, any Error>) in
    do {
      try manager.saveChanges { written.resume(with: $0) }
      push = clock.now - start
    } catch {
      written.resume(throwing: error)
    }
  }
  let write = clock.now - start - push
  return """
    inserting \(milliseconds(insert)) ms, saving into the parent \(milliseconds(push)) ms on the main queue; \
    the write to the file ended \(milliseconds(write)) ms later, off the main queue
    """
}

// MARK: - A busy writer

/// Saves `count` more notes with saveChanges(), and counts the main context's notes twice: as soon as
/// saveChanges() has returned, while the private context writes, and again once the write is over.
@MainActor
func countWhileWriting(count: Int, _ manager: Stage2.CoreDataManager) async throws -> (during: Duration, after: Duration) {
  let context = try manager.mainContext
  insertNotes(count: count, into: context)
  let clock = ContinuousClock()
  let request = NSFetchRequest<Note>(entityName: "Note")
  var during = Duration.zero
  try await withCheckedThrowingContinuation { (written: CheckedContinuation<Void, any Error>) in
    do {
      try manager.saveChanges { written.resume(with: $0) }
      during = try clock.measure { _ = try context.count(for: request) }
    } catch {
      written.resume(throwing: error)
    }
  }
  let after = try clock.measure { _ = try context.count(for: request) }
  return (during, after)
}

// MARK: - The app's life

let options = Stage2Demo.parseForDemo().options

Task { @MainActor in
  do {
    let folder = options.storeFolder(for: "stage2-demo")
    let stage1Folder = folder.appendingPathComponent("Stage1", isDirectory: true)
    let stage2Folder = folder.appendingPathComponent("Stage2", isDirectory: true)

    let stage2 = Stage2.CoreDataManager(modelName: NotesModel.name, storeFolder: stage2Folder)
    _ = try stage2.mainContext
    print("Launch: stage 2's store is \(stage2.storeURL.path)")
    try await proveChildSaveStopsAtParent(stage2, storeFolder: stage2Folder)

    let stage1 = Stage1.CoreDataManager(modelName: NotesModel.name, storeFolder: stage1Folder)
    _ = try stage1.mainContext  // opened before the measurement, as stage 2's store already is
    print("Import: \(options.count) notes saved by each stack in turn, while the UI ticks at 60 Hz")
    let first = try await measureStall { try importWithStage1(count: options.count, stage1) }
    print("  stage 1: \(first.result)")
    let second = try await measureStall { try await importWithStage2(count: options.count, stage2) }
    print("  stage 2: \(second.result)")
    let busy = try await countWhileWriting(count: options.count, stage2)
    print(
      "Busy writer: a count in the main context took \(milliseconds(busy.during)) ms right after saveChanges() returned, "
        + "while the private context wrote \(options.count) notes; \(milliseconds(busy.after)) ms once the write was over")
    print("  (\(Stall.legend))")
    print("Stage 1: main queue: \(first.stall.summary)")
    print("Stage 2: main queue: \(second.stall.summary)")
    exit(0)
  } catch {
    Stage2Demo.failDemo(with: error)
  }
}

dispatchMain()
