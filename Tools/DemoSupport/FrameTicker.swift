import Dispatch

/// Stands in for an app's screen: a timer on the main queue that should fire every 1/60 s, noting when
/// each tick really ran. Whenever the main queue is busy, ticks wait: the gaps are dropped frames.
///
/// ```swift
/// let ticker = FrameTicker()
/// ticker.start()
/// try context.save()  // on the main queue
/// print(ticker.stop().summary)  // "longest stall 137 ms, 8 frames missed in all"
/// ```
@MainActor
public final class FrameTicker {
  /// How long one frame lasts at 60 Hz.
  public nonisolated static let frame = Duration.seconds(1) / 60

  private let timer = DispatchSource.makeTimerSource(queue: .main)
  private var lastTick: ContinuousClock.Instant?
  /// When tick 0 was due; tick n is due a frame after tick n - 1.
  private var origin = ContinuousClock.now
  /// The number of the latest tick that has run (-1 before the first).
  private var servedTick = -1
  private var stall = Stall()

  public init() {}

  /// Starts ticking. The time until the first tick counts as a gap like any other, so work that holds
  /// the main queue right after `start()` is measured too.
  public func start() {
    origin = .now
    lastTick = origin
    servedTick = -1
    timer.schedule(deadline: .now(), repeating: .nanoseconds(16_666_667), leeway: .milliseconds(1))
    timer.setEventHandler { [weak self] in
      MainActor.assumeIsolated { self?.tick() }
    }
    timer.resume()
  }

  private func tick() {
    let now = ContinuousClock.now
    if let lastTick { stall.add(gap: now - lastTick) }
    lastTick = now
    // The oldest tick still waiting was due a frame after the last one that ran. While the main queue
    // is busy, the timer's ticks pile up into one late run: how late it is, is how long the UI waited.
    let due = Int(((now - origin) / Self.frame).rounded(.down))
    if due > servedTick {
      stall.add(wait: max(.zero, now - (origin + Self.frame * (servedTick + 1))))
      servedTick = due
    }
  }

  /// Stops the timer and sums up the gaps between the ticks. The time since the last tick counts as a
  /// gap too: work that has just ended held the main queue until now, and no tick has run since.
  public func stop() -> Stall {
    tick()
    timer.cancel()
    return stall
  }
}

/// What a ``FrameTicker`` saw: the longest time the main queue could not tick, and the frames it missed.
public struct Stall: Sendable {
  /// The longest gap between two ticks. A main queue with nothing else to do still shows a gap of one
  /// frame (16.7 ms), so this can never read less than that.
  public private(set) var longestGap = Duration.zero
  /// The longest a tick waited after it was due: the time the main queue was held by other work (or
  /// the thread was not scheduled) while the UI should have drawn. An idle main queue shows about 0.
  public private(set) var longestWait = Duration.zero
  /// The ticks that never happened: a gap of about n frames means n - 1 of them.
  public private(set) var missedFrames = 0

  mutating func add(wait: Duration) {
    longestWait = max(longestWait, wait)
  }

  mutating func add(gap: Duration) {
    longestGap = max(longestGap, gap)
    missedFrames += max(0, Int((gap / FrameTicker.frame).rounded()) - 1)
  }

  /// The missed frames in words: "1 frame", "8 frames".
  public var frames: String { missedFrames == 1 ? "1 frame" : "\(missedFrames) frames" }

  /// The two figures, named so that they cannot be taken for each other: "longest stall 137 ms, 8 frames
  /// missed in all". The longest stall is how late a tick ran at worst (``longestWait``); the frames add
  /// up over every stall.
  public var summary: String { "longest stall \(milliseconds(longestWait)) ms, \(frames) missed in all" }

  /// What the figures mean, for a demo to print once above them.
  public static let legend = "the longest stall is how late a UI tick ran at worst; at 60 Hz a frame lasts 16.7 ms"
}

/// Runs `work` on the main queue while a ``FrameTicker`` ticks, with a quiet moment before it, so that the
/// ticker is steady when the work starts, and after it, so that the ticker has caught up when it ends.
@MainActor
public func measureStall<Result>(
  settle: Duration = .milliseconds(250), catchUp: Duration = .milliseconds(100),
  _ work: @MainActor () async throws -> Result
) async throws -> (result: Result, stall: Stall) {
  let ticker = FrameTicker()
  ticker.start()
  try await Task.sleep(for: settle)
  let result = try await work()
  try await Task.sleep(for: catchUp)
  return (result, ticker.stop())
}

/// `duration` in whole milliseconds, rounded.
public func milliseconds(_ duration: Duration) -> Int {
  Int((duration / .milliseconds(1)).rounded())
}
