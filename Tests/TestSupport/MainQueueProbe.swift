import Dispatch

/// Tells whether code runs on the main queue.
///
/// It marks `DispatchQueue.main` with a queue-specific key and reads the key back. `Thread.isMainThread`
/// cannot tell: under Swift Testing on Linux, main-queue blocks run on a thread that is not the main
/// thread.
///
/// ```swift
/// let onMain = try await context.perform { MainQueueProbe.isOnMainQueue }
/// ```
public enum MainQueueProbe {
  private static let key = DispatchSpecificKey<Bool>()
  /// Marks the main queue, once, the first time anything is probed.
  private static let mark: Void = DispatchQueue.main.setSpecific(key: key, value: true)

  /// Whether the caller runs on the main queue.
  public static var isOnMainQueue: Bool {
    mark
    return DispatchQueue.getSpecific(key: key) ?? false
  }
}

/// Lets everything queued on the main queue by now run (30 seconds at most).
public func drainMainQueue() async throws {
  let _: Void = try await Watchdog.callback("the main queue") { done in DispatchQueue.main.async { done(()) } }
}
