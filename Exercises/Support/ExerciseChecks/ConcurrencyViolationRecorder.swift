import Foundation
import ObjectGraph

/// Collects concurrency-debug violations instead of stopping the process (the engine's test hook), from
/// its creation until ``stop()``, or until it is no longer used.
///
/// `@unchecked Sendable`: its one mutable field is only touched under `lock`.
public final class ConcurrencyViolationRecorder: @unchecked Sendable {
  private let lock = NSLock()
  private var recorded: [String] = []

  /// Turns concurrency debugging on and sends every violation to this recorder.
  public init() {
    ConcurrencyDebug.isEnabled = true
    ConcurrencyDebug.violationHandler = { [weak self] violation in self?.record(violation.message) }
  }

  private func record(_ message: String) { lock.withLock { recorded.append(message) } }

  /// Turns concurrency debugging off again, and returns the violations it saw, as the engine worded them:
  /// each different message once, in the order first seen, with how often it came in front of it when more
  /// than once ("3 times: ObjectGraph concurrency violation …"; a check that calls the learner's code twice
  /// would otherwise show every line twice). In front, the count stays with its violation when the workshop
  /// leaves out the sentences an earlier check said already.
  public func stop() -> [String] {
    ConcurrencyDebug.violationHandler = nil
    ConcurrencyDebug.isEnabled = false
    let messages = lock.withLock { recorded }
    var counts: [String: Int] = [:]
    var order: [String] = []
    for message in messages {
      if counts[message] == nil { order.append(message) }
      counts[message, default: 0] += 1
    }
    return order.map { message in
      let times = counts[message] ?? 1
      return times == 1 ? message : "\(times) times: \(message)"
    }
  }

  deinit { _ = stop() }
}
