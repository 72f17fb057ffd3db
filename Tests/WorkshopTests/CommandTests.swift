import ArgumentParser
import Foundation
import Testing

@testable import Workshop

@Suite("The command, parsed and run as a learner would")
struct CommandTests {
  @Test func statusPrintsTheStagesTheExercisesAndWhatToDoNext() throws {
    try TempRepo.with(stages: ["ObjectGraph", "Stage1-SingleContext"], demos: ["Stage1-SingleContext"]) { repo in
      try repo.addExercises()
      let recorder = OutputRecorder()
      let status = try runWorkshop(["status", "--root", repo.root.path], in: testEnvironment(recorder))
      #expect(status == 0)
      #expect(
        recorder.standardOutput == """
          Core Data stack workshop: build a Core Data stack you can defend, one stage at a time.

            Stage 0  The engine: ObjectGraph     in this checkout
            Stage 1  Single context              in this checkout · demo: swift run workshop demo 1
              ○ 01-model-not-found   Find the model       not started
              ○ 02-errors-not-abort  Errors, not abort()  not started
            Stage 2  Private parent, main child  not in this checkout yet
            Stage 3  Asynchronous loading        not in this checkout yet
            Stage 4  Workers and injection       not in this checkout yet

          Exercises: 0 of 2 done.
          Next: read Exercises/01-model-not-found/README.md, edit Exercises/01-model-not-found/Sources, \
          then run `swift run workshop check 01-model-not-found`.

          """)
      #expect(recorder.standardError.isEmpty)
      #expect(repo.progress()["01-model-not-found"].starterHash != nil, "status remembers the starter's hash")
    }
  }

  @Test func statusIsTheDefaultAndFindsTheRootFromBelow() throws {
    try TempRepo.with { repo in
      let recorder = OutputRecorder()
      let below = repo.root.appendingPathComponent("Stages/ObjectGraph").path
      let status = try runWorkshop([], in: testEnvironment(recorder, currentDirectory: below))
      #expect(status == 0)
      #expect(recorder.standardOutput.contains("The exercises are not in this checkout yet."))
    }
  }

  @Test func outsideTheWorkspaceItSaysWhereToRunIt() throws {
    let recorder = OutputRecorder()
    let status = try runWorkshop(["status"], in: testEnvironment(recorder, currentDirectory: "/proc/self"))
    #expect(status == 1)
    #expect(recorder.standardError.contains("This is not inside the Core Data stack workshop"))
  }

  @Test func aMalformedManifestFailsTheStatusButStillShowsIt() throws {
    try TempRepo.with { repo in
      try repo.write("Exercises/exercises.json", #"[{"id": "01"}]"#)
      let recorder = OutputRecorder()
      #expect(try runWorkshop(["status", "--root", repo.root.path], in: testEnvironment(recorder)) == 1)
      #expect(recorder.standardOutput.contains("Stage 0"))
      #expect(recorder.standardOutput.contains(#"entry 1 ("01") has no "stage""#))
    }
  }

  @Test func listShowsIDStageAndTitle() throws {
    try TempRepo.with { repo in
      let recorder = OutputRecorder()
      try runWorkshop(["list", "--root", repo.root.path], in: testEnvironment(recorder))
      #expect(recorder.standardOutput == "The exercises are not in this checkout yet (there is no Exercises/exercises.json).\n")
      try repo.addExercises()
      let second = OutputRecorder()
      try runWorkshop(["list", "--root", repo.root.path], in: testEnvironment(second))
      #expect(
        second.standardOutput == """
          id                   stage  title
          01-model-not-found   1      Find the model
          02-errors-not-abort  1      Errors, not abort()

          """)
    }
  }

  @Test func starterHashesArePrintedAndChecked() throws {
    try TempRepo.with { repo in
      try repo.addExercises(starterHashes: true)
      let hash = SourceHasher.hash(of: ["Exercises/01-model-not-found/Sources"], root: repo.root)
      let printed = OutputRecorder()
      try runWorkshop(["starter-hashes", "--root", repo.root.path], in: testEnvironment(printed))
      #expect(printed.standardOutput.hasPrefix("01-model-not-found  \(hash)\n"))

      let clean = OutputRecorder()
      #expect(try runWorkshop(["starter-hashes", "--check", "--root", repo.root.path], in: testEnvironment(clean)) == 0)
      try repo.write("Exercises/01-model-not-found/Sources/Model.swift", "let name = \"DataModel\"\n")
      let stale = OutputRecorder()
      #expect(try runWorkshop(["starter-hashes", "--check", "--root", repo.root.path], in: testEnvironment(stale)) == 1)
      #expect(stale.standardError.contains("do not match the sources: 01-model-not-found."))
    }
  }

  // MARK: Hints

  @Test func hintsComeOneAtATimeAndAreRemembered() throws {
    try TempRepo.with { repo in
      try repo.addExercises()
      try repo.write(
        "Exercises/01-model-not-found/HINTS.md",
        """
        # Hints

        ## Hint 1: what is it called?
        Look in Stages/NotesModel.

        ## Hint 2
        DataModel.xcdatamodeld.
        """)
      try repo.makeFolder("Exercises/Support/Proofs/Solutions/01-model-not-found")
      func hint(_ arguments: [String] = []) throws -> (Int32, String) {
        let recorder = OutputRecorder()
        let status = try runWorkshop(["hint", "1", "--root", repo.root.path] + arguments, in: testEnvironment(recorder))
        return (status, recorder.all)
      }

      let (_, first) = try hint()
      #expect(
        first
          == "Hint 1: what is it called?\nLook in Stages/NotesModel.\n\nHint 1 of 2. Still stuck? Run `swift run workshop hint 01-model-not-found` again.\n"
      )
      #expect(repo.progress()["01-model-not-found"].hintsShown == 1)

      let (_, second) = try hint()
      #expect(second.hasPrefix("Hint 2\nDataModel.xcdatamodeld.\n"))
      #expect(
        second.contains(
          "That was the last hint (2 of 2). The reference solution is in Exercises/Support/Proofs/Solutions/01-model-not-found/."))

      let (status, after) = try hint()
      #expect(status == 0)
      #expect(
        after == "No more hints for 01-model-not-found: you have seen all 2 (`swift run workshop hint 01-model-not-found --all` "
          + "shows them again). The reference solution is in Exercises/Support/Proofs/Solutions/01-model-not-found/.\n")

      let (_, all) = try hint(["--all"])
      #expect(all.contains("Hint 1: what is it called?") && all.contains("Hint 2\nDataModel.xcdatamodeld."))
      #expect(all.hasSuffix("That is every hint. The reference solution is in Exercises/Support/Proofs/Solutions/01-model-not-found/.\n"))
      #expect(repo.progress()["01-model-not-found"].hintsShown == 2)
    }
  }

  @Test func withoutAnExerciseHintsAreForTheCurrentOne() throws {
    try TempRepo.with { repo in
      try repo.addExercises(starterHashes: true)
      try repo.write("Exercises/01-model-not-found/HINTS.md", "# Hints\n\n## Hint 1\nFirst of 01.\n")
      try repo.write("Exercises/02-errors-not-abort/HINTS.md", "# Hints\n\n## Hint 1\nFirst of 02.\n")
      func hint() throws -> (Int32, OutputRecorder) {
        let recorder = OutputRecorder()
        return (try runWorkshop(["hint", "--root", repo.root.path], in: testEnvironment(recorder)), recorder)
      }
      // Nothing started: the first exercise.
      let (_, first) = try hint()
      #expect(first.all.hasPrefix("Hints for 01-model-not-found, the exercise you are on"), "\(first.all)")
      #expect(first.all.contains("First of 01."))
      // 02 edited: it is in progress, so it is the one.
      try repo.write("Exercises/02-errors-not-abort/Sources/Save.swift", "func save() throws {}\n")
      let (_, second) = try hint()
      #expect(second.all.hasPrefix("Hints for 02-errors-not-abort, the exercise you are on"), "\(second.all)")
      #expect(second.all.contains("First of 02."))
      #expect(repo.progress()["02-errors-not-abort"].hintsShown == 1)
    }
  }

  @Test func hintsParseOnlyHintSectionsOutsideCodeFences() {
    let hints = HintBook.parse(
      """
      Preamble, not a hint.
      ## Hint 1
      First.

      ```sh
      ## a shell comment, not a heading
      ```
      ## Notes
      Not a hint.
      ## hint 2 — lower case
      Second.
      # The end
      Not a hint either.
      """)
    #expect(hints.map(\.number) == [1, 2])
    #expect(hints[0].body == "First.\n\n```sh\n## a shell comment, not a heading\n```")
    #expect(hints[1].heading == "hint 2 — lower case")
    #expect(hints[1].body == "Second.")
    #expect(HintBook.next(after: 0, in: hints) == .hint(hints[0], position: 1, of: 2))
    #expect(HintBook.next(after: 1, in: hints) == .hint(hints[1], position: 2, of: 2))
    #expect(HintBook.next(after: 2, in: hints) == .noMore(total: 2))
    #expect(HintBook.next(after: 0, in: []) == .noHints)
  }

  @Test func aMissingHintsFileIsExplained() throws {
    try TempRepo.with { repo in
      try repo.addExercises()
      let recorder = OutputRecorder()
      #expect(try runWorkshop(["hint", "02", "--root", repo.root.path], in: testEnvironment(recorder)) == 1)
      #expect(
        recorder.standardError == "02-errors-not-abort has no hints: Exercises/02-errors-not-abort/HINTS.md is not in this checkout.\n")
    }
  }

  // MARK: Check

  static let failingOutput = """
    Fetching https://github.com/groue/GRDB.swift from cache
    Building for debugging...
    [3/6] Compiling Exercise01 Model.swift
    Build complete! (1.00s)
    ◇ Test run started.
    ◇ Test "The model is found by its name" started.
    ✘ Test "The model is found by its name" recorded an issue at ModelTests.swift:4:3: Expectation failed: (modelName() → "Model") == "DataModel"
    ↳ The tutorial's model is called DataModel: the name must match the .xcdatamodeld folder.
    ✘ Test "The model is found by its name" failed after 0.001 seconds with 1 issue.
    ✔ Test alwaysFine() passed after 0.001 seconds.
    ✘ Test run with 2 tests in 0 suites failed after 0.001 seconds with 1 issue.
    """

  static let passingOutput = """
    Build complete! (1.00s)
    ✔ Test run with 3 tests in 1 suite passed after 0.001 seconds.
    """

  @Test("a build of one step is announced as '1 step', without the first build's warning of minutes")
  func oneBuildStep() throws {
    try TempRepo.with { repo in
      try repo.addExercises(starterHashes: true)
      let runner = FakeRunner { _ in ("[1/1] Compiling Exercise01 Model.swift\n" + Self.passingOutput, 0) }
      let recorder = OutputRecorder()
      _ = try runWorkshop(["check", "01", "--root", repo.root.path], in: testEnvironment(recorder, runner: runner))
      #expect(
        recorder.standardOutput.contains("building the exercises package (1 step)…"), "\(recorder.standardOutput)")
    }
  }

  @Test("SwiftPM's planning and plugin steps ('[0/1] Planning build', '[1/1] Compiling plugin …') are not taken for the build's size")
  func setupStepsAreNotTheBuild() throws {
    try TempRepo.with { repo in
      try repo.addExercises(starterHashes: true)
      let output = """
        [0/1] Planning build
        [1/1] Compiling plugin GenerateManual
        [2/2] Compiling plugin GenerateDoccReference
        Building for debugging...
        [2/101] Write sources
        [46/99] Compiling Exercise01 Model.swift

        """
      let runner = FakeRunner { _ in (output + Self.passingOutput, 0) }
      let recorder = OutputRecorder()
      _ = try runWorkshop(["check", "01", "--root", repo.root.path], in: testEnvironment(recorder, runner: runner))
      let said = recorder.standardOutput
      #expect(!said.contains("(1 step)") && !said.contains("(2 steps"), "\(said)")
      #expect(said.contains("building the exercises package first (101 steps; the first build takes a minute or two)…"), "\(said)")
    }
  }

  @Test("The first check says, before it starts, that it builds the engine; once the engine is built, it does not")
  func firstBuildIsAnnounced() throws {
    try TempRepo.with { repo in
      try repo.addExercises(starterHashes: true)
      let runner = FakeRunner { _ in (Self.passingOutput, 0) }
      let first = OutputRecorder()
      _ = try runWorkshop(["check", "01", "--root", repo.root.path], in: testEnvironment(first, runner: runner))
      #expect(first.standardOutput.hasPrefix(CheckSession.firstBuildNote + "\n"), "\(first.standardOutput)")
      #expect(CheckSession.firstBuildNote.contains("minutes"), "the note gives the measured time")

      // The engine's module in the workspace's build folder (after `swift build`, or an earlier check).
      try repo.write(".build/debug/Modules/ObjectGraph.swiftmodule", "")
      let later = OutputRecorder()
      _ = try runWorkshop(["check", "01", "--root", repo.root.path], in: testEnvironment(later, runner: runner))
      #expect(!later.standardOutput.contains(CheckSession.firstBuildNote), "\(later.standardOutput)")
      #expect(later.standardOutput.hasPrefix("Checking 01-model-not-found"), "\(later.standardOutput)")
    }
  }

  @Test("a build of a few steps (nothing or one exercise to compile) is not announced as a first build of minutes")
  func smallBuildIsNotAFirstBuild() throws {
    try TempRepo.with { repo in
      try repo.addExercises(starterHashes: true)
      // What a check printed when nothing had changed since the last one: 6 steps, none of them compiling.
      let output = "[0/1] Planning build\nBuilding for debugging...\n[0/6] Write swift-version-6A52383ED409C6A7.txt\n"
      let runner = FakeRunner { _ in (output + Self.passingOutput, 0) }
      let recorder = OutputRecorder()
      _ = try runWorkshop(["check", "01", "--root", repo.root.path], in: testEnvironment(recorder, runner: runner))
      #expect(recorder.standardOutput.contains("  building the exercises package (6 steps)…"), "\(recorder.standardOutput)")
      #expect(!recorder.standardOutput.contains("a minute or two"), "\(recorder.standardOutput)")
    }
  }

  @Test func checkRunsSwiftTestRecordsTheResultAndExplainsFailures() throws {
    try TempRepo.with { repo in
      try repo.addExercises(starterHashes: true)
      // A manifest an earlier check cached (it may list other exercises) is removed before this one runs.
      try repo.write(".build/manifest.db", "an earlier check's manifest cache")
      try repo.write("Exercises/01-model-not-found/Sources/Model.swift", "let name = \"Model2\"\n")
      let runner = FakeRunner { arguments in
        arguments.contains(#"^Exercise01Tests\."#) ? (Self.failingOutput, 1) : (Self.passingOutput, 0)
      }
      let recorder = OutputRecorder()
      let status = try runWorkshop(["check", "--root", repo.root.path], in: testEnvironment(recorder, runner: runner))
      #expect(status == 1, "an exercise fails, so the exit status is not zero")
      #expect(!FileManager.default.fileExists(atPath: repo.root.appendingPathComponent(".build/manifest.db").path))

      // The exercises build in the workspace's own build folder, so that the engine is compiled once for both.
      let exercisesPath = repo.root.appendingPathComponent("Exercises").path
      let scratchPath = repo.root.appendingPathComponent(".build").path
      #expect(
        runner.calls == [
          .init(
            executable: "/usr/bin/swift",
            arguments: [
              "test", "--package-path", exercisesPath, "--scratch-path", scratchPath, "--manifest-cache", "local", "--filter",
              #"^Exercise01Tests\."#,
            ],
            directory: repo.root.path, attached: false),
          .init(
            executable: "/usr/bin/swift",
            arguments: [
              "test", "--package-path", exercisesPath, "--scratch-path", scratchPath, "--manifest-cache", "local", "--filter",
              #"^Exercise02Tests\."#, "--skip-build",
            ],
            directory: repo.root.path, attached: false),
        ])
      #expect(
        recorder.standardOutput == """
          \(CheckSession.firstBuildNote)
          Checking 01-model-not-found (swift test --filter Exercise01Tests)…
            Fetching https://github.com/groue/GRDB.swift from cache
            building the exercises package (6 steps)…
          ✗ 01-model-not-found: 1 of 2 tests failed
            "The model is found by its name"
              Expectation failed: (modelName() → "Model") == "DataModel" (ModelTests.swift:4:3)
              The tutorial's model is called DataModel: the name must match the .xcdatamodeld folder.
            The task: Exercises/01-model-not-found/README.md
            Stuck? Run `swift run workshop hint 01-model-not-found`.
          Checking 02-errors-not-abort (swift test --filter Exercise02Tests)…
          ✓ 02-errors-not-abort passes (3 tests).

          1 of 2 exercises pass.

          """)

      let progress = repo.progress()
      let hash1 = SourceHasher.hash(of: ["Exercises/01-model-not-found/Sources"], root: repo.root)
      #expect(
        progress["01-model-not-found"].lastCheck
          == CheckRecord(passed: false, sourceHash: hash1, date: Date(timeIntervalSince1970: 1_800_000_000), failures: 1))
      #expect(progress["02-errors-not-abort"].lastCheck?.passed == true)

      let after = OutputRecorder()
      try runWorkshop(["--root", repo.root.path], in: testEnvironment(after))
      #expect(after.standardOutput.contains("✗ 01-model-not-found   Find the model       failing"))
      #expect(after.standardOutput.contains("✓ 02-errors-not-abort  Errors, not abort()  done"))
    }
  }

  @Test func aCompileErrorInAnotherExerciseBlocksTheCheckAndSaysWhere() throws {
    try TempRepo.with { repo in
      try repo.addExercises()
      let file = repo.root.appendingPathComponent("Exercises/02-errors-not-abort/Sources/Save.swift").path
      let output = """
        [4/6] Compiling Exercise02 Save.swift
        \(file):1:34: error: cannot find 'context' in scope
        1 | public func save() -> Bool { try context.save() }
          |                                  `- error: cannot find 'context' in scope
        error: fatalError
        """
      let runner = FakeRunner { _ in (output, 1) }
      let recorder = OutputRecorder()
      #expect(
        try runWorkshop(["check", "01-model-not-found", "--root", repo.root.path], in: testEnvironment(recorder, runner: runner)) == 1)
      #expect(runner.calls.count == 1)
      #expect(
        recorder.standardOutput.hasSuffix(
          """
          ! 01-model-not-found was not checked: the exercises package does not build because of errors in 02-errors-not-abort \
          (fix those first, or undo your changes there).
          ✗ 02-errors-not-abort does not compile:
            Exercises/02-errors-not-abort/Sources/Save.swift:1:34: cannot find 'context' in scope
              1 | public func save() -> Bool { try context.save() }
                |                                  `- error: cannot find 'context' in scope
            The task: Exercises/02-errors-not-abort/README.md
            Stuck? Run `swift run workshop hint 02-errors-not-abort`.

          """))
      let progress = repo.progress()
      #expect(progress["01-model-not-found"].lastCheck == nil, "01 was not checked, so nothing is recorded")
      #expect(progress["02-errors-not-abort"].lastCheck?.passed == false)
    }
  }

  @Test func aTestTargetThatRunsNothingIsNotADone() throws {
    try TempRepo.with { repo in
      try repo.addExercises()
      let runner = FakeRunner { _ in
        ("warning: No matching test cases were run\n✔ Test run with 0 tests in 0 suites passed after 0.001 seconds.", 0)
      }
      let recorder = OutputRecorder()
      #expect(try runWorkshop(["check", "02", "--root", repo.root.path], in: testEnvironment(recorder, runner: runner)) == 1)
      #expect(recorder.standardOutput.contains(#"02-errors-not-abort: no test ran. Is "testTarget": "Exercise02Tests""#))
      #expect(repo.progress()["02-errors-not-abort"].lastCheck == nil)
    }
  }

  @Test func checkNeedsSQLiteHeadersSwiftAndExercises() throws {
    try TempRepo.with { repo in
      let recorder = OutputRecorder()
      #expect(try runWorkshop(["check", "--root", repo.root.path], in: testEnvironment(recorder)) == 1)
      #expect(recorder.standardError == "The exercises are not in this checkout yet (there is no Exercises/exercises.json).\n")

      try repo.addExercises()
      let noSQLite = OutputRecorder()
      let runner = FakeRunner()
      #expect(
        try runWorkshop(["check", "--root", repo.root.path], in: testEnvironment(noSQLite, runner: runner, hasSQLiteHeader: false)) == 1)
      #expect(noSQLite.standardError == "SQLite's development files are missing: sudo apt-get install libsqlite3-dev\n")

      let noSwift = OutputRecorder()
      #expect(try runWorkshop(["check", "--root", repo.root.path], in: testEnvironment(noSwift, runner: runner, hasSwift: false)) == 1)
      #expect(noSwift.standardError.hasPrefix("`swift` is not on your PATH"))
      #expect(runner.calls.isEmpty)

      let unknown = OutputRecorder()
      #expect(try runWorkshop(["check", "7", "--root", repo.root.path], in: testEnvironment(unknown, runner: runner)) == 1)
      #expect(unknown.standardError.hasPrefix(#"There is no exercise "7". Exercises: 01-model-not-found, 02-errors-not-abort."#))
    }
  }

  // MARK: Demo

  @Test func demoRunsTheStagesDemoWithItsArguments() throws {
    try TempRepo.with(stages: ["ObjectGraph", "Stage1-SingleContext"], demos: ["Stage1-SingleContext"]) { repo in
      let runner = FakeRunner { _ in ("", 3) }
      let recorder = OutputRecorder()
      let status = try runWorkshop(
        ["demo", "--root", repo.root.path, "1", "--count", "5000", "--fast"], in: testEnvironment(recorder, runner: runner))
      #expect(status == 3, "the demo's exit status is passed on")
      #expect(
        runner.calls == [
          .init(
            executable: "/usr/bin/swift", arguments: ["run", "stage1-demo", "--count", "5000", "--fast"], directory: repo.root.path,
            attached: true)
        ])

      let missing = OutputRecorder()
      #expect(try runWorkshop(["demo", "--root", repo.root.path, "2"], in: testEnvironment(missing, runner: runner)) == 1)
      #expect(
        missing.standardError
          == "Stage 2 (Private parent, main child) is not in this checkout yet, so it has no demo to run. "
          + "Demos in this checkout: stage 1 (`swift run workshop demo 1`).\n")

      let engine = OutputRecorder()
      #expect(try runWorkshop(["demo", "--root", repo.root.path, "0"], in: testEnvironment(engine, runner: runner)) == 1)
      #expect(engine.standardError.hasPrefix("Stage 0 (The engine: ObjectGraph) has no demo yet. Demos in this checkout: stage 1"))

      let noSQLite = OutputRecorder()
      #expect(
        try runWorkshop(["demo", "--root", repo.root.path, "1"], in: testEnvironment(noSQLite, runner: runner, hasSQLiteHeader: false)) == 1
      )
      #expect(noSQLite.standardError == "SQLite's development files are missing: sudo apt-get install libsqlite3-dev\n")
      #expect(runner.calls.count == 1)
    }
  }

  @Test("A demo whose lesson needs the chapter's size runs as the chapter does: release, its arguments, said before the build")
  func demoRunsAsTheChapterDoes() throws {
    let stageList = #"""
      [
        {"number": 0, "title": "The engine", "folder": "Stages/ObjectGraph", "adds": "the engine"},
        {"number": 1, "title": "Async loading", "folder": "Stages/Stage3-AsyncLoading", "adds": "a callback", "demo": "stage3-demo",
         "demoBuild": "release", "demoArguments": ["--count", "1000000"]}
      ]
      """#
    try TempRepo.with(stages: ["ObjectGraph", "Stage3-AsyncLoading"], demos: ["Stage3-AsyncLoading"], stageList: stageList) { repo throws in
      let runner = FakeRunner { _ in ("", 0) }
      let recorder = OutputRecorder()
      #expect(try runWorkshop(["demo", "--root", repo.root.path, "1"], in: testEnvironment(recorder, runner: runner)) == 0)
      #expect(runner.calls.map(\.arguments) == [["run", "-c", "release", "stage3-demo", "--count", "1000000"]])
      let said = recorder.standardOutput
      #expect(said.contains("so it runs a release build."), "\(said)")
      // No release build in this folder yet: the long first build is announced, with its two silent steps.
      #expect(said.contains("The first release build compiles the SQLite library (GRDB) and the engine"), "\(said)")
      #expect(said.contains("\"Compiling GRDB\" and then \"Compiling ObjectGraph\", print nothing new"), "\(said)")
      #expect(said.hasSuffix("▶ swift run -c release stage3-demo --count 1000000  (it builds first)\n"), "\(said)")

      // The learner's arguments replace the chapter's; the build stays release.
      #expect(
        try runWorkshop(["demo", "--root", repo.root.path, "1", "--count", "5000"], in: testEnvironment(OutputRecorder(), runner: runner))
          == 0)
      #expect(runner.calls.last?.arguments == ["run", "-c", "release", "stage3-demo", "--count", "5000"])
    }
  }

  @Test("A release demo's build is announced as long as it will be: first build, engine changed, a short build, none")
  func releaseBuildForecast() throws {
    try TempRepo.with(stages: ["ObjectGraph", "Stage3-AsyncLoading"], demos: ["Stage3-AsyncLoading"]) { repo throws in
      let files = FileManager.default
      // Times are relative to now, the build's products in the future so that nothing the repository's
      // set-up wrote is newer than them.
      func touch(_ path: String, _ secondsAgo: Double) throws {
        let url = repo.root.appendingPathComponent(path)
        try files.createDirectory(at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
        if !files.fileExists(atPath: url.path) { try Data().write(to: url) }
        try files.setAttributes([.modificationDate: Date().addingTimeInterval(-secondsAgo)], ofItemAtPath: url.path)
      }
      let forecast = { BuildForecast.release(demo: "stage3-demo", root: repo.root) }
      try touch("Stages/ObjectGraph/Engine.swift", 0)
      try touch("Stages/Stage3-AsyncLoading/Controller.swift", 0)
      try touch("Package.swift", 0)
      #expect(forecast() == .firstBuild)

      // GRDB built, the engine not: the engine is compiled.
      try touch(".build/release/Modules/GRDB.swiftmodule", -10)
      #expect(forecast() == .engineChanged)
      // The engine built, this demo not (another demo built it): a short build.
      try touch(".build/release/Modules/ObjectGraph.swiftmodule", -10)
      #expect(forecast() == .shortBuild)
      // The demo built after every source: nothing to announce.
      try touch(".build/release/stage3-demo", -20)
      #expect(forecast() == .upToDate)
      #expect(forecast().announcement.isEmpty)
      // The stage edited since: a short build; the engine edited since: the engine again.
      try touch("Stages/Stage3-AsyncLoading/Controller.swift", -30)
      #expect(forecast() == .shortBuild)
      try touch("Stages/ObjectGraph/Engine.swift", -40)
      #expect(forecast() == .engineChanged)
      #expect(forecast().announcement.joined().contains("\"Compiling ObjectGraph\" prints nothing new"))
    }
  }
}
