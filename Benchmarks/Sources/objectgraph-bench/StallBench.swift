import DemoSupport
import Dispatch
import Foundation
import NotesModel
import ObjectGraph
import Stage1
import Stage2

/// The main queue's longest stall while an app saves a large batch of notes, through stage 1's stack
/// (one main-queue context: the save writes the file on the main queue) and stage 2's (the main context
/// saves into a private parent, which writes the file on its own queue), in the same run.
///
/// A 60 Hz timer on the main queue (DemoSupport's `FrameTicker`, the demos' "UI") records when each tick
/// really runs; the longest gap between two ticks is how long the "UI" froze. Both stacks do what an app
/// would: insert the notes in the main context, then save (stage 1: `save()`; stage 2: `saveChanges()`),
/// all in one block on the main queue. Stage 2's measurement ends when its private context has finished
/// writing the file.
enum StallBench {
  struct Result {
    var stage1 = Duration.zero
    var stage2 = Duration.zero
  }

  static func run(count: Int, in directory: URL) throws -> Result {
    let outcome = Outcome()
    DispatchQueue.main.async {
      MainActor.assumeIsolated {
        do {
          var result = Result()
          // Stage 1's stack lives in this scope only: its objects are freed here, before stage 2's clock
          // starts, not at the end of this block, where freeing them would count as stage 2's stall.
          do {
            let one = Stage1.CoreDataManager(
              modelName: NotesModel.name, storeFolder: directory.appendingPathComponent("stage1", isDirectory: true))
            let oneContext = try one.mainContext
            result.stage1 = try measure {
              insert(count, into: oneContext)
              try oneContext.save()
            }
          }
          let two = Stage2.CoreDataManager(
            modelName: NotesModel.name, storeFolder: directory.appendingPathComponent("stage2", isDirectory: true))
          let twoContext = try two.mainContext
          measureAsync(
            work: { finished in
              insert(count, into: twoContext)
              try two.saveChanges { written in finished(written) }
            },
            then: { stall in
              result.stage2 = stall
              outcome.set(.success(result))
            },
            failed: { error in outcome.set(.failure(error)) })
        } catch {
          outcome.set(.failure(error))
        }
      }
    }
    // Keep the main queue turning (it runs the ticker and the work) until both measurements are done.
    while true {
      if let result = outcome.value { return try result.get() }
      _ = RunLoop.main.run(mode: .default, before: Date(timeIntervalSinceNow: 0.01))
    }
  }

  /// The result, handed from the main queue to the waiting loop.
  private final class Outcome: @unchecked Sendable {
    // `@unchecked Sendable`: `stored` is only read and written while holding `lock`.
    private let lock = NSLock()
    private var stored: Swift.Result<Result, any Error>?

    var value: Swift.Result<Result, any Error>? { lock.withLock { stored } }
    func set(_ result: Swift.Result<Result, any Error>) { lock.withLock { stored = result } }
  }

  /// Inserts `count` notes in one notebook, as an import would.
  @MainActor
  private static func insert(_ count: Int, into context: ManagedObjectContext) {
    let now = Date()
    let notebook = Notebook(context: context)
    notebook.name = "Imported"
    notebook.createdAt = now
    for number in 1...count {
      let note = Note(context: context)
      note.title = "Imported note \(number)"
      note.createdAt = now
      note.notebook = notebook
    }
  }

  /// The longest gap between ticks while `work` runs synchronously on the main queue.
  @MainActor
  private static func measure(_ work: () throws -> Void) throws -> Duration {
    let ticker = FrameTicker()
    ticker.start()
    try work()
    return ticker.stop().longestGap
  }

  /// The same for work that finishes later (stage 2's write to the file), reported on the main queue.
  @MainActor
  private static func measureAsync(
    work: (@escaping @Sendable (Swift.Result<Void, any Error>) -> Void) throws -> Void,
    then: @escaping @MainActor (Duration) -> Void, failed: @escaping @MainActor (any Error) -> Void
  ) {
    let ticker = FrameTicker()
    ticker.start()
    do {
      try work { written in
        DispatchQueue.main.async {
          MainActor.assumeIsolated {
            switch written {
            case .success: then(ticker.stop().longestGap)
            case .failure(let error): failed(error)
            }
          }
        }
      }
    } catch {
      failed(error)
    }
  }
}
