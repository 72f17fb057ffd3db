import Foundation

/// Runs benchmark work on the main actor from the program's synchronous top level.
///
/// The benchmarks that watch the main queue (a 60 Hz ticker on it, main-queue contexts, the stages'
/// completions delivered there) need it turning while they run. `run` starts the work as a main-actor task
/// and turns the main run loop (which drains the main dispatch queue, where the task, the ticker and every
/// completion run) until the work has finished.
enum MainQueue {
  static func run<Value: Sendable>(_ body: @escaping @Sendable @MainActor () async throws -> Value) throws -> Value {
    let outcome = Outcome<Value>()
    Task { @MainActor in
      do {
        outcome.set(.success(try await body()))
      } catch {
        outcome.set(.failure(error))
      }
    }
    while true {
      if let result = outcome.value { return try result.get() }
      _ = RunLoop.main.run(mode: .default, before: Date(timeIntervalSinceNow: 0.01))
    }
  }

  /// The work's result, handed from the main actor to the waiting loop.
  private final class Outcome<Value: Sendable>: @unchecked Sendable {
    // `@unchecked Sendable`: `stored` is only read and written while holding `lock`.
    private let lock = NSLock()
    private var stored: Result<Value, any Error>?

    var value: Result<Value, any Error>? { lock.withLock { stored } }
    func set(_ result: Result<Value, any Error>) { lock.withLock { stored = result } }
  }
}
