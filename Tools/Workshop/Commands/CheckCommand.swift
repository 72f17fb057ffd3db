import ArgumentParser
import Foundation

struct CheckCommand: ParsableCommand {
  static let configuration = CommandConfiguration(
    commandName: "check",
    abstract: "Check your exercises with `swift test` (all of them, or the one named) and explain what fails.",
    discussion: """
      Runs `swift test --package-path Exercises --scratch-path .build --filter '^<test target>\\.'` for \
      each exercise (in the workspace's own build folder, so that the engine a `swift build` compiled is \
      reused), records the result in .workshop/progress.json, and prints the failing expectations' \
      messages. The exit status is non-zero when an exercise fails.
      """
  )

  @OptionGroup var common: CommonOptions

  @Argument(help: "The exercise: its id, or its number (e.g. 01). All exercises when omitted.")
  var exercise: String?

  @Flag(name: .shortAndLong, help: "Show swift test's full output as it runs.")
  var verbose = false

  func run() throws {
    try withWorkshopEnvironment { environment in
      let root = try common.workspaceRoot(environment)
      let manifest = try requireExercises(root: root)
      let selected = try exercise.map { [try ExerciseManifest.select($0, from: manifest)] } ?? manifest
      guard !selected.isEmpty else {
        environment.output.line("\(ExerciseManifest.path) lists no exercises yet: there is nothing to check.")
        return
      }
      var session = try CheckSession.prepared(environment: environment, root: root, manifest: manifest, verbose: verbose)
      if !(try session.check(selected)) { throw ExitCode.failure }
    }
  }
}

/// One `workshop check`: runs the exercises' tests one exercise at a time (the first run builds, the
/// others reuse the build), records each result as soon as it is known, and explains it.
struct CheckSession {
  let environment: WorkshopEnvironment
  let root: URL
  let swift: String
  let manifest: [Exercise]
  let verbose: Bool
  /// Whether a check that passes ends with what `swift run workshop` says to do next (`watch` says its own).
  var saysNext = true
  /// Whether the check was stopped (`watch`, on Ctrl-C): the run it stopped is neither recorded nor explained.
  var isStopped: @Sendable () -> Bool = { false }
  /// What the check found for each exercise it reported on, by id.
  private(set) var outcomes: [String: CheckOutcome] = [:]
  private let store: ProgressStore

  init(environment: WorkshopEnvironment, root: URL, swift: String, manifest: [Exercise], verbose: Bool) {
    self.environment = environment
    self.root = root
    self.swift = swift
    self.manifest = manifest
    self.verbose = verbose
    store = ProgressStore(root: root)
  }

  /// A session, once what a check needs is there: the exercises' package, SQLite's headers, `swift`.
  static func prepared(environment: WorkshopEnvironment, root: URL, manifest: [Exercise], verbose: Bool) throws -> CheckSession {
    guard FileManager.default.fileExists(atPath: root.appendingPathComponent(ExerciseManifest.packagePath).path) else {
      throw WorkshopError.exercisesPackageMissing(ExerciseManifest.packagePath)
    }
    try Prerequisites.require(environment)
    let swift = try ExecutableLocator.swift(in: environment)
    return CheckSession(environment: environment, root: root, swift: swift, manifest: manifest, verbose: verbose)
  }

  private var output: Output { environment.output }
  private var style: Style { environment.style }

  /// Checks `selected`; true when every one passes.
  mutating func check(_ selected: [Exercise]) throws -> Bool {
    // Read when the check starts (`watch` checks again and again: the file may have changed since).
    var progress = store.load().progress
    let hashes = Dictionary(uniqueKeysWithValues: manifest.map { ($0.id, SourceHasher.hash(of: $0.sources, root: root)) })
    if progress.recordBaselines(for: manifest, hashes: hashes) { try store.save(progress) }

    var passed = 0
    var built = false
    // A manifest cached by an earlier check may list other exercises than exercises.json does now (after
    // a pull): this check's first run compiles the manifest again, and its other runs reuse that one.
    try? FileManager.default.removeItem(at: Self.manifestCache(root: root))
    if !environment.fileExists(Self.builtEngine(root: root).path) {
      output.line(style.dim(Self.firstBuildNote))
    }
    for (index, exercise) in selected.enumerated() {
      let hash = SourceHasher.hash(of: exercise.sources, root: root)
      let (status, report) = try runTests(of: exercise, skipBuild: built)
      if isStopped() { return false }
      if !report.compileErrors.isEmpty {
        try reportBuildFailure(report.compileErrors, checking: Array(selected[index...]))
        break
      }
      built = built || report.buildSucceeded || report.testsRun > 0
      let outcome = CheckOutcome.of(status: status, report: report)
      try record(outcome, for: exercise, hash: hash)
      outcomes[exercise.id] = outcome
      for line in CheckExplanation.lines(for: exercise, outcome: outcome, style: style) { output.line(line) }
      if outcome.isPassed { passed += 1 }
    }

    if selected.count > 1 {
      output.line()
      output.line("\(passed) of \(selected.count) exercises pass.")
    }
    if passed == selected.count && saysNext {
      output.line(style.bold(StatusReport.compute(root: root).next))
    }
    return passed == selected.count
  }

  /// The build folder the exercises package builds in: the workspace's own, `.build`. The exercises depend
  /// on the workspace's package, and SwiftPM compiles its modules (the engine, the tutorial's model, the
  /// tests' scaffolding) with the same commands in both packages, so in one build folder neither package's
  /// build redoes the other's: a check after `swift build --build-tests` compiles only the exercises, and a
  /// `swift build` after a first check reuses the engine that check compiled. In a folder of its own
  /// (`Exercises/.build`, SwiftPM's default) the first check compiled the whole engine again.
  static let scratchPath = ".build"

  /// SwiftPM's manifest cache in the shared build folder (`--manifest-cache local`). The exercises
  /// package's manifest reads Exercises/exercises.json, which no manifest cache watches, so a check
  /// removes it first; its runs then compile the manifest once instead of once each (about 1.3 s saved a
  /// run: 13 exercises, 17 s of a first check).
  static func manifestCache(root: URL) -> URL {
    root.appendingPathComponent(scratchPath).appendingPathComponent("manifest.db")
  }

  /// The engine's compiled module in the shared build folder: when it is missing, the first check builds
  /// the engine too.
  static func builtEngine(root: URL) -> URL {
    root.appendingPathComponent(scratchPath).appendingPathComponent("debug/Modules/ObjectGraph.swiftmodule")
  }

  /// Said before a check that has to build the engine: what takes the time, and that it happens once.
  /// Measured on 2 cores (Benchmarks/BUILD-TIMES.md): a fresh clone's first `swift run workshop check`, the
  /// engine included, took 146 s (busy); one after `swift build --build-tests`, 25.8 s.
  static let firstBuildNote =
    "  The engine is not built yet: this first check builds it, then the exercises (two to three minutes on two cores, once; later checks and `swift build` reuse that build)."

  private func record(_ outcome: CheckOutcome, for exercise: Exercise, hash: String) throws {
    guard let result = outcome.record else { return }
    // Read again: a check can take minutes, and another command (`hint`) may have saved the file meanwhile.
    var progress = store.load().progress
    progress[exercise.id].lastCheck = CheckRecord(
      passed: result.passed, sourceHash: hash, date: environment.now(), failures: result.failures)
    try store.save(progress)
  }

  private mutating func reportBuildFailure(_ errors: [CompileError], checking: [Exercise]) throws {
    let outcomes = CheckOutcome.buildFailure(errors, checking: checking, manifest: manifest)
    // An exercise whose files do not compile fails, whether it was asked for or not: a check would find so.
    for exercise in manifest {
      let own = errors.filter { exercise.owns($0.path) }
      guard let outcome = own.isEmpty ? outcomes[exercise.id] : .doesNotCompile(own) else { continue }
      if !own.isEmpty { try record(outcome, for: exercise, hash: SourceHasher.hash(of: exercise.sources, root: root)) }
      self.outcomes[exercise.id] = outcome
      for line in CheckExplanation.lines(for: exercise, outcome: outcome, style: style) { output.line(line) }
    }
    let elsewhere = errors.filter { error in !manifest.contains { $0.owns(error.path) } }
    if !elsewhere.isEmpty {
      output.line(style.red("✗ ") + style.bold("The exercises package does not build:"))
      for line in CheckExplanation.compileErrorLines(elsewhere, style: style, exerciseID: nil) { output.line(line) }
    }
  }

  /// Runs `swift test` for one exercise, showing a progress line (or, with --verbose, everything).
  private func runTests(of exercise: Exercise, skipBuild: Bool) throws -> (Int32, TestRunReport) {
    // The manifest is cached in the build folder only for the length of this check (see
    // `manifestCache(root:)`): SwiftPM's shared cache does not watch Exercises/exercises.json, and after a
    // pull that adds an exercise, a manifest cached there would leave its checks out.
    var arguments = [
      "test", "--package-path", root.appendingPathComponent("Exercises").path, "--scratch-path",
      root.appendingPathComponent(Self.scratchPath).path, "--manifest-cache", "local", "--filter", exercise.testFilter,
    ]
    if skipBuild { arguments.append("--skip-build") }
    var parser = TestOutputParser(root: root.path)
    var progressLine = ProgressLine(output: output, enabled: output.isTerminal && !verbose)
    let start = "Checking \(exercise.id)"
    if progressLine.enabled {
      progressLine.show(start + "…")
    } else {
      output.line(style.dim("\(start) (swift test --filter \(exercise.testTarget))…"))
    }
    var saidBuilding = false
    let status = try environment.runner.run(swift, arguments: arguments, in: root) { line in
      parser.consume(line)
      if verbose { output.line(line) }
      switch parser.phase {
      case .building(let step, let total):
        progressLine.show("\(start): building [\(step)/\(total)]")
        // Without a terminal there is no line to redraw: say once that a build is on, so a first check that
        // builds for a minute or two does not look hung. SwiftPM's first steps (`[0/1] Planning build`,
        // `[1/1] Compiling plugin …`) come before it knows the build's size: they are not the build.
        if !progressLine.enabled && !verbose && !saidBuilding && Self.isBuildStep(line) {
          saidBuilding = true
          // A build of a few steps (SwiftPM's planning, the learner's one file) is quick: no warning of minutes.
          let steps = "\(total) step\(total == 1 ? "" : "s")"
          output.line(
            style.dim(
              total > Self.smallBuildSteps
                ? "  building the exercises package first (\(steps); the first build takes a minute or two)…"
                : "  building the exercises package (\(steps))…"))
        }
      case .testing(let finished, let failed):
        progressLine.show("\(start): running tests, \(finished) finished" + (failed > 0 ? ", \(failed) failed" : ""))
      case nil:
        // Before the build: SwiftPM fetching and resolving the packages the exercises use.
        if !verbose, let note = Self.setupNote(line) {
          if progressLine.enabled { progressLine.show("\(start): \(note)") } else { output.line(style.dim("  \(note)")) }
        }
      }
    }
    progressLine.clear()
    return (status, parser.report)
  }

  /// Builds of at most this many steps are small: measured, a check with nothing to build plans 6 steps and one
  /// after an edit to one exercise about 9, while the exercises' first build plans about 100 (the engine
  /// reused from the workspace's build) and a build with the engine about 600.
  static let smallBuildSteps = 20

  /// A numbered step of the build itself (`[2/101] Write sources`), not one of SwiftPM's planning and plugin
  /// steps (`[0/1] Planning build`, `[1/1] Compiling plugin …`), numbered before the build's size is known,
  /// nor a line that follows a step.
  static func isBuildStep(_ line: String) -> Bool {
    line.hasPrefix("[") && !line.hasSuffix("] Planning build") && !line.contains("] Compiling plugin ")
  }

  /// A line of SwiftPM's package setup worth showing while nothing else moves (fetching, cloning,
  /// resolving), or nil.
  static func setupNote(_ line: String) -> String? {
    let text = line.trimmingCharacters(in: .whitespaces)
    let prefixes = [
      "Fetching ", "Fetched ", "Cloning ", "Cloned ", "Computing version", "Computed ", "Resolving ", "Updating ", "Creating working copy",
    ]
    return prefixes.contains { text.hasPrefix($0) } ? text : nil
  }
}

/// A status line redrawn in place on a terminal (and nothing elsewhere).
struct ProgressLine {
  let output: Output
  let enabled: Bool
  private var current = ""

  init(output: Output, enabled: Bool) {
    self.output = output
    self.enabled = enabled
  }

  mutating func show(_ text: String) {
    guard enabled, text != current else { return }
    current = text
    let short = text.count > 76 ? String(text.prefix(75)) + "…" : text
    output.write("\r\u{1B}[2K" + short, .standardOutput)
  }

  mutating func clear() {
    guard enabled, !current.isEmpty else { return }
    current = ""
    output.write("\r\u{1B}[2K", .standardOutput)
  }
}
