import DemoSupport
import Dispatch
import Foundation
import NotesModel
import ObjectGraph
import Stage1
import Stage2
import Stage3
import Stage4

/// The main queue's longest stall, the frames it missed and the time until everything is on disk while an
/// app saves the same batch of notes through each stage's stack, in the same run:
///
/// 1. stage 1: insert in the one main-queue context and `save()` (the file is written on the main queue);
/// 2. stage 2: insert in the main context and `saveChanges` (the main context saves into its private
///    parent on the main queue; the parent writes the file on its own queue);
/// 3. stage 3: the same with stage 3's controller, once its callback has said the store is there;
/// 4. stage 4: `NoteImporter` inserting and saving batch by batch on worker contexts, once with workers that
///    are children of the main context, once with workers beside it (children of the writer).
///
/// A 60 Hz timer on the main queue (DemoSupport's `FrameTicker`, the demos' "UI") records when each tick
/// really runs; the longest gap between two ticks is how long the "UI" froze. Stages 1 to 3 insert and save
/// in one block on the main queue, as an app that imports there would. Each stage has a store of its own,
/// opened (and, for stages 3 and 4, loaded) before its clock starts; the clock stops when the file holds
/// every note: when `save()` returns (stage 1), when `saveChanges`'s completion runs (stages 2 and 3), when
/// `importNotes` returns, which is after its final write to disk (stage 4). Every store is then checked to
/// hold `count` notes.
enum StallBench {
  /// One stage's measurement.
  struct StageRun: Sendable {
    let name: String
    let stall: Stall
    /// From the start of the work until every note is on disk.
    let total: Duration
    /// The stage 4 worker shape, for stage 4's runs.
    let shape: WorkerShape?
    let storeURL: URL
    /// The process's CPU time (user and system, every thread) over the same span as `total`.
    var cpu: Double = 0
  }

  /// The process's CPU time so far, user and system, every thread (`getrusage`), in seconds.
  static func processCPU() -> Double {
    var usage = rusage()
    guard getrusage(RUSAGE_SELF.rawValue, &usage) == 0 else { return .nan }
    func seconds(_ time: timeval) -> Double { Double(time.tv_sec) + Double(time.tv_usec) / 1_000_000 }
    return seconds(usage.ru_utime) + seconds(usage.ru_stime)
  }

  static func run(count: Int, batchSize: Int, in directory: URL) throws -> [StageRun] {
    let runs = try MainQueue.run {
      var runs: [StageRun] = []
      runs.append(try stage1(count: count, in: directory.appendingPathComponent("stall-stage1", isDirectory: true)))
      runs.append(try await stage2(count: count, in: directory.appendingPathComponent("stall-stage2", isDirectory: true)))
      runs.append(try await stage3(count: count, in: directory.appendingPathComponent("stall-stage3", isDirectory: true)))
      for shape in [WorkerShape.childOfMain, .besideMain] {
        let folder = directory.appendingPathComponent("stall-stage4-\(shape.rawValue)", isDirectory: true)
        runs.append(try await stage4(shape, count: count, batchSize: batchSize, in: folder))
      }
      return runs
    }
    for run in runs {
      let notes = try NoteDrafts.count(at: run.storeURL)
      guard notes == count else { throw BenchmarkError("\(run.name): the store holds \(notes) notes, not \(count)") }
    }
    return runs
  }

  /// Stage 1: insert and `save()` on the main queue, in one block. The stack is freed when this returns,
  /// before the next stage's clock starts.
  @MainActor
  private static func stage1(count: Int, in folder: URL) throws -> StageRun {
    let manager = Stage1.CoreDataManager(modelName: NotesModel.name, storeFolder: folder)
    let context = try manager.mainContext
    let ticker = FrameTicker()
    ticker.start()
    let cpu = processCPU()
    let total = try ContinuousClock().measure {
      NoteDrafts.insert(count, into: context)
      try context.save()
    }
    var run = StageRun(
      name: "1: insert + save() on main", stall: ticker.stop(), total: total, shape: nil, storeURL: manager.storeURL)
    run.cpu = processCPU() - cpu
    return run
  }

  /// Stage 2: insert and `saveChanges` on the main queue, in one block; done when its completion runs.
  @MainActor
  private static func stage2(count: Int, in folder: URL) async throws -> StageRun {
    let manager = Stage2.CoreDataManager(modelName: NotesModel.name, storeFolder: folder)
    let context = try manager.mainContext
    let cpu = processCPU()
    let (stall, total) = try await measure {
      NoteDrafts.insert(count, into: context)
      try manager.saveChanges(completion: $0)
    }
    var run = StageRun(
      name: "2: insert on main + saveChanges", stall: stall, total: total, shape: nil, storeURL: manager.storeURL)
    run.cpu = processCPU() - cpu
    return run
  }

  /// Stage 3: the same as stage 2 with stage 3's controller, after its callback.
  @MainActor
  private static func stage3(count: Int, in folder: URL) async throws -> StageRun {
    var made: Stage3.PersistenceController?
    let loaded = await withCheckedContinuation { continuation in
      made = Stage3.PersistenceController(storeFolder: folder) { continuation.resume(returning: $0) }
    }
    try loaded.get()
    guard let controller = made else { throw BenchmarkError("stage 3 made no controller") }
    let cpu = processCPU()
    let (stall, total) = try await measure {
      NoteDrafts.insert(count, into: controller.mainContext)
      try controller.saveChanges(completion: $0)
    }
    var run = StageRun(
      name: "3: as 2, after the callback", stall: stall, total: total, shape: nil, storeURL: controller.storeURL)
    run.cpu = processCPU() - cpu
    return run
  }

  /// Stage 4: `NoteImporter` on workers of `shape`, after the controller's callback, run off the main actor
  /// (it waits for each worker in turn); done when `importNotes` returns, after its write to disk.
  @MainActor
  private static func stage4(_ shape: WorkerShape, count: Int, batchSize: Int, in folder: URL) async throws
    -> StageRun
  {
    var made: Stage4.PersistenceController?
    let loaded = await withCheckedContinuation { continuation in
      made = Stage4.PersistenceController(storeFolder: folder) { continuation.resume(returning: $0) }
    }
    try loaded.get()
    guard let controller = made else { throw BenchmarkError("stage 4 made no controller") }
    let importer = NoteImporter(controller: controller, shape: shape, batchSize: batchSize)
    let ticker = FrameTicker()
    let cpu = processCPU()
    let start = ContinuousClock.now
    ticker.start()
    let outcome = try await Task.detached {
      try await importer.importNotes((1...count).lazy.map(NoteDrafts.draft))
    }.value
    let total = ContinuousClock.now - start
    let stall = ticker.stop()
    guard outcome.notes == count else { throw BenchmarkError("stage 4 imported \(outcome.notes) notes, not \(count)") }
    let name = "4: NoteImporter, workers \(shape == .childOfMain ? "child of main" : "beside main")"
    var run = StageRun(name: name, stall: stall, total: total, shape: shape, storeURL: controller.storeURL)
    run.cpu = processCPU() - cpu
    return run
  }

  /// Runs `work` on the main queue while the ticker ticks, then lets the main queue turn until the
  /// completion `work` handed on has run there; the stall and the time until then.
  @MainActor
  private static func measure(
    _ work: (@escaping @Sendable (Result<Void, any Error>) -> Void) throws -> Void
  ) async throws -> (Stall, Duration) {
    let ticker = FrameTicker()
    let start = ContinuousClock.now
    ticker.start()
    try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
      do {
        try work { written in continuation.resume(with: written) }
      } catch {
        continuation.resume(throwing: error)
      }
    }
    let total = ContinuousClock.now - start
    return (ticker.stop(), total)
  }
}
