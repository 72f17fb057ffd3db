import Foundation
import Synchronization
import Testing

@testable import Workshop

#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

/// A watch session running on a thread of its own, as `workshop watch` runs it, with a fake `swift test`
/// and a stop the test requests.
final class BackgroundWatch: Sendable {
  let recorder = OutputRecorder()
  let stop: StopRequest
  private let end = Mutex<Result<WatchEnd, any Error>?>(nil)

  init(repo: TempRepo, runner: any ProcessRunning) throws {
    var environment = testEnvironment(recorder)
    environment.runner = runner
    stop = StopRequest(runner: runner)
    let manifest = try #require(try ExerciseManifest.load(root: repo.root))
    let checks = try CheckSession.prepared(environment: environment, root: repo.root, manifest: manifest, verbose: false)
    let session = WatchSession(checks: checks, interval: 0.01, stop: stop)
    Thread.detachNewThread { [self] in
      var session = session
      let result = Result { try session.run(once: false) }
      end.withLock { $0 = result }
    }
  }

  /// How the watch ended, once it has (nil if it has not within the deadline).
  func ended(within seconds: Double = 60) throws -> WatchEnd? {
    guard eventually(within: seconds, { end.withLock { $0 != nil } }) else { return nil }
    return try end.withLock { $0 }?.get()
  }

  /// Waits for `count` more looks at the files (a pause comes before each).
  func waitForScans(_ count: Int) -> Bool {
    let target = stop.pauses + count + 1
    return eventually { stop.pauses >= target }
  }

  var output: String { recorder.standardOutput }
}

/// A `swift test` that runs until it is stopped, as a long build would.
final class BlockingRunner: ProcessRunning {
  private let state = Mutex((running: false, stopped: false))
  private let released = DispatchSemaphore(value: 0)

  var isRunning: Bool { state.withLock { $0.running } }

  func run(_ executable: String, arguments: [String], in directory: URL, onLine: (String) -> Void) throws -> Int32 {
    state.withLock { $0.running = true }
    onLine("[3/120] Compiling Exercise01 Model.swift")
    released.wait()
    state.withLock { $0.running = false }
    return FoundationProcessRunner.stoppedStatus
  }

  func runAttached(_ executable: String, arguments: [String], in directory: URL) throws -> Int32 { 0 }

  func stopRunning() {
    let first = state.withLock { state in
      defer { state.stopped = true }
      return !state.stopped
    }
    if first { released.signal() }
  }
}

@Suite("Watch: each save checks the current exercise again")
struct WatchTests {
  static let model = "Exercises/01-model-not-found/Sources/Model.swift"
  static let save = "Exercises/02-errors-not-abort/Sources/Save.swift"

  /// The `--filter` of each `swift test` the runner was asked for: which exercise each check checked.
  private func checked(_ runner: FakeRunner) -> [String] {
    runner.calls.map { call in call.arguments.firstIndex(of: "--filter").map { call.arguments[$0 + 1] } ?? "" }
  }

  private static let fails01 = #"^Exercise01Tests\."#
  private static let fails02 = #"^Exercise02Tests\."#

  // MARK: Noticing saves

  @Test("One save is one change, even written twice; no save, no change; a new or removed file is a change")
  func changesSettleBeforeTheyCount() throws {
    try TempRepo.with { repo in
      try repo.addExercises()
      var changes = SourceChanges(sources: ["Exercises/01-model-not-found/Sources"], root: repo.root)
      #expect(changes.scan() == .unchanged)
      #expect(changes.scan() == .unchanged)

      // An editor's save: the file, then again (its sizes differ, so that the file system's clock cannot hide one).
      try repo.write(Self.model, "let name = \"DataModel\"\n")
      #expect(changes.scan() == .changing)
      try repo.write(Self.model, "let name = \"DataModel\" // saved again\n")
      #expect(changes.scan() == .changing, "still changing: not yet a save")
      #expect(changes.changedSinceCheck == [Self.model])
      #expect(changes.scan() == .saved([Self.model]), "the same for a whole scan: one save")
      #expect(changes.scan() == .unchanged, "and only one")

      try repo.write("Exercises/01-model-not-found/Sources/New.swift", "let new = 1\n")
      #expect(changes.scan() == .changing)
      #expect(changes.scan() == .saved(["Exercises/01-model-not-found/Sources/New.swift"]))
      try FileManager.default.removeItem(at: repo.root.appendingPathComponent("Exercises/01-model-not-found/Sources/New.swift"))
      #expect(changes.scan() == .changing)
      #expect(changes.scan() == .saved(["Exercises/01-model-not-found/Sources/New.swift"]))

      // Another exercise's files are not watched, until they are included; including them is no change.
      try repo.write(Self.save, "func save() throws {}\n")
      #expect(changes.scan() == .unchanged)
      changes.include(["Exercises/02-errors-not-abort/Sources"])
      #expect(changes.scan() == .unchanged)
      try repo.write(Self.save, "func save() throws { try context.save() }\n")
      #expect(changes.scan() == .changing)
      #expect(changes.scan() == .saved([Self.save]))
    }
  }

  // MARK: The loop

  @Test("It checks the current exercise at once; a save checks it once more; no save, no check")
  func aSaveChecksAgainOnce() throws {
    try TempRepo.with { repo in
      try repo.addExercises(starterHashes: true)
      let runner = FakeRunner { _ in (CommandTests.failingOutput, 1) }
      let watch = try BackgroundWatch(repo: repo, runner: runner)
      #expect(eventually { runner.calls.count == 1 })
      #expect(watch.waitForScans(20))
      #expect(runner.calls.count == 1, "nothing was saved: no check")

      try repo.write(Self.model, "let name = \"Data\"\n")
      #expect(eventually { runner.calls.count == 2 })
      #expect(watch.waitForScans(20))
      #expect(runner.calls.count == 2, "one save, one check")
      #expect(checked(runner) == [Self.fails01, Self.fails01])

      watch.stop.request()
      #expect(try watch.ended() == .stopped(duringCheck: false))
      let output = watch.output
      #expect(output.hasPrefix("Watching: each save checks the exercise again"), "\(output)")
      #expect(output.contains("Saved: \(Self.model)\n"), "\(output)")
      #expect(output.contains("Watching Exercises/01-model-not-found/Sources: save to check again; Ctrl-C stops.\n"), "\(output)")
      #expect(output.contains("\n" + WatchSession.rule + "\n"), "without a terminal, a rule separates the checks")
      #expect(!output.contains("\u{1B}["), "and the screen is not cleared")
      // The checks are `workshop check`'s: its words, its record.
      #expect(output.components(separatedBy: "✗ 01-model-not-found: 1 of 2 tests failed").count == 3, "\(output)")
      #expect(repo.progress()["01-model-not-found"].lastCheck?.passed == false)
    }
  }

  @Test("Files saved during a check (twice, as editors do) are checked once more after it")
  func aSaveDuringACheckIsCheckedAfterIt() throws {
    try TempRepo.with { repo in
      try repo.addExercises(starterHashes: true)
      let model = repo.root.appendingPathComponent(Self.model)
      let runner = FakeRunner { _ in
        if (try? String(contentsOf: model, encoding: .utf8)) == "let name = \"Model\"\n" {
          // The learner saves while the first check runs (the starter is still there only then).
          try? Data("let name = \"Data\"\n".utf8).write(to: model)
          try? Data("let name = \"DataModel\"\n".utf8).write(to: model)
        }
        return (CommandTests.failingOutput, 1)
      }
      let watch = try BackgroundWatch(repo: repo, runner: runner)
      #expect(eventually { runner.calls.count == 2 })
      #expect(watch.waitForScans(20))
      #expect(runner.calls.count == 2, "two writes during the check: one check after it")
      watch.stop.request()
      #expect(try watch.ended() == .stopped(duringCheck: false))
    }
  }

  @Test("A pass is recorded and the watch moves on to the next exercise, with the count of exercises done")
  func aPassMovesOn() throws {
    try TempRepo.with { repo in
      try repo.addExercises(starterHashes: true)
      try repo.write(Self.model, "let name = \"DataModel\"\n")
      let runner = FakeRunner { arguments in
        arguments.contains(Self.fails01) ? (CommandTests.passingOutput, 0) : (CommandTests.failingOutput, 1)
      }
      let watch = try BackgroundWatch(repo: repo, runner: runner)
      #expect(eventually { watch.output.contains("Watching Exercises/02-errors-not-abort/Sources") })
      watch.stop.request()
      #expect(try watch.ended() == .stopped(duringCheck: false))
      #expect(checked(runner) == [Self.fails01, Self.fails02])
      #expect(repo.progress()["01-model-not-found"].lastCheck?.passed == true)
      #expect(
        watch.output.contains(
          """
          Exercises: [░░] 0 of 2 done
          Exercise 1 of 2: Find the model (01-model-not-found)
          """), "\(watch.output)")
      #expect(
        watch.output.contains(
          """
          ✓ 01-model-not-found passes (3 tests).
          Done: 01-model-not-found passes, and the workshop has recorded it (1 of 2 done). \
          Next: exercise 2, Errors, not abort(); the task is in Exercises/02-errors-not-abort/README.md.
          \(WatchSession.rule)
          Exercises: [█░] 1 of 2 done
          Exercise 2 of 2: Errors, not abort() (02-errors-not-abort)
          """), "\(watch.output)")
      #expect(!watch.output.contains("Next: read"), "check's own next step is not said: the watch says its own")
    }
  }

  @Test("When the last exercise passes, the watch says so and ends by itself")
  func theLastPassEndsTheWatch() throws {
    try TempRepo.with { repo in
      try repo.addExercises(starterHashes: true)
      try repo.write(Self.model, "let name = \"DataModel\"\n")
      try repo.write(Self.save, "func save() throws {}\n")
      let runner = FakeRunner { _ in (CommandTests.passingOutput, 0) }
      let watch = try BackgroundWatch(repo: repo, runner: runner)
      #expect(try watch.ended() == .allDone)
      #expect(checked(runner) == [Self.fails01, Self.fails02])
      #expect(
        watch.output.hasSuffix(
          """
          ✓ 02-errors-not-abort passes (3 tests).
          Exercises: [██] 2 of 2 done
          All 2 exercises are done. Next: compare your code with Exercises/Support/Proofs/Solutions/, or run a demo.

          """), "\(watch.output)")
    }
  }

  @Test("A stop request during a check stops its swift test, records nothing and ends the watch")
  func aStopDuringACheckEndsCleanly() throws {
    try TempRepo.with { repo in
      try repo.addExercises(starterHashes: true)
      let runner = BlockingRunner()
      let watch = try BackgroundWatch(repo: repo, runner: runner)
      #expect(eventually { runner.isRunning })
      watch.stop.request()
      #expect(try watch.ended() == .stopped(duringCheck: true))
      #expect(!runner.isRunning)
      #expect(repo.progress()["01-model-not-found"].lastCheck == nil)
      #expect(!watch.output.contains("✗"), "a stopped check is not explained: \(watch.output)")
    }
  }

  @Test("A check blocked by another exercise's compile error is checked again when that exercise is saved")
  func aBlockingExerciseIsWatchedToo() throws {
    try TempRepo.with { repo in
      try repo.addExercises(starterHashes: true)
      let save = repo.root.appendingPathComponent(Self.save).path
      let broken = "[4/6] Compiling Exercise02 Save.swift\n\(save):1:34: error: cannot find 'context' in scope\nerror: fatalError"
      let runner = FakeRunner { _ in (broken, 1) }
      let watch = try BackgroundWatch(repo: repo, runner: runner)
      let waiting = "Watching Exercises/01-model-not-found/Sources, Exercises/02-errors-not-abort/Sources: save to check again"
      #expect(eventually { watch.output.contains(waiting) }, "\(watch.output)")
      try repo.write(Self.save, "func save() throws {}\n")
      #expect(eventually { watch.output.components(separatedBy: waiting).count == 3 }, "checked again, and waiting again")
      watch.stop.request()
      #expect(try watch.ended() == .stopped(duringCheck: false))
      #expect(checked(runner) == [Self.fails01, Self.fails01])
    }
  }

  // MARK: The command

  @Test("`watch --once` checks the current exercise once and exits with its status")
  func onceChecksOnce() throws {
    try TempRepo.with { repo in
      try repo.addExercises(starterHashes: true)
      let failing = FakeRunner { _ in (CommandTests.failingOutput, 1) }
      let first = OutputRecorder()
      #expect(try runWorkshop(["watch", "--once", "--root", repo.root.path], in: testEnvironment(first, runner: failing)) == 1)
      #expect(failing.calls.count == 1)
      #expect(first.standardOutput.contains("Exercises: [░░] 0 of 2 done\nExercise 1 of 2: Find the model (01-model-not-found)\n"))
      #expect(first.standardOutput.contains("✗ 01-model-not-found: 1 of 2 tests failed"))
      #expect(!first.standardOutput.contains("Watching"), "\(first.standardOutput)")

      let passing = FakeRunner { _ in (CommandTests.passingOutput, 0) }
      let second = OutputRecorder()
      #expect(try runWorkshop(["watch", "--once", "--root", repo.root.path], in: testEnvironment(second, runner: passing)) == 0)
      #expect(second.standardOutput.contains("Done: 01-model-not-found passes"), "\(second.standardOutput)")
      #expect(passing.calls.count == 1)
    }
  }

  @Test("With every exercise done, the watch says so and checks nothing")
  func nothingLeftToWatch() throws {
    try TempRepo.with { repo in
      try repo.addExercises(starterHashes: true)
      var progress = WorkshopProgress()
      for source in [Self.model, Self.save] {
        let folder = (source as NSString).deletingLastPathComponent
        let id = folder.split(separator: "/")[1]
        progress[String(id)].lastCheck = CheckRecord(
          passed: true, sourceHash: SourceHasher.hash(of: [folder], root: repo.root), date: Date(), failures: 0)
      }
      try ProgressStore(root: repo.root).save(progress)
      let runner = FakeRunner()
      let recorder = OutputRecorder()
      // `--once`, as every test that runs the command here: without it, the command would take this process's Ctrl-C.
      #expect(try runWorkshop(["watch", "--once", "--root", repo.root.path], in: testEnvironment(recorder, runner: runner)) == 0)
      #expect(runner.calls.isEmpty)
      #expect(recorder.standardOutput.hasPrefix("Exercises: [██] 2 of 2 done\nAll 2 exercises are done."))
    }
  }

  @Test func theProgressBarHasACellAnExerciseUpToTwenty() {
    let plain = Style(enabled: false)
    #expect(WatchSession.bar(done: 3, of: 13, style: plain) == "[███░░░░░░░░░░]")
    #expect(WatchSession.bar(done: 0, of: 2, style: plain) == "[░░]")
    #expect(WatchSession.bar(done: 20, of: 40, style: plain) == "[██████████░░░░░░░░░░]")
    #expect(WatchSession.bar(done: 39, of: 40, style: plain) == "[███████████████████░]", "full only when all are done")
  }

  // MARK: Real signals

  /// The `workshop` executable that the build beside these tests made.
  static let workshopExecutable: URL? = {
    let folders =
      [URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent()]
      + Bundle.allBundles.filter { $0.bundlePath.hasSuffix(".xctest") }.map { $0.bundleURL.deletingLastPathComponent() }
    return folders.map { $0.appendingPathComponent("workshop") }.first { FileManager.default.isExecutableFile(atPath: $0.path) }
  }()

  static let canRunForReal =
    workshopExecutable != nil
    && Prerequisites.problems(isLinux: WorkshopEnvironment.live.isLinux, fileExists: { FileManager.default.fileExists(atPath: $0) }).isEmpty

  @Test(
    "Ctrl-C (SIGINT) and SIGTERM end the watch with status 0 and a short line, its swift test stopped too",
    .enabled(if: canRunForReal, "needs the workshop executable beside the tests, and SQLite's headers"),
    arguments: [SIGINT, SIGTERM], [true, false])
  func aSignalEndsTheWatchCleanly(signal: Int32, duringCheck: Bool) throws {
    try TempRepo.with { repo in
      try repo.addExercises(starterHashes: true)
      // A `swift` that says where it is, then fails a check at once, or runs until it is stopped.
      let started = repo.root.appendingPathComponent("swift-test.pid").path
      let failing = "echo '✘ Test run with 1 test in 0 suites failed after 0.001 seconds with 1 issue.'; exit 1"
      try repo.write(
        "bin/swift", "#!/bin/sh\necho $$ > '\(started)'\n" + (duringCheck ? "exec sleep 120\n" : failing + "\n"))
      try FileManager.default.setAttributes([.posixPermissions: 0o755], ofItemAtPath: repo.root.appendingPathComponent("bin/swift").path)

      let outputFile = repo.root.appendingPathComponent("watch.out")
      try Data().write(to: outputFile)
      guard let executable = Self.workshopExecutable else { return }
      let process = Process()
      process.executableURL = executable
      process.arguments = ["watch", "--root", repo.root.path, "--interval", "0.05"]
      process.environment = ["PATH": repo.root.appendingPathComponent("bin").path + ":/usr/bin:/bin"]
      process.standardOutput = try FileHandle(forWritingTo: outputFile)
      process.standardError = process.standardOutput
      process.standardInput = FileHandle.nullDevice
      try process.run()
      defer { if process.isRunning { kill(process.processIdentifier, SIGKILL) } }
      func output() -> String { (try? String(contentsOf: outputFile, encoding: .utf8)) ?? "" }

      #expect(eventually { !((try? repo.read("swift-test.pid")) ?? "").isEmpty }, "\(output())")
      if !duringCheck { #expect(eventually { output().contains("save to check again") }, "\(output())") }
      let swiftTest = try #require(Int32(repo.read("swift-test.pid").trimmingCharacters(in: .whitespacesAndNewlines)))
      kill(process.processIdentifier, signal)

      #expect(eventually(within: 30) { !process.isRunning }, "the watch ends")
      // A watch that missed its signal is killed, so that the failure is reported instead of waited for.
      if process.isRunning { kill(process.processIdentifier, SIGKILL) }
      process.waitUntilExit()
      #expect(process.terminationReason == .exit && process.terminationStatus == 0, "\(output())")
      let said = output()
      #expect(
        said.hasSuffix(
          duringCheck ? "Stopped watching, and the check that was running.\n" : "Stopped watching.\n"),
        "\(said)")
      #expect(!said.contains("Fatal error") && !said.contains("Stack dump"), "\(said)")
      let gone = kill(swiftTest, 0) != 0 && errno == ESRCH
      #expect(gone, "no swift test is left running")
    }
  }
}
