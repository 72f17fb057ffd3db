import Foundation
import Testing

@testable import Workshop

@Suite("Status")
struct StatusTests {
  private func check(_ passed: Bool, _ hash: String) -> CheckRecord {
    CheckRecord(passed: passed, sourceHash: hash, date: Date(timeIntervalSince1970: 0), failures: passed ? 0 : 1)
  }

  @Test func theStateComesFromHashesAndTheLastCheck() {
    #expect(ExerciseState.of(currentHash: "s", starterHash: "s", lastCheck: nil) == .notStarted)
    #expect(ExerciseState.of(currentHash: "e", starterHash: "s", lastCheck: nil) == .editedNotChecked)
    #expect(ExerciseState.of(currentHash: "e", starterHash: "s", lastCheck: check(false, "e")) == .failing)
    #expect(ExerciseState.of(currentHash: "e", starterHash: "s", lastCheck: check(true, "e")) == .done)
    #expect(ExerciseState.of(currentHash: "f", starterHash: "s", lastCheck: check(true, "e")) == .changedSinceCheck(lastPassed: true))
    #expect(ExerciseState.of(currentHash: "f", starterHash: "s", lastCheck: check(false, "e")) == .changedSinceCheck(lastPassed: false))
    // Checked untouched (it fails, as starters do): still not started, there is nothing to fix yet.
    #expect(ExerciseState.of(currentHash: "s", starterHash: "s", lastCheck: check(false, "s")) == .notStarted)
    #expect(ExerciseState.of(currentHash: "s", starterHash: "s", lastCheck: check(true, "s")) == .done)
    // Back to the starter after a check of something else: not started again.
    #expect(ExerciseState.of(currentHash: "s", starterHash: "s", lastCheck: check(false, "e")) == .notStarted)
  }

  @Test func withoutExercisesTheStagesAndTheNextStepAreShown() throws {
    try TempRepo.with(stages: ["ObjectGraph", "Stage1-SingleContext"], demos: ["Stage1-SingleContext"]) { repo in
      let report = StatusReport.compute(root: repo.root)
      #expect(report.exercises == .notInCheckout)
      #expect(report.updatedProgress == nil)
      #expect(report.next == "Next: read README.md, then run stage 1's demo: `swift run workshop demo 1`.")
      let text = report.render(style: Style(enabled: false)).joined(separator: "\n")
      #expect(text.contains("Stage 1  Single context              in this checkout · demo: swift run workshop demo 1"))
      #expect(text.contains("Stage 2  Private parent, main child  not in this checkout yet"))
      #expect(text.contains("The exercises are not in this checkout yet."))
    }
  }

  @Test func aFreshCheckoutIsNotStartedAndRemembersTheStarter() throws {
    try TempRepo.with { repo in
      try repo.addExercises()
      let report = StatusReport.compute(root: repo.root)
      guard case .listed(let statuses) = report.exercises else {
        Issue.record("expected exercises, got \(report.exercises)")
        return
      }
      #expect(statuses.map(\.state) == [.notStarted, .notStarted])
      let baseline = try #require(report.updatedProgress)
      #expect(
        baseline["01-model-not-found"].starterHash == SourceHasher.hash(of: ["Exercises/01-model-not-found/Sources"], root: repo.root))
      #expect(
        report.next
          == "Next: read Exercises/01-model-not-found/README.md, edit Exercises/01-model-not-found/Sources, "
          + "then run `swift run workshop check 01-model-not-found`.")
    }
  }

  @Test func statesFollowTheProgressFile() throws {
    try TempRepo.with { repo in
      try repo.addExercises(starterHashes: true)
      try repo.write("Exercises/01-model-not-found/Sources/Model.swift", "let name = \"DataModel\"\n")
      let done = SourceHasher.hash(of: ["Exercises/01-model-not-found/Sources"], root: repo.root)
      try repo.write("Exercises/02-errors-not-abort/Sources/Save.swift", "func save() throws {}\n")
      let checked = SourceHasher.hash(of: ["Exercises/02-errors-not-abort/Sources"], root: repo.root)
      try repo.write(
        ".workshop/progress.json",
        """
        {"version": 1, "exercises": {
          "01-model-not-found": {"lastCheck": {"passed": true, "sourceHash": "\(done)", "date": "2026-01-01T10:00:00Z", "failures": 0}},
          "02-errors-not-abort": {"hintsShown": 1,
            "lastCheck": {"passed": false, "sourceHash": "\(checked)", "date": "2026-01-01T10:05:00Z", "failures": 2}}
        }}
        """)

      func states() -> [ExerciseState] {
        guard case .listed(let statuses) = StatusReport.compute(root: repo.root).exercises else { return [] }
        return statuses.map(\.state)
      }
      #expect(states() == [.done, .failing])
      #expect(StatusReport.compute(root: repo.root).updatedProgress == nil, "the manifest has starter hashes: nothing to record")

      try repo.write("Exercises/02-errors-not-abort/Sources/Save.swift", "func save() throws { try context.save() }\n")
      #expect(states() == [.done, .changedSinceCheck(lastPassed: false)])
      let report = StatusReport.compute(root: repo.root)
      #expect(
        report.next
          == "Next: you changed 02-errors-not-abort; run `swift run workshop watch` to see where it stands, and again each time you save.")

      try repo.write("Exercises/02-errors-not-abort/Sources/Save.swift", "func save() { abort() }\n")
      #expect(states() == [.done, .notStarted])

      let text = report.render(style: Style(enabled: false)).joined(separator: "\n")
      #expect(text.contains("✓ 01-model-not-found   Find the model       done"))
      #expect(text.contains("● 02-errors-not-abort  Errors, not abort()  changed since last check"))
      #expect(text.contains("Exercises: 1 of 2 done."))
    }
  }

  /// Four exercises of stage 1, each with a starter of its own.
  private func addFourExercises(to repo: TempRepo) throws {
    try repo.write("Exercises/Package.swift", "// swift-tools-version: 6.0\n")
    var entries: [String] = []
    for number in 1...4 {
      let id = "0\(number)-exercise"
      try repo.write("Exercises/\(id)/Sources/Start.swift", "let start = \(number)\n")
      try repo.write("Exercises/\(id)/README.md", "# Exercise \(number)\n")
      let hash = SourceHasher.hash(of: ["Exercises/\(id)/Sources"], root: repo.root)
      entries.append(
        #"{"id": "\#(id)", "stage": 1, "title": "Exercise \#(number)", "testTarget": "Exercise0\#(number)Tests", "#
          + #""sources": ["Exercises/\#(id)/Sources"], "starterHash": "\#(hash)"}"#)
    }
    try repo.write("Exercises/exercises.json", "[\n" + entries.joined(separator: ",\n") + "\n]")
  }

  /// Edits exercise `number` and records a check of it at `minute` past ten, passed or not.
  private func work(on number: Int, passed: Bool, minute: Int, in repo: TempRepo) throws {
    let id = "0\(number)-exercise"
    try repo.write("Exercises/\(id)/Sources/Start.swift", "let mine = \(number)\n")
    var progress = repo.progress()
    progress[id].lastCheck = CheckRecord(
      passed: passed, sourceHash: SourceHasher.hash(of: ["Exercises/\(id)/Sources"], root: repo.root),
      date: Date(timeIntervalSince1970: 1_800_000_000 + Double(minute * 60)), failures: passed ? 0 : 1)
    try ProgressStore(root: repo.root).save(progress)
  }

  @Test("Next follows the learner: the exercise after the one they passed last, not the first of the list")
  func nextFollowsTheLearnersProgress() throws {
    try TempRepo.with { repo in
      try addFourExercises(to: repo)
      func current() -> String? { StatusReport.compute(root: repo.root).current?.exercise.id }
      #expect(current() == "01-exercise")

      // Started with the later stages: 02 passes, the learner goes on to 03, not back to 01.
      try work(on: 2, passed: true, minute: 0, in: repo)
      #expect(current() == "03-exercise")
      #expect(StatusReport.compute(root: repo.root).next.hasPrefix("Next: read Exercises/03-exercise/README.md"))
      // 03 fails: the learner is on 03 until it passes.
      try work(on: 3, passed: false, minute: 5, in: repo)
      #expect(current() == "03-exercise")
      // 04 passes, last of the list: round to the first not done.
      try work(on: 4, passed: true, minute: 10, in: repo)
      #expect(current() == "01-exercise")

      // Checking everything at once checks the untouched starters too: they do not move the learner on.
      var progress = repo.progress()
      for id in ["01-exercise", "02-exercise"] {
        let hash = SourceHasher.hash(of: ["Exercises/\(id)/Sources"], root: repo.root)
        progress[id].lastCheck = CheckRecord(
          passed: id != "01-exercise", sourceHash: hash, date: Date(timeIntervalSince1970: 1_900_000_000), failures: 0)
      }
      try ProgressStore(root: repo.root).save(progress)
      #expect(current() == "03-exercise", "02, checked last, passes; 01 is untouched: the next after 02 that is not done")
    }
  }

  @Test("The next step is `workshop check` until the learner starts; then `workshop watch`")
  func watchIsSuggestedOnceStarted() throws {
    try TempRepo.with { repo in
      try repo.addExercises(starterHashes: true)
      func next() -> String { StatusReport.compute(root: repo.root).next }
      #expect(
        next() == "Next: read Exercises/01-model-not-found/README.md, edit Exercises/01-model-not-found/Sources, "
          + "then run `swift run workshop check 01-model-not-found`.")

      // A starter changed: started.
      try repo.write("Exercises/01-model-not-found/Sources/Model.swift", "let name = \"DataModel\"\n")
      #expect(
        next()
          == "Next: you changed 01-model-not-found; run `swift run workshop watch` to see where it stands, and again each time you save.")

      // Back to the starter, but checked once (it failed): started too.
      try repo.write("Exercises/01-model-not-found/Sources/Model.swift", "let name = \"Model\"\n")
      var progress = repo.progress()
      progress["01-model-not-found"].lastCheck = CheckRecord(
        passed: false, sourceHash: SourceHasher.hash(of: ["Exercises/01-model-not-found/Sources"], root: repo.root),
        date: Date(timeIntervalSince1970: 0), failures: 1)
      try ProgressStore(root: repo.root).save(progress)
      #expect(
        next() == "Next: read Exercises/01-model-not-found/README.md, then edit Exercises/01-model-not-found/Sources with "
          + "`swift run workshop watch` running: it checks 01-model-not-found each time you save.")

      // Edited and failing.
      try work(on: "01-model-not-found", source: "Model.swift", passed: false, in: repo)
      #expect(
        next() == "Next: make 01-model-not-found pass (the task: Exercises/01-model-not-found/README.md) with "
          + "`swift run workshop watch` checking each save; stuck? `swift run workshop hint 01-model-not-found`.")
    }
  }

  /// Edits an exercise of ``TempRepo/addExercises(starterHashes:)`` and records a check of it.
  private func work(on id: String, source: String, passed: Bool, in repo: TempRepo) throws {
    try repo.write("Exercises/\(id)/Sources/\(source)", "// mine\n")
    var progress = repo.progress()
    progress[id].lastCheck = CheckRecord(
      passed: passed, sourceHash: SourceHasher.hash(of: ["Exercises/\(id)/Sources"], root: repo.root),
      date: Date(timeIntervalSince1970: 60), failures: passed ? 0 : 1)
    try ProgressStore(root: repo.root).save(progress)
  }

  @Test func anEmptyManifestIsNotAllDone() throws {
    try TempRepo.with { repo in
      try repo.write("Exercises/exercises.json", "[]")
      #expect(StatusReport.compute(root: repo.root).next.hasPrefix("Next: the exercise list is empty so far"))
    }
  }

  @Test func aMalformedManifestIsReportedNotFatal() throws {
    try TempRepo.with { repo in
      try repo.write("Exercises/exercises.json", "{ nope")
      let report = StatusReport.compute(root: repo.root)
      guard case .malformed(let message) = report.exercises else {
        Issue.record("expected a malformed manifest, got \(report.exercises)")
        return
      }
      #expect(message.hasPrefix("Exercises/exercises.json is malformed:\n  - it is not valid JSON"))
      #expect(report.next.hasPrefix("Next: fix Exercises/exercises.json"))
    }
  }

  @Test func anUnreadableProgressFileIsAFreshStartWithANote() throws {
    try TempRepo.with { repo in
      try repo.addExercises()
      try repo.write(".workshop/progress.json", "garbage")
      let report = StatusReport.compute(root: repo.root)
      #expect(report.progressWarning?.contains(".workshop/progress.json could not be read") == true)
      #expect(report.render(style: Style(enabled: false)).contains { $0.hasPrefix("Note: .workshop/progress.json") })
    }
  }

  @Test func whenEverythingIsDoneTheNextStepSaysSo() throws {
    try TempRepo.with { repo in
      try repo.addExercises(starterHashes: true)
      var progress = WorkshopProgress()
      for (id, folder) in [("01-model-not-found", "01-model-not-found"), ("02-errors-not-abort", "02-errors-not-abort")] {
        let hash = SourceHasher.hash(of: ["Exercises/\(folder)/Sources"], root: repo.root)
        progress[id].lastCheck = check(true, hash)
      }
      try ProgressStore(root: repo.root).save(progress)
      #expect(try repo.read(".workshop/.gitignore").contains("*"))
      #expect(StatusReport.compute(root: repo.root).next.hasPrefix("All 2 exercises are done."))
    }
  }
}
