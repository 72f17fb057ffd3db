import Foundation

/// Where a learner is with one exercise.
enum ExerciseState: Sendable, Equatable {
  /// The sources are the starter's, untouched.
  case notStarted
  /// Edited, and never checked.
  case editedNotChecked
  /// Edited since the last check (which passed or not).
  case changedSinceCheck(lastPassed: Bool)
  /// The last check, of exactly these sources, failed.
  case failing
  /// The last check, of exactly these sources, passed.
  case done

  /// The state from the sources' current hash, the starter's hash and the last check.
  static func of(currentHash: String, starterHash: String?, lastCheck: CheckRecord?) -> ExerciseState {
    let checkedAsIs = lastCheck?.sourceHash == currentHash
    // The untouched starter is "not started" even after a (failing) check: there is nothing to fix yet.
    if currentHash == starterHash && !(checkedAsIs && lastCheck?.passed == true) { return .notStarted }
    if let lastCheck, checkedAsIs { return lastCheck.passed ? .done : .failing }
    if let lastCheck { return .changedSinceCheck(lastPassed: lastCheck.passed) }
    return starterHash == nil ? .notStarted : .editedNotChecked
  }

  var label: String {
    switch self {
    case .notStarted: return "not started"
    case .editedNotChecked: return "edited, not checked yet"
    case .changedSinceCheck: return "changed since last check"
    case .failing: return "failing"
    case .done: return "done"
    }
  }

  var isInProgress: Bool {
    switch self {
    case .editedNotChecked, .changedSinceCheck, .failing: return true
    case .notStarted, .done: return false
    }
  }
}

/// One exercise's line in the status.
struct ExerciseStatus: Sendable, Equatable {
  let exercise: Exercise
  let state: ExerciseState
  /// When `workshop check` last checked it, if ever.
  var lastChecked: Date? = nil
}

/// Everything `workshop status` shows, computed from the checkout and the progress file (nothing is built).
struct StatusReport: Sendable, Equatable {
  enum Exercises: Sendable, Equatable {
    case notInCheckout
    /// The exercise list, or the stage list it depends on, cannot be used: the error, which names the file.
    case malformed(String)
    case listed([ExerciseStatus])
  }

  let stages: [StageAvailability]
  let exercises: Exercises
  let progressWarning: String?
  /// The progress with baselines added for exercises seen for the first time (nil when nothing changed).
  let updatedProgress: WorkshopProgress?

  static func compute(root: URL) -> StatusReport {
    let stages: [StageAvailability]
    let manifest: [Exercise]
    do {
      // Without the stage list, neither the stages nor the exercises (which belong to stages) can be shown.
      stages = StageAvailability.survey(root: root, stages: try StageCatalog.load(root: root))
    } catch {
      return StatusReport(stages: [], exercises: .malformed(String(describing: error)), progressWarning: nil, updatedProgress: nil)
    }
    do {
      guard let loaded = try ExerciseManifest.load(root: root) else {
        return StatusReport(stages: stages, exercises: .notInCheckout, progressWarning: nil, updatedProgress: nil)
      }
      manifest = loaded
    } catch {
      return StatusReport(stages: stages, exercises: .malformed(String(describing: error)), progressWarning: nil, updatedProgress: nil)
    }
    let store = ProgressStore(root: root)
    var (progress, warning) = store.load()
    let (statuses, changed) = statuses(of: manifest, root: root, progress: &progress)
    return StatusReport(stages: stages, exercises: .listed(statuses), progressWarning: warning, updatedProgress: changed ? progress : nil)
  }

  /// Where each exercise of `manifest` stands, from its sources and `progress` (to which baselines are
  /// added for exercises seen for the first time; `changed` says whether any was).
  static func statuses(of manifest: [Exercise], root: URL, progress: inout WorkshopProgress) -> (
    statuses: [ExerciseStatus], changed: Bool
  ) {
    let hashes = Dictionary(uniqueKeysWithValues: manifest.map { ($0.id, SourceHasher.hash(of: $0.sources, root: root)) })
    let changed = progress.recordBaselines(for: manifest, hashes: hashes)
    let statuses = manifest.map { exercise in
      ExerciseStatus(
        exercise: exercise,
        state: .of(
          currentHash: hashes[exercise.id] ?? "",
          starterHash: exercise.starterHash ?? progress[exercise.id].starterHash,
          lastCheck: progress[exercise.id].lastCheck),
        lastChecked: progress[exercise.id].lastCheck?.date)
    }
    return (statuses, changed)
  }

  /// The exercise the learner is on, for commands that take one (`hint`): see ``current``; nil when every
  /// one is done.
  static func currentExercise(of manifest: [Exercise], root: URL) -> Exercise? {
    var progress = ProgressStore(root: root).load().progress
    return current(in: statuses(of: manifest, root: root, progress: &progress).statuses)?.exercise
  }

  /// The exercise the learner is on, following their progress: the one they checked last, when it does not
  /// pass yet; else the first after it, in the list's order (coming round to the start), that is not done.
  /// Before any exercise the learner changed has been checked: the first one in progress, else the first not
  /// started. Nil when every one is done or there is no list.
  var current: ExerciseStatus? {
    guard case .listed(let statuses) = exercises else { return nil }
    return Self.current(in: statuses)
  }

  /// The exercise of `statuses` the learner is on (see ``current``).
  static func current(in statuses: [ExerciseStatus]) -> ExerciseStatus? {
    // The learner's last check of an exercise they worked on. An untouched starter does not count: checking
    // every exercise at once checks those too, and the learner has not moved on to them.
    let worked = statuses.indices.compactMap { index -> (index: Int, date: Date)? in
      guard statuses[index].state != .notStarted, let date = statuses[index].lastChecked else { return nil }
      return (index, date)
    }
    // The latest; of checks made at the same moment, the one further down the list.
    guard let last = worked.max(by: { ($0.date, $0.index) < ($1.date, $1.index) })?.index else {
      return statuses.first { $0.state.isInProgress } ?? statuses.first { $0.state == .notStarted }
    }
    if statuses[last].state != .done { return statuses[last] }
    return (statuses[(last + 1)...] + statuses[..<last]).first { $0.state != .done }
  }

  /// The one thing to do next.
  var next: String {
    switch exercises {
    case .malformed(let message):
      // The message starts with the file's path (`<path> is malformed: …`).
      let file = [StageCatalog.path, ExerciseManifest.path].first { message.hasPrefix($0 + " ") } ?? "the file named above"
      return "Next: fix \(file) (or ask whoever wrote it), then run `swift run workshop` again."
    case .notInCheckout:
      if let demo = stages.first(where: \.hasDemo) {
        return "Next: read README.md, then run stage \(demo.stage.number)'s demo: `swift run workshop demo \(demo.stage.number)`."
      }
      return "Next: read README.md and Docs/, then run the tests with `swift test`."
    case .listed(let statuses) where statuses.isEmpty:
      return "Next: the exercise list is empty so far; read README.md and Docs/, and try a demo."
    case .listed(let statuses):
      guard let current else {
        return "All \(statuses.count) exercises are done. Next: compare your code with Exercises/Support/Proofs/Solutions/, or run a demo."
      }
      let exercise = current.exercise
      if Self.hasStarted(statuses) { return Self.nextWithWatch(exercise, state: current.state) }
      let check = "`swift run workshop check \(exercise.id)`"
      switch current.state {
      case .notStarted:
        let sources = exercise.sources.joined(separator: " and ")
        return "Next: read \(exercise.readmePath), edit \(sources), then run \(check)."
      case .editedNotChecked, .changedSinceCheck:
        return "Next: you changed \(exercise.id); run \(check) to see where it stands."
      case .failing, .done:
        return "Next: make \(exercise.id) pass (the task: \(exercise.readmePath)), run \(check) again; "
          + "stuck? `swift run workshop hint \(exercise.id)`."
      }
    }
  }

  /// Whether the learner has started on the exercises: changed a starter, or run a check.
  static func hasStarted(_ statuses: [ExerciseStatus]) -> Bool {
    statuses.contains { $0.state != .notStarted || $0.lastChecked != nil }
  }

  /// The next step once the learner has started: to work with `workshop watch` running, which checks the
  /// exercise at each save and moves on when it passes.
  private static func nextWithWatch(_ exercise: Exercise, state: ExerciseState) -> String {
    let watch = "`swift run workshop watch`"
    switch state {
    case .notStarted:
      let sources = exercise.sources.joined(separator: " and ")
      return "Next: read \(exercise.readmePath), then edit \(sources) with \(watch) running: it checks \(exercise.id) each time you save."
    case .editedNotChecked, .changedSinceCheck:
      return "Next: you changed \(exercise.id); run \(watch) to see where it stands, and again each time you save."
    case .failing, .done:
      return "Next: make \(exercise.id) pass (the task: \(exercise.readmePath)) with \(watch) checking each save; "
        + "stuck? `swift run workshop hint \(exercise.id)`."
    }
  }

  /// The text, line by line.
  func render(style: Style) -> [String] {
    var lines = [style.bold("Core Data stack workshop") + ": build a Core Data stack you can defend, one stage at a time.", ""]
    let statuses: [ExerciseStatus]
    if case .listed(let listed) = exercises { statuses = listed } else { statuses = [] }
    let titleWidth = stages.map { $0.stage.title.count }.max() ?? 0
    let idWidth = statuses.map { $0.exercise.id.count }.max() ?? 0
    let exerciseTitleWidth = statuses.map { $0.exercise.title.count }.max() ?? 0

    func exerciseLine(_ status: ExerciseStatus) -> String {
      let (mark, label): (String, String)
      switch status.state {
      case .notStarted: (mark, label) = (style.dim("○"), style.dim(status.state.label))
      case .editedNotChecked, .changedSinceCheck: (mark, label) = (style.yellow("●"), style.yellow(status.state.label))
      case .failing: (mark, label) = (style.red("✗"), style.red(status.state.label))
      case .done: (mark, label) = (style.green("✓"), style.green(status.state.label))
      }
      let id = status.exercise.id.padding(toLength: idWidth, withPad: " ", startingAt: 0)
      let title = status.exercise.title.padding(toLength: exerciseTitleWidth, withPad: " ", startingAt: 0)
      return "    \(mark) \(id)  \(title)  \(label)"
    }

    for availability in stages {
      let stage = availability.stage
      let title = stage.title.padding(toLength: titleWidth, withPad: " ", startingAt: 0)
      var line = "  Stage \(stage.number)  \(title)  "
      if availability.isPresent {
        line += style.green("in this checkout")
        if availability.hasDemo { line += style.dim(" · demo: swift run workshop demo \(stage.number)") }
      } else {
        line += style.dim("not in this checkout yet")
      }
      lines.append(line)
      lines += statuses.filter { $0.exercise.stage == stage.number }.map(exerciseLine)
    }
    lines.append("")
    switch exercises {
    case .notInCheckout:
      lines.append("The exercises are not in this checkout yet.")
    case .malformed(let message):
      lines += message.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
    case .listed(let statuses):
      let done = statuses.filter { $0.state == .done }.count
      lines.append("Exercises: \(done) of \(statuses.count) done.")
    }
    if let progressWarning { lines.append(style.yellow("Note: ") + progressWarning) }
    lines.append(style.bold(next))
    return lines
  }
}
