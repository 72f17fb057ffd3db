import TestSupport
import Testing

/// One exercise's check, run in a child process of its own so that code which stops the process
/// (`fatalError()`, `try!`) or never returns (a `DispatchQueue.main.sync` on the main queue) fails that one
/// check with an explanation, instead of ending or hanging the whole run.
///
/// Each exercise's checks are an enum conforming to this protocol. The exit tests themselves stay in the
/// exercise's test file, where Swift Testing needs them (they cannot live in a generic function): each file
/// has a short `runInChildProcess(_:)` that calls ``ChildProcess/run(_:in:recordingErrors:sourceLocation:)``
/// inside its two exit tests and ``ChildProcess/reportStop(_:)`` after them.
public protocol ChildProcessCheck: Sendable {
  /// Runs the check; a thrown error fails it.
  func run() throws

  /// What to say when the check has not finished after ``ChildProcess/watchdogLimit``, ending its process;
  /// `nil` (the default) starts no watchdog.
  var hangReport: String? { get }
}

extension ChildProcessCheck {
  /// No watchdog: the check's code cannot wait for itself.
  public var hangReport: String? { nil }
}

/// What the exercises' child-process checks share: the body each exit test runs, the watchdog, and the report
/// of a process that stopped.
public enum ChildProcess {
  /// How long a check may run before its watchdog ends the process.
  public static let watchdogLimit = Duration.seconds(25)

  /// Runs `check` in the child process (call it as an exit test's body): starts the watchdog when the check
  /// has a ``ChildProcessCheck/hangReport``, then runs the check with `scope` as the scope of the
  /// `TemporaryFolder`s it makes. A thrown error is recorded as an issue at `sourceLocation`, unless
  /// `recordingErrors` is false (the second run, which only collects what a stopping process printed).
  public static func run(
    _ check: some ChildProcessCheck, in scope: TemporaryFolder, recordingErrors: Bool = true,
    sourceLocation: SourceLocation = #_sourceLocation
  ) {
    if let report = check.hangReport {
      Watchdog.endProcess(after: watchdogLimit) { report }
    }
    do {
      try scope.withScope { try check.run() }
    } catch {
      if recordingErrors { Issue.record(error, sourceLocation: sourceLocation) }
    }
  }

  /// Records what a stopped check's process wrote to standard error (``stopReport(standardError:)``), given
  /// the result of the exit test that ran it again expecting it to stop; nothing when that exit test failed
  /// (it has recorded its own issue).
  public static func reportStop(_ stopped: ExitTest.Result?, sourceLocation: SourceLocation = #_sourceLocation) {
    guard let stopped else { return }
    Issue.record(Comment(rawValue: stopReport(standardError: stopped.standardErrorContent)), sourceLocation: sourceLocation)
  }
}
