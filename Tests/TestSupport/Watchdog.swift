import Dispatch
import Foundation
import Synchronization

/// Bounded waits: a test that waits for something that never comes fails with a message saying what it
/// waited for, instead of hanging the whole run.
///
/// ```swift
/// let result: Result<Void, any Error> = try await Watchdog.callback("saveChanges' completion") { done in
///   try manager.saveChanges(completion: done)
/// }
/// ```
public enum Watchdog {
  /// How long a wait lasts by default: far longer than anything a test waits for should take.
  public static let defaultLimit = Duration.seconds(30)

  /// Waits until `semaphore` is signalled, for `limit` at most.
  ///
  /// - Throws: ``WatchdogTimeout``, naming `what`, when `limit` passes first.
  public static func wait(for semaphore: DispatchSemaphore, upTo limit: Duration = defaultLimit, _ what: String) throws {
    guard semaphore.wait(timeout: .now() + limit.dispatchInterval) == .success else {
      throw WatchdogTimeout(what: what, limit: limit)
    }
  }

  /// Calls `start` with a callback and waits, suspended, until the callback is called, for `limit` at most.
  ///
  /// The first call counts; later calls are ignored.
  ///
  /// - Returns: What the callback was called with.
  /// - Throws: What `start` throws, or ``WatchdogTimeout``, naming `what`, when `limit` passes first.
  public static func callback<Value: Sendable>(
    upTo limit: Duration = defaultLimit, _ what: String, _ start: (@escaping @Sendable (Value) -> Void) throws -> Void
  ) async throws -> Value {
    let waiting = Mutex<CheckedContinuation<Value, any Error>?>(nil)
    let finish: @Sendable (Result<Value, any Error>) -> Void = { result in
      waiting.withLock { continuation in
        continuation?.resume(with: result)
        continuation = nil
      }
    }
    return try await withCheckedThrowingContinuation { continuation in
      waiting.withLock { $0 = continuation }
      DispatchQueue.global().asyncAfter(deadline: .now() + limit.dispatchInterval) {
        finish(.failure(WatchdogTimeout(what: what, limit: limit)))
      }
      do {
        try start { finish(.success($0)) }
      } catch {
        finish(.failure(error))
      }
    }
  }

  /// In a child process (an exit test): ends the process with exit status 3, writing `message` to standard
  /// error, unless it has ended by itself within `limit`.
  public static func endProcess(after limit: Duration, saying message: @escaping @Sendable () -> String) {
    DispatchQueue.global().asyncAfter(deadline: .now() + limit.dispatchInterval) {
      FileHandle.standardError.write(Data((message() + "\n").utf8))
      exit(3)
    }
  }
}

/// A wait that ran out: what was awaited, and for how long.
public struct WatchdogTimeout: Error, CustomStringConvertible {
  /// What the test waited for.
  public let what: String
  /// How long it waited.
  public let limit: Duration

  public var description: String { "Waited \(limit) for \(what), in vain: it never came." }
}

extension Duration {
  /// The same length for Dispatch's deadlines.
  var dispatchInterval: DispatchTimeInterval {
    .nanoseconds(Int(min(self / .nanoseconds(1), Double(Int.max))))
  }
}
