// stage4-demo: an import of --count notes on worker contexts while the UI keeps ticking.
//
// 1. For each worker shape (children of the main context, then contexts beside it under the writer): a
//    stage 4 controller on a store of its own, a list in the main context that counts the notes as the
//    workers' saves land, and an importer handed the controller, saving --batch-size notes per worker,
//    while a 60 Hz "UI" ticks on the main queue. Measured: how late a tick ran at worst and the longest
//    gap between two ticks, when the list first and last changed, when everything was on disk, the
//    resident memory at each tenth.
// 2. The same notes through stage 1's manager: inserted and saved on the main queue.
//
// The main queue is driven by dispatchMain(), as an app's run loop would drive it. The command line is in
// Stage4Demo.swift; the 60 Hz "UI" and the memory probe are DemoSupport's.
//
//   swift run -c release stage4-demo --count 100000 [--batch-size 1000] [--store-folder PATH]
//   swift run stage4-demo --merge-policies   (MergePolicyTour.swift: the user and a worker edit one note)
//   swift run stage4-demo --share            (SharedStoreTour.swift: an app and its extension, two processes)

import DemoSupport
import Dispatch
import Foundation
import NotesModel
import ObjectGraph
import Stage1
import Stage4

/// The notes every import saves: the same titles, texts and dates for stage 4 and stage 1.
func draft(_ number: Int) -> NoteDraft {
  NoteDraft(
    title: "Imported note \(number)", body: "Text of imported note \(number).",
    createdAt: Date(timeIntervalSinceReferenceDate: 800_000_000 + Double(number)))
}

// MARK: - Stage 4: workers

/// What the list saw during a stage 4 import: when it first and last changed, and the memory meanwhile.
@MainActor
final class ImportWatch {
  let expected: Int
  let start = ContinuousClock.now
  private(set) var firstVisible: Duration?
  private(set) var allVisible: Duration?
  private(set) var changes = 0
  /// The highest resident size sampled by the end of each tenth of the notes.
  private(set) var memoryByTenth: [Int] = []
  private var peak = PeakMemory()

  init(list: NoteList, expecting expected: Int) {
    self.expected = expected
    list.onChange = { [weak self] list in self?.listChanged(list) }
  }

  private func listChanged(_ list: NoteList) {
    let now = ContinuousClock.now - start
    changes += 1
    if firstVisible == nil, list.count > 0 { firstVisible = now }
    if allVisible == nil, list.count >= expected { allVisible = now }
    peak.sample()
    while memoryByTenth.count < list.count * 10 / expected { memoryByTenth.append(peak.bytes) }
  }
}

/// What one stage 4 import measured.
struct WorkerImport {
  let shape: WorkerShape
  let stall: Stall
  let total: Duration
  let firstVisible: Duration
  let allVisible: Duration
}

/// Opens a stage 4 stack in `folder` and waits for its callback.
@MainActor
func openStage4(in folder: URL) async throws -> PersistenceController {
  var controller: PersistenceController?
  let result = await withCheckedContinuation { continuation in
    controller = PersistenceController(storeFolder: folder) { continuation.resume(returning: $0) }
  }
  try result.get()
  guard let controller else { throw DemoFailure("stage 4 made no controller") }
  return controller
}

/// Imports `count` notes on workers of `shape` while the UI ticks, and reports what the UI saw.
@MainActor
func importWithWorkers(_ shape: WorkerShape, count: Int, batchSize: Int, in folder: URL) async throws -> WorkerImport {
  let controller = try await openStage4(in: folder)
  let list = try NoteList(context: controller.mainContext)
  print("Stage 4, workers \(shape): importing \(count) notes in batches of \(batchSize) while the UI ticks at 60 Hz")
  let memoryBefore = ResidentMemory.current()

  let ticker = FrameTicker()
  ticker.start()
  try await Task.sleep(for: .milliseconds(250))  // a steady ticker first, as measureStall does
  let watch = ImportWatch(list: list, expecting: count)
  let importer = NoteImporter(controller: controller, shape: shape, batchSize: batchSize)
  // Off the main actor: the importer waits for each worker in turn, and the main queue must stay free.
  let outcome = try await Task.detached { try await importer.importNotes((1...count).lazy.map(draft)) }.value
  let total = ContinuousClock.now - watch.start
  try await Task.sleep(for: .milliseconds(100))  // let the last ticks come
  let stall = ticker.stop()

  guard list.count == count, let firstVisible = watch.firstVisible, let allVisible = watch.allVisible else {
    throw DemoFailure("the list shows \(list.count) notes after the import, not \(count)")
  }
  // The importer's IDs cross into the main context: the newest note, found by its ID.
  guard let lastID = outcome.lastNoteID, let newest = try controller.mainContext.existingObject(with: lastID) as? Note
  else { throw DemoFailure("the last imported note cannot be found in the main context") }

  print(
    "  UI: the list changed \(watch.changes) times; the first notes showed after \(milliseconds(firstVisible)) ms, "
      + "all \(count) after \(milliseconds(allVisible)) ms")
  print("  UI: the newest note, found by the ID the importer handed back: \"\(newest.title)\"")
  print("  everything on disk after \(milliseconds(total)) ms, in \(outcome.batches) saves")
  if let memoryBefore, !watch.memoryByTenth.isEmpty {
    let tenths = watch.memoryByTenth.map { String(Int((Double($0) / 1_048_576).rounded())) }.joined(separator: " ")
    print("  resident memory: \(ResidentMemory.megabytes(memoryBefore)) before; highest by each tenth of the import: \(tenths) MB")
  }
  print("  main queue: \(stall.summary); longest gap between two ticks \(milliseconds(stall.longestGap)) ms")
  return WorkerImport(shape: shape, stall: stall, total: total, firstVisible: firstVisible, allVisible: allVisible)
}

// MARK: - Stage 1: the main queue

/// Inserts and saves the same notes through stage 1's manager, on the main queue, while the UI ticks.
@MainActor
func importWithStage1(count: Int, in folder: URL) async throws -> (total: Duration, stall: Stall) {
  let manager = Stage1.CoreDataManager(modelName: NotesModel.name, storeFolder: folder)
  let context = try manager.mainContext
  print("Stage 1: inserting and saving the same \(count) notes on the main queue while the UI ticks")
  let clock = ContinuousClock()
  let (total, stall) = try await measureStall {
    try clock.measure {
      for number in 1...count {
        let values = draft(number)
        let note = Note(context: context)
        note.title = values.title
        note.body = values.body
        note.createdAt = values.createdAt
        note.modifiedAt = values.createdAt
      }
      try context.save()
    }
  }
  print("  everything on disk after \(milliseconds(total)) ms, in 1 save")
  print("  main queue: \(stall.summary); longest gap between two ticks \(milliseconds(stall.longestGap)) ms")
  return (total, stall)
}

// MARK: - The app's life

/// `part` as a multiple of `whole`, with two decimals: "0.85x".
func ratio(_ part: Duration, _ whole: Duration) -> String {
  String(format: "%.2fx", part / whole)
}

let command = Stage4Demo.parseForDemo()
let options = command.options

if command.mergePolicies {
  do {
    try tourMergePolicies(in: options.storeFolder(for: "stage4-demo").appendingPathComponent("MergePolicies", isDirectory: true))
    exit(0)
  } catch {
    Stage4Demo.failDemo(with: error)
  }
}

if command.share || command.shareExtensionStep != nil {
  Task { @MainActor in
    do {
      let folder = options.storeFolder(for: "stage4-demo")
      if let step = command.shareExtensionStep {
        try await shareExtension(step: step, in: folder)
      } else {
        try await tourSharedStore(in: folder.appendingPathComponent("Shared", isDirectory: true))
      }
      exit(0)
    } catch {
      Stage4Demo.failDemo(with: error)
    }
  }
  dispatchMain()
}

Task { @MainActor in
  do {
    let folder = options.storeFolder(for: "stage4-demo")
    var runs: [WorkerImport] = []
    for shape in [WorkerShape.childOfMain, .besideMain] {
      let storeFolder = folder.appendingPathComponent(shape == .childOfMain ? "Stage4-child-of-main" : "Stage4-beside-main")
      runs.append(try await importWithWorkers(shape, count: options.count, batchSize: command.batchSize, in: storeFolder))
    }
    let stage1 = try await importWithStage1(count: options.count, in: folder.appendingPathComponent("Stage1"))

    print("Summary (\(Stall.legend); the longest gap between two ticks is never under a frame)")
    for run in runs {
      print(
        "  stage 4, workers \(run.shape): \(run.stall.summary), longest gap \(milliseconds(run.stall.longestGap)) ms; "
          + "import \(milliseconds(run.total)) ms, \(ratio(run.total, stage1.total)) stage 1's")
    }
    print(
      "  stage 1, on the main queue: \(stage1.stall.summary), longest gap \(milliseconds(stage1.stall.longestGap)) ms; "
        + "import \(milliseconds(stage1.total)) ms")
    exit(0)
  } catch {
    Stage4Demo.failDemo(with: error)
  }
}

dispatchMain()
