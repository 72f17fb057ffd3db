import ArgumentParser
import Foundation
import Synchronization

#if canImport(Glibc)
  import Glibc
#elseif canImport(Musl)
  import Musl
#elseif canImport(Darwin)
  import Darwin
#endif

struct WatchCommand: ParsableCommand {
  static let configuration = CommandConfiguration(
    commandName: "watch",
    abstract: "Check the exercise you are on each time you save it, and move on to the next when it passes.",
    discussion: """
      Checks the exercise `swift run workshop` says you are on (as `workshop check` does, and records the \
      result the same way), then checks it again each time you save one of its files (its "sources" in \
      Exercises/exercises.json). When it passes, it moves on to the next exercise and watches that one; \
      when every exercise passes, it says so and ends. Ctrl-C stops it, and the check it is running.
      """
  )

  @OptionGroup var common: CommonOptions

  @Flag(help: "Check the exercise you are on once, and exit with the check's status.")
  var once = false

  @Flag(name: .shortAndLong, help: "Show swift test's full output as it runs.")
  var verbose = false

  /// Seconds between two looks at the files (tests make it short).
  @Option(help: .hidden)
  var interval: Double = 1

  func validate() throws {
    guard interval > 0 else { throw ValidationError("--interval must be a number of seconds above 0.") }
  }

  func run() throws {
    try withWorkshopEnvironment { environment in
      let root = try common.workspaceRoot(environment)
      let manifest = try requireExercises(root: root)
      guard !manifest.isEmpty else {
        environment.output.line("\(ExerciseManifest.path) lists no exercises yet: there is nothing to watch.")
        return
      }
      let checks = try CheckSession.prepared(environment: environment, root: root, manifest: manifest, verbose: verbose)
      let stop = StopRequest(runner: environment.runner)
      var session = WatchSession(checks: checks, interval: interval, stop: stop)
      if once {
        // For tests and scripts: one check, and Ctrl-C does what it does to `workshop check`.
        if case .checkedOnce(passed: false) = try session.run(once: true) { throw ExitCode.failure }
        return
      }
      let signals = StopSignals.install(stop)
      let end = try withExtendedLifetime(signals) { try session.run(once: false) }
      if case .stopped(let duringCheck) = end {
        if environment.output.isTerminal { environment.output.line() }
        environment.output.line(
          "Stopped watching" + (duringCheck ? ", and the check that was running." : "."))
      }
    }
  }
}

/// How a watch ended.
enum WatchEnd: Equatable {
  /// Every exercise passes.
  case allDone
  /// A stop was requested (Ctrl-C), while a check was running or not.
  case stopped(duringCheck: Bool)
  /// `--once`: the current exercise was checked once.
  case checkedOnce(passed: Bool)
}

/// A request to stop watching, from Ctrl-C or SIGTERM (or a test): it stops the check's `swift test`
/// through the runner and wakes the watch from its pause between two looks at the files.
final class StopRequest: Sendable {
  private let runner: any ProcessRunning
  private let requested = Atomic(false)
  private let wakeUp = DispatchSemaphore(value: 0)
  private let pauseCount = Atomic(0)

  init(runner: any ProcessRunning) {
    self.runner = runner
  }

  func request() {
    if !requested.exchange(true, ordering: .sequentiallyConsistent) { wakeUp.signal() }
    runner.stopRunning()
  }

  var isRequested: Bool { requested.load(ordering: .sequentiallyConsistent) }

  /// Waits `seconds`, or less if a stop is requested meanwhile; returns whether one is.
  func pause(_ seconds: Double) -> Bool {
    if !isRequested { _ = wakeUp.wait(timeout: .now() + seconds) }
    pauseCount.add(1, ordering: .sequentiallyConsistent)
    return isRequested
  }

  /// How many pauses the watch has made (tests wait on it: each pause is followed by a look at the files).
  var pauses: Int { pauseCount.load(ordering: .sequentiallyConsistent) }
}

/// Ctrl-C (SIGINT) and SIGTERM turned into a stop request, instead of their default, which ends the
/// process at once and leaves `swift test` running (Foundation starts it in a process group of its own,
/// which a Ctrl-C on the terminal does not reach).
enum StopSignals {
  /// Set by the process's own handler for a stop signal. libdispatch's signal source on Linux reads signals
  /// through a `signalfd` and installs a handler of its own to steer them there, but only a moment after the
  /// source starts: a signal that arrives before (under load, seconds can pass) runs this process's handler
  /// instead, and would be lost if that handler did nothing. It sets this flag, which a timer reads.
  static let caught = Atomic<Bool>(false)

  /// Installs the handling for as long as the returned sources live (`watch` keeps them to its end).
  static func install(_ stop: StopRequest) -> [any DispatchSourceProtocol] {
    // Unblocked in this thread, which starts `swift test`: a child gets its starter's blocked signals, and
    // a watch started by a program that blocks them (a test runner's thread) would start one that a
    // SIGINT does not stop.
    var signals = sigset_t()
    sigemptyset(&signals)
    sigaddset(&signals, SIGINT)
    sigaddset(&signals, SIGTERM)
    pthread_sigmask(SIG_UNBLOCK, &signals, nil)
    caught.store(false, ordering: .sequentiallyConsistent)
    let sources: [any DispatchSourceProtocol] = [SIGINT, SIGTERM].map { number in
      // The default action, which ends the process, is kept away first; the dispatch source still sees
      // the signal. By a handler rather than by SIG_IGN: a program started later gets the default back
      // (exec resets a handler), where it would keep "ignored", and a `swift test` started in the moment
      // before libdispatch puts its own handler in place (tried: one in fifty) would ignore the Ctrl-C sent
      // to it. The handler only stores to a lock-free atomic, which is safe in a signal handler.
      signal(number) { _ in StopSignals.caught.store(true, ordering: .sequentiallyConsistent) }
      let source = DispatchSource.makeSignalSource(signal: number, queue: .global())
      source.setEventHandler { stop.request() }
      source.resume()
      return source
    }
    // A signal the handler above caught is a stop request too: looked for ten times a second.
    let poll = DispatchSource.makeTimerSource(queue: .global())
    poll.schedule(deadline: .now() + .milliseconds(100), repeating: .milliseconds(100))
    poll.setEventHandler {
      if caught.load(ordering: .sequentiallyConsistent) && !stop.isRequested { stop.request() }
    }
    poll.resume()
    return sources + [poll]
  }
}

/// The watch loop: check the exercise the learner is on, wait for a save to its files, check again; move
/// on when it passes; end when every exercise passes or a stop is requested.
struct WatchSession {
  private var checks: CheckSession
  let interval: Double
  let stop: StopRequest

  init(checks: CheckSession, interval: Double, stop: StopRequest) {
    self.checks = checks
    self.interval = interval
    self.stop = stop
    self.checks.saysNext = false
    self.checks.isStopped = { [stop] in stop.isRequested }
  }

  private var root: URL { checks.root }
  private var manifest: [Exercise] { checks.manifest }
  private var output: Output { checks.environment.output }
  private var style: Style { checks.environment.style }

  /// Why a check runs.
  private enum Reason {
    case start
    case movedOn
    case saved([String])
  }

  /// How long to wait for a change to settle: an editor's second write comes within milliseconds.
  private var settleDelay: Double { min(interval, 0.25) }

  mutating func run(once: Bool) throws -> WatchEnd {
    var statuses = currentStatuses()
    guard var exercise = StatusReport.current(in: statuses)?.exercise else { return allDone(statuses) }
    if !once { output.line(style.dim("Watching: each save checks the exercise again, and a pass moves on to the next. Ctrl-C stops.")) }
    var reason = Reason.start
    while true {
      showHeader(exercise, reason: reason, statuses: statuses)
      // From the files as they are before the check: a save during the check is a change, checked after it.
      var changes = SourceChanges(sources: exercise.sources, root: root)
      let passed = try checks.check([exercise])
      if stop.isRequested { return .stopped(duringCheck: true) }
      statuses = currentStatuses()
      if passed {
        guard let next = StatusReport.current(in: statuses)?.exercise else {
          let end = allDone(statuses)
          return once ? .checkedOnce(passed: true) : end
        }
        if next.id == exercise.id {
          // It changed during the check, which checked it as it was: check it as it is.
          reason = .saved(changes.changedSinceCheck)
          continue
        }
        showMovingOn(from: exercise, to: next, statuses: statuses)
        if once { return .checkedOnce(passed: true) }
        (exercise, reason) = (next, .movedOn)
        continue
      }
      if once { return .checkedOnce(passed: false) }
      // The package does not build because of other exercises' files: a save there may unblock this one.
      if case .blocked(let owners) = checks.outcomes[exercise.id] {
        changes.include(manifest.filter { owners.contains($0.id) }.flatMap(\.sources))
      }
      output.line(style.dim("Watching \(changes.sources.joined(separator: ", ")): save to check again; Ctrl-C stops."))
      guard let saved = waitForSave(&changes) else { return .stopped(duringCheck: false) }
      reason = .saved(saved)
    }
  }

  /// Waits for a save to the files `changes` watches: the files it changed, or nil when a stop was requested.
  private func waitForSave(_ changes: inout SourceChanges) -> [String]? {
    var delay = interval
    while !stop.pause(delay) {
      switch changes.scan() {
      case .unchanged: delay = interval
      case .changing: delay = settleDelay
      case .saved(let paths): return paths
      }
    }
    return nil
  }

  private func currentStatuses() -> [ExerciseStatus] {
    var progress = ProgressStore(root: root).load().progress
    return StatusReport.statuses(of: manifest, root: root, progress: &progress).statuses
  }

  /// Where the learner is, and which exercise is checked: on a terminal, a save's check starts on a clear
  /// screen; elsewhere (and after a pass, whose message stays in view) a rule separates the checks.
  private func showHeader(_ exercise: Exercise, reason: Reason, statuses: [ExerciseStatus]) {
    switch reason {
    case .start:
      break
    case .movedOn:
      output.line(style.dim(Self.rule))
    case .saved:
      if output.isTerminal { output.write("\u{1B}[H\u{1B}[2J", .standardOutput) } else { output.line(style.dim(Self.rule)) }
    }
    output.line(progressLine(statuses))
    let number = (manifest.firstIndex(of: exercise) ?? 0) + 1
    output.line(style.bold("Exercise \(number) of \(manifest.count): \(exercise.title)") + " (\(exercise.id))")
    if case .saved(let paths) = reason, !paths.isEmpty {
      output.line(style.dim("Saved: \(paths.joined(separator: ", "))"))
    }
  }

  static let rule = String(repeating: "─", count: 60)

  /// `Exercises: [███░░░░░░░░░░] 3 of 13 done`: a cell an exercise, up to 20 cells.
  private func progressLine(_ statuses: [ExerciseStatus]) -> String {
    let done = statuses.filter { $0.state == .done }.count
    return "Exercises: " + Self.bar(done: done, of: statuses.count, style: style) + " \(done) of \(statuses.count) done"
  }

  static func bar(done: Int, of total: Int, style: Style) -> String {
    let width = min(total, 20)
    let filled = total == 0 ? 0 : done * width / total
    let cells = filled > 0 ? style.green(String(repeating: "█", count: filled)) : ""
    return "[" + cells + String(repeating: "░", count: width - filled) + "]"
  }

  private func showMovingOn(from exercise: Exercise, to next: Exercise, statuses: [ExerciseStatus]) {
    let done = statuses.filter { $0.state == .done }.count
    let number = (manifest.firstIndex(of: next) ?? 0) + 1
    output.line(
      style.green("Done: ") + "\(exercise.id) passes, and the workshop has recorded it (\(done) of \(manifest.count) done). "
        + "Next: exercise \(number), \(next.title); the task is in \(next.readmePath).")
  }

  private func allDone(_ statuses: [ExerciseStatus]) -> WatchEnd {
    output.line(progressLine(statuses))
    output.line(style.bold(StatusReport.compute(root: root).next))
    return .allDone
  }
}
