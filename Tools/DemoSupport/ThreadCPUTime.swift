import Foundation

/// The CPU time the calling thread has used so far (`CLOCK_THREAD_CPUTIME_ID`).
///
/// A demo reads it before and after a call to tell the work the call did on this thread from the time
/// the thread spent waiting: for a lock, or for a core while other threads ran. On a phone the main
/// thread runs at a higher priority than background work; on a Linux machine with two cores every
/// thread has the same priority, so a thread the call wakes can take the core the call was running on.
public enum ThreadCPUTime {
  /// The calling thread's CPU time so far; `.zero` where the clock cannot be read.
  public static func now() -> Duration {
    var time = timespec()
    guard clock_gettime(CLOCK_THREAD_CPUTIME_ID, &time) == 0 else { return .zero }
    return .seconds(time.tv_sec) + .nanoseconds(time.tv_nsec)
  }
}
