import Foundation
internal import Synchronization

/// Says once per process that a debug switch is on, as Core Data prints "Core Data multi-threading
/// assertions enabled." under its concurrency-debug argument: a learner who turned a switch on (or forgot
/// it on) sees it at once, before any output it changes. Concurrency debugging is announced when the
/// first context is made while it is on; SQL debugging just before the first statement it logs.
///
/// ```
/// ObjectGraph: concurrency debugging is on: touching a context or its objects off its queue stops the program, naming the rule broken.
/// ObjectGraph: SQL debugging is on: every statement a store runs is logged to standard error, with its time.
/// ```
enum DebugBanner {
  /// Bit 0: concurrency debugging announced; bit 1: SQL debugging announced.
  private static let announced = Atomic<Int>(0)

  static let concurrencyLine =
    "ObjectGraph: concurrency debugging is on: touching a context or its objects off its queue stops the program, naming the rule broken."
  static let sqlLine = "ObjectGraph: SQL debugging is on: every statement a store runs is logged to standard error, with its time."

  /// Called for every new context: when concurrency debugging is off, it costs one atomic read.
  static func announceSwitchesOn() {
    if ConcurrencyDebug.isEnabled, claim(bit: 1) {
      FileHandle.standardError.write(Data((concurrencyLine + "\n").utf8))
    }
  }

  /// Called before each SQL log line: the first time, the SQL banner goes first, where the log goes.
  static func announceSQLLog() {
    if claim(bit: 2) {
      SQLDebug.write(line: SQLDebug.logHandler == nil ? sqlLine : sqlLine.replacingOccurrences(of: " to standard error", with: ""))
    }
  }

  /// Whether this call is the first to announce `bit`.
  private static func claim(bit: Int) -> Bool {
    guard announced.load(ordering: .relaxed) & bit == 0 else { return false }
    return announced.bitwiseOr(bit, ordering: .relaxed).oldValue & bit == 0
  }
}
