import Foundation
import Testing

@testable import Workshop

@Suite("The stage list")
struct StageListTests {
  private func problems(_ json: String) -> [String] {
    listProblems(path: "Stages/stages.json") { _ = try StageCatalog.parse(Data(json.utf8)) }
  }

  @Test func parsesAStageListWithItsOptionalKeys() throws {
    let stages = try StageCatalog.parse(
      Data(
        #"""
        [{"number": 0, "title": "Engine", "folder": "Stages/Engine", "adds": "the engine", "futureKey": 1},
         {"number": 1, "title": "One", "folder": "Stages/One", "adds": "a stack", "chapter": "Docs/01.md",
          "library": "Stage1", "tests": "Stage1Tests", "demo": "stage1-demo"}]
        """#.utf8))
    #expect(stages.map(\.number) == [0, 1])
    #expect(stages[0] == Stage(number: 0, title: "Engine", folder: "Stages/Engine", adds: "the engine"))
    #expect(stages[1].demo == "stage1-demo" && stages[1].library == "Stage1" && stages[1].tests == "Stage1Tests")
    #expect(stages[1].chapter == "Docs/01.md")
    #expect(stages[1].demoFolder == "Stages/One/Demo")
  }

  @Test func shapeErrorsNameTheEntryAndTheKey() {
    #expect(
      problems(#"{"number": 0}"#) == [#"it should be a JSON array of stages: [{"number": …, "title": …, "folder": …, "adds": …}, …]"#])
    #expect(
      problems(#"[{"number": 0, "title": "Engine", "folder": "Stages/Engine"}]"#) == [#"entry 1 ("Engine") has no "adds""#])
    #expect(
      problems(#"[{"number": "zero", "title": "Engine", "folder": "Stages/Engine", "adds": "x"}]"#)
        == [#"entry 1 ("Engine"): "number" should be a whole number"#])
    #expect(problems("[7]") == [#"entry 1 should be an object ({"title": …})"#])
  }

  @Test func meaningProblemsAreAllListed() {
    let found = problems(
      #"""
      [{"number": 0, "title": "Engine", "folder": "Stages/Engine", "adds": "the engine"},
       {"number": 2, "title": " ", "folder": "/Stages/One", "adds": "", "demo": "stage one"},
       {"number": 2, "title": "Two", "folder": "Stages/Two", "adds": "two", "chapter": "../Two.md", "library": "Stage-2",
        "demo": "stage2-demo"},
       {"number": 3, "title": "Three", "folder": "Stages/Three", "adds": "three", "tests": "", "demo": "stage2-demo",
        "demoBuild": "fast"},
       {"number": 4, "title": "Four", "folder": "Stages/Four", "adds": "four", "demoArguments": ["--count", "5"]}]
      """#)
    #expect(
      found == [
        #"entry 2: "number" is 2; the stages are numbered 0, 1, 2, … in order, so it should be 1"#,
        #"entry 2: "title" is empty"#,
        #"entry 2: "adds" is empty"#,
        #"entry 2: "/Stages/One" should be a path relative to the workspace root, without "..""#,
        #"entry 2: "demo" should be the name of an executable product, like "stage1-demo""#,
        #"entry 3 ("Two"): "../Two.md" should be a path relative to the workspace root, without "..""#,
        #"entry 3 ("Two"): "library" should be the name of a target, like "Stage1""#,
        #"entry 4 ("Three"): "tests" should be the name of a target, like "Stage1""#,
        #"entry 4 ("Three"): the demo "stage2-demo" belongs to another stage too"#,
        #"entry 4 ("Three"): "demoBuild" is "fast"; it should be "debug" or "release""#,
        #"entry 5 ("Four"): "demoBuild" and "demoArguments" need a "demo""#,
      ])
    #expect(problems("[]") == ["it lists no stages"])
  }

  @Test func withoutTheStageListTheStatusSaysWhichFileToFix() throws {
    try TempRepo.with(stageList: nil) { repo in
      try repo.addExercises()
      #expect(throws: WorkshopError.self) { try StageCatalog.load(root: repo.root) }
      let report = StatusReport.compute(root: repo.root)
      #expect(report.stages.isEmpty)
      #expect(report.next.hasPrefix("Next: fix Stages/stages.json"))
      let recorder = OutputRecorder()
      #expect(try runWorkshop(["status", "--root", repo.root.path], in: testEnvironment(recorder)) == 1)
      #expect(recorder.standardOutput.contains("Stages/stages.json is malformed:\n  - it is missing"))
      // The exercises belong to stages, so they cannot be listed without the stage list either.
      let list = OutputRecorder()
      #expect(try runWorkshop(["list", "--root", repo.root.path], in: testEnvironment(list)) == 1)
      #expect(list.standardError.hasPrefix("Stages/stages.json is malformed:"))
    }
  }

  @Test func theExercisesMustBelongToListedStages() throws {
    try TempRepo.with(stageList: #"[{"number": 0, "title": "Engine", "folder": "Stages/ObjectGraph", "adds": "the engine"}]"#) { repo in
      try repo.addExercises()
      #expect(
        throws: WorkshopError.malformedManifest(
          path: "Exercises/exercises.json",
          problems: [
            #"entry 1 ("01-model-not-found"): "stage" is 1; it should be one of 0"#,
            #"entry 2 ("02-errors-not-abort"): "stage" is 1; it should be one of 0"#,
          ])
      ) { try ExerciseManifest.load(root: repo.root) }
    }
  }

  @Test func anUnknownStageNamesTheStagesThereAre() throws {
    try TempRepo.with(stages: ["ObjectGraph", "Stage1-SingleContext"], demos: ["Stage1-SingleContext"]) { repo in
      let recorder = OutputRecorder()
      let runner = FakeRunner()
      let status = try runWorkshop(["demo", "--root", repo.root.path, "9"], in: testEnvironment(recorder, runner: runner))
      #expect(status == 1)
      #expect(recorder.standardError == "There is no stage 9: the stages are numbered 0–4.\n")
      #expect(runner.calls.isEmpty)
    }
  }

  @Test func theWorkspacesOwnListsAreValid() throws {
    // This file is Tests/WorkshopTests/StageListTests.swift: the workspace is two folders up.
    let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
    let stages = try StageCatalog.load(root: root)
    #expect(stages.first?.folder == "Stages/ObjectGraph")
    let survey = StageAvailability.survey(root: root, stages: stages)
    #expect(survey.filter(\.hasDemo).map(\.stage.number) == survey.filter { $0.isPresent && $0.stage.demo != nil }.map(\.stage.number))
    let exercises = try #require(try ExerciseManifest.load(root: root))
    #expect(!exercises.isEmpty)
    for exercise in exercises {
      #expect(
        survey.first { $0.stage.number == exercise.stage }?.isPresent == true, "\(exercise.id) belongs to a stage not in this checkout")
    }
  }
}
