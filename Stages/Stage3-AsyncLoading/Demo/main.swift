// stage3-demo: a launch that migrates a big store in the background while the UI keeps ticking.
//
// 1. The old app: write a store of --count notes with version 1 of the model (DataModel), in batches
//    through a private context, and copy it for stage 2.
// 2. The new app, stage 3: open the store with PersistenceController under version 2 (DataModel 2, the
//    current version) while a 60 Hz "UI" ticks on the main queue. The UI shows a placeholder at once and
//    a progress bar that follows the migration; the callback brings the notes. Measured: how long the
//    initialiser took, the longest gap between two ticks until the callback, and how long the store took.
// 3. The same launch with stage 2's manager on the copy: its first mainContext access migrates the store
//    on the main queue, and the UI freezes for all of it.
//
// The main queue is driven by dispatchMain(), as an app's run loop would drive it. The command line is in
// Stage3Demo.swift; the 60 Hz "UI" is DemoSupport's.
//
//   swift run -c release stage3-demo --count 1000000 [--store-folder PATH]
//   swift run stage3-demo --what-can-be-inferred   (InferenceTour.swift: each kind of model change, tried)
//   swift run stage3-demo --custom-stage           (CustomStageTour.swift: a staged migration with a custom stage)

import DemoSupport
import Dispatch
import Foundation
import NotesModel
import ObjectGraph
import Stage2
import Stage3
import Synchronization

// MARK: - The old app's store

/// A progress bar as text: `[#####-----]  50%`.
func bar(_ fraction: Double) -> String {
  let filled = Int((fraction * 10).rounded(.down))
  let percent = String(Int((fraction * 100).rounded(.down)))
  return "[" + String(repeating: "#", count: filled) + String(repeating: "-", count: 10 - filled) + "] "
    + String(repeating: " ", count: 3 - percent.count) + percent + "%"
}

/// Writes `count` notes with version 1 of the model into `folder`/DataModel.sqlite, 10,000 per save,
/// printing a progress bar line at each tenth. Returns the store file, closed.
func writeVersion1Store(notes count: Int, in folder: URL) async throws -> URL {
  guard let modelURL = NotesModel.bundle.url(forResource: NotesModel.name, withExtension: "xcdatamodeld"),
    let version1 = try NSManagedObjectModel.versions(in: modelURL).first(where: { $0.name == "DataModel" })?.model
  else { throw DemoFailure("the tutorial's model has no version named DataModel") }
  try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
  let storeURL = folder.appendingPathComponent("\(NotesModel.name).sqlite")
  let coordinator = NSPersistentStoreCoordinator(managedObjectModel: version1)
  let store = try coordinator.addPersistentStore(type: .sqlite, at: storeURL)
  let context = NSManagedObjectContext(concurrencyType: .privateQueueConcurrencyType)
  context.persistentStoreCoordinator = coordinator

  print("The old app: writing \(count) notes with version 1 of the model to \(storeURL.path)")
  let batch = 10_000
  var written = 0
  var tenthsShown = 0
  let created = Date(timeIntervalSinceReferenceDate: 800_000_000)
  while written < count {
    let first = written + 1
    let last = min(written + batch, count)
    try await context.perform {
      for number in first...last {
        // Version 1's properties only. The class is version 2's Note; `updatedAt`, which version 2
        // renamed, is set by name.
        let note = Note(context: context)
        note.title = "Note \(number)"
        note.body = "The text of note \(number), written by version 1 of the app."
        note.createdAt = created
        note.setValue(created.addingTimeInterval(Double(number)), forKey: "updatedAt")
      }
      try context.save()
      context.reset()
    }
    written = last
    let tenths = written * 10 / count
    if tenths > tenthsShown || written == count {
      tenthsShown = tenths
      print("  \(bar(Double(written) / Double(count))) \(written) of \(count) notes")
    }
  }
  try coordinator.remove(store)  // closes the file, so that a copy of it is whole
  return storeURL
}

/// Copies the store file (and its companions, if any) into `folder`, then flushes the original and the
/// copy to disk, so that neither launch starts while the system is still writing the other's file.
func copyStore(_ storeURL: URL, to folder: URL) throws {
  try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
  for suffix in ["", "-wal", "-shm"] where FileManager.default.fileExists(atPath: storeURL.path + suffix) {
    let copy = folder.appendingPathComponent(storeURL.lastPathComponent + suffix)
    try FileManager.default.copyItem(atPath: storeURL.path + suffix, toPath: copy.path)
    for file in [URL(fileURLWithPath: storeURL.path + suffix), copy] {
      let handle = try FileHandle(forUpdating: file)
      try handle.synchronize()
      try handle.close()
    }
  }
}

// MARK: - Stage 3: the store opens in the background

/// What the UI shows of a migration: a bar line at each tenth, printed on the main queue. The engine
/// reports progress on the migrating thread, as often as it likes; only a new tenth is sent to the main
/// queue, so that the reports cannot flood it.
final class MigrationBar: Sendable {
  private let tenthsShown = Mutex(-1)

  func report(_ progress: MigrationProgress) {
    let tenths = Int((progress.fractionCompleted * 10).rounded(.down))
    let isNew = tenthsShown.withLock { shown in
      guard tenths > shown else { return false }
      shown = tenths
      return true
    }
    guard isNew else { return }
    DispatchQueue.main.async { print("  UI: migrating \(bar(progress.fractionCompleted))") }
  }

  /// Whether any progress was reported, that is whether the store was migrated.
  var migrated: Bool { tenthsShown.withLock { $0 >= 0 } }
}

/// What stage 3's launch measured.
struct Stage3Launch {
  let initialiser: Duration
  let loading: Duration
  let stall: Stall
  let migrated: Bool
  let notes: Int
}

/// Launches with stage 3's controller while the UI ticks, and waits for its callback.
@MainActor
func launchWithStage3(storeFolder: URL) async throws -> Stage3Launch {
  let ticker = FrameTicker()
  ticker.start()
  try await Task.sleep(for: .milliseconds(250))  // a steady ticker first, as measureStall does
  let clock = ContinuousClock()
  let migrationBar = MigrationBar()
  var initialiser = Duration.zero
  var controller: PersistenceController?
  let (result, loaded) = await withCheckedContinuation { continuation in
    let start = clock.now
    let startCPU = ThreadCPUTime.now()
    controller = PersistenceController(storeFolder: storeFolder, migrationProgress: migrationBar.report) { result in
      continuation.resume(returning: (result, clock.now - start))
    }
    initialiser = clock.now - start
    let initialiserCPU = ThreadCPUTime.now() - startCPU
    print(
      "Stage 3: the initialiser returned after \(fractionalMilliseconds(initialiser)) ms "
        + "(\(fractionalMilliseconds(initialiserCPU)) ms of work on this thread)")
    print("  UI: a placeholder, \"Opening your notes…\", while the store loads")
  }
  let stall = ticker.stop()
  guard let controller, case .success = result else {
    if case .failure(let error) = result { throw DemoFailure("stage 3 could not open the store: \(error)") }
    throw DemoFailure("stage 3 made no controller")
  }
  let notes = try controller.mainContext.count(for: NSFetchRequest<Note>(entityName: "Note"))
  print("  UI: \(notes) notes (the callback came on the main queue after \(milliseconds(loaded)) ms)")
  return Stage3Launch(initialiser: initialiser, loading: loaded, stall: stall, migrated: migrationBar.migrated, notes: notes)
}

// MARK: - Stage 2: the store opens on the main queue

/// Launches with stage 2's manager while the UI ticks: its first `mainContext` access adds the store,
/// migrating it, on the main queue.
@MainActor
func launchWithStage2(storeFolder: URL) async throws -> (firstAccess: Duration, stall: Stall) {
  let manager = Stage2.CoreDataManager(modelName: NotesModel.name, storeFolder: storeFolder)
  let clock = ContinuousClock()
  let (firstAccess, stall) = try await measureStall {
    try clock.measure { _ = try manager.mainContext }
  }
  let notes = try manager.mainContext.count(for: NSFetchRequest<Note>(entityName: "Note"))
  print("Stage 2: the first mainContext access returned after \(milliseconds(firstAccess)) ms, with \(notes) notes")
  return (firstAccess, stall)
}

// MARK: - The app's life

/// `duration` in milliseconds with two decimals: the initialiser's time is well under one.
func fractionalMilliseconds(_ duration: Duration) -> String {
  String(format: "%.2f", duration / .milliseconds(1))
}

let command = Stage3Demo.parseForDemo()
let options = command.options

if command.whatCanBeInferred || command.customStage {
  do {
    let folder = options.storeFolder(for: "stage3-demo")
    try command.customStage ? customStage(in: folder) : whatCanBeInferred(in: folder)
    exit(0)
  } catch {
    Stage3Demo.failDemo(with: error)
  }
}

Task { @MainActor in
  do {
    let folder = options.storeFolder(for: "stage3-demo")
    let stage3Folder = folder.appendingPathComponent("Stage3", isDirectory: true)
    let stage2Folder = folder.appendingPathComponent("Stage2", isDirectory: true)

    let storeURL = try await writeVersion1Store(notes: options.count, in: stage3Folder)
    try copyStore(storeURL, to: stage2Folder)
    print("  copied for stage 2 to \(stage2Folder.path)")

    print("The new app (version 2 of the model) launches while the UI ticks at 60 Hz")
    let stage3 = try await launchWithStage3(storeFolder: stage3Folder)
    let stage2 = try await launchWithStage2(storeFolder: stage2Folder)

    print("  (\(Stall.legend))")
    print(
      "Stage 3: initialiser \(fractionalMilliseconds(stage3.initialiser)) ms; "
        + "store \(stage3.migrated ? "migrated and " : "")ready in \(milliseconds(stage3.loading)) ms; "
        + "meanwhile the main queue's \(stage3.stall.summary)")
    print(
      "Stage 2: first mainContext access \(milliseconds(stage2.firstAccess)) ms; "
        + "meanwhile the main queue's \(stage2.stall.summary)")
    exit(0)
  } catch {
    Stage3Demo.failDemo(with: error)
  }
}

dispatchMain()
