import Foundation
import NotesModel
import ObjectGraph
import Stage1
import Stage2

/// The save's share of the main queue alone, stage 1 against stage 2, without the inserts (the same work
/// in both stacks).
///
/// Each run makes a new store per stage and inserts `count` notes in the main context on the main queue
/// (not timed), then times, on the main queue:
/// - stage 1: `save()`, which writes the file;
/// - stage 2: `saveChanges`, up to its return: the main context's save into its private parent. The parent's
///   write to the file, on its own queue, is not timed; the next run waits for its completion.
///
/// Both stores are then checked to hold `count` notes. The best of the runs of each is reported, as a
/// `BenchmarkResult` whose first side is stage 2 and second side stage 1, so its ratio is stage 2 / stage 1.
///
/// Before stage 2's notes are inserted, each run also times `validateForInsert()` on as many notes inserted
/// in a scratch child context (then dropped): the validation the save begins with, measured on its own (the
/// best run is reported beside).
enum SavePhaseBench {
  static func run(count: Int, repetitions: Int, in directory: URL) throws -> (result: BenchmarkResult, validation: Double) {
    var result = BenchmarkResult(name: "main-queue save \(count) notes")
    var validation = Double.infinity
    for run in 0..<repetitions {
      let oneFolder = directory.appendingPathComponent("save-stage1-\(run)", isDirectory: true)
      let twoFolder = directory.appendingPathComponent("save-stage2-\(run)", isDirectory: true)
      let (one, oneURL) = try MainQueue.run { try stage1Save(count: count, in: oneFolder) }
      let (two, validating, twoURL) = try MainQueue.run { try await stage2Save(count: count, in: twoFolder) }
      validation = min(validation, validating)
      result.record(grdb: one)
      result.record(objectGraph: two)
      for (stage, url) in [("stage 1", oneURL), ("stage 2", twoURL)] {
        let notes = try NoteDrafts.count(at: url)
        guard notes == count else {
          throw BenchmarkError("save phase run \(run): the \(stage) store holds \(notes) notes, not \(count)")
        }
      }
    }
    return (result, validation)
  }

  /// Seconds of stage 1's `save()` of `count` notes inserted just before.
  @MainActor
  private static func stage1Save(count: Int, in folder: URL) throws -> (Double, URL) {
    let manager = Stage1.CoreDataManager(modelName: NotesModel.name, storeFolder: folder)
    let context = try manager.mainContext
    NoteDrafts.insert(count, into: context)
    let seconds = try Stopwatch.seconds { try context.save() }
    return (seconds, manager.storeURL)
  }

  /// Seconds of `validateForInsert()` on `count` notes inserted in a scratch child of `context`, in
  /// insertion order as a save walks them (a set's order would add a cache miss per note); the notes are
  /// dropped unsaved before this returns.
  @MainActor
  private static func validationAlone(count: Int, under context: NSManagedObjectContext) throws -> Double {
    let scratch = NSManagedObjectContext(concurrencyType: .mainQueueConcurrencyType)
    scratch.parent = context
    let notes = NoteDrafts.insertKeeping(count, into: scratch)
    let seconds = try Stopwatch.seconds { for note in notes { try note.validateForInsert() } }
    scratch.reset()
    return seconds
  }

  /// Seconds of the main-queue part of stage 2's `saveChanges` of `count` notes inserted just before, and of
  /// validating as many notes alone first; returns once the file is written.
  @MainActor
  private static func stage2Save(count: Int, in folder: URL) async throws -> (Double, Double, URL) {
    let manager = Stage2.CoreDataManager(modelName: NotesModel.name, storeFolder: folder)
    let context = try manager.mainContext
    // The validation the save begins with, measured on its own first: the same notes inserted in a scratch
    // child of the main context, each validated with validateForInsert(), then dropped unsaved.
    let validation = try validationAlone(count: count, under: context)
    NoteDrafts.insert(count, into: context)
    var seconds = 0.0
    try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
      do {
        seconds = try Stopwatch.seconds {
          try manager.saveChanges { written in continuation.resume(with: written) }
        }
      } catch {
        continuation.resume(throwing: error)
      }
    }
    return (seconds, validation, manager.storeURL)
  }
}
