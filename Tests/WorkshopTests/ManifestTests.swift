import Foundation
import Testing

@testable import Workshop

@Suite("The exercise manifest")
struct ManifestTests {
  private func problems(_ json: String) -> [String] {
    listProblems(path: "Exercises/exercises.json") { _ = try ExerciseManifest.parse(Data(json.utf8), stages: TempRepo.stageNumbers) }
  }

  @Test func parsesAGoodManifestWithDefaults() throws {
    let exercises = try ExerciseManifest.parse(
      Data(
        """
        [{"id": "01-model-not-found", "stage": 1, "title": "Find the model", "testTarget": "Exercise01Tests",
          "sources": ["Exercises/01-model-not-found/Sources"], "futureKey": true},
         {"id": "02-x", "stage": 2, "title": "Two", "testTarget": "Exercise02Tests", "sources": ["Exercises/02-x/Sources/A.swift"],
          "readme": "Exercises/02-x/TASK.md", "hints": "Docs/hints-02.md", "solution": "Exercises/Solutions/two"}]
        """.utf8), stages: TempRepo.stageNumbers)
    #expect(exercises.map(\.id) == ["01-model-not-found", "02-x"])
    let first = exercises[0]
    #expect(first.stage == 1 && first.title == "Find the model" && first.testTarget == "Exercise01Tests")
    #expect(first.readmePath == "Exercises/01-model-not-found/README.md")
    #expect(first.hintsPath == "Exercises/01-model-not-found/HINTS.md")
    #expect(first.solutionPath == "Exercises/Support/Proofs/Solutions/01-model-not-found")
    #expect(first.testFilter == #"^Exercise01Tests\."#)
    #expect(exercises[1].readmePath == "Exercises/02-x/TASK.md")
    #expect(exercises[1].hintsPath == "Docs/hints-02.md")
    #expect(exercises[1].solutionPath == "Exercises/Solutions/two")
  }

  @Test func anEmptyManifestIsFine() throws {
    #expect(try ExerciseManifest.parse(Data("[]".utf8), stages: TempRepo.stageNumbers).isEmpty)
  }

  @Test func invalidJSONSaysSo() {
    let found = problems("[{\"id\": \"01\",]")
    #expect(found.count == 1)
    #expect(found.first?.hasPrefix("it is not valid JSON") == true)
    let located = problems("[{\"id\": \"01-a\", \"stage\": 1,\n \"title\": \"x\" \"testTarget\": \"T\"}]")
    #expect(located.first?.contains("line 2, column 15") == true, "\(located)")
  }

  @Test func anObjectInsteadOfAnArrayIsExplained() {
    #expect(problems(#"{"id": "01"}"#) == [#"it should be a JSON array of exercises: [{"id": …, "stage": …, …}, …]"#])
  }

  @Test func aMissingKeyNamesTheEntryAndTheKey() {
    let found = problems(#"[{"id": "01-a", "stage": 1, "title": "A", "sources": ["Exercises/01-a"]}]"#)
    #expect(found == [#"entry 1 ("01-a") has no "testTarget""#])
  }

  @Test func aWrongTypeNamesTheEntryTheKeyAndTheType() {
    let found = problems(
      #"""
      [{"id": "01-a", "stage": 1, "title": "A", "testTarget": "T1", "sources": ["Exercises/01-a"]},
       {"id": "02-b", "stage": "two", "title": "B", "testTarget": "T2", "sources": ["Exercises/02-b"]}]
      """#)
    #expect(found == [#"entry 2 ("02-b"): "stage" should be a whole number"#])
    #expect(problems("[42]") == [#"entry 1 should be an object ({"id": …})"#])
    #expect(
      problems(#"[{"id": "a", "stage": 1, "title": "A", "testTarget": "T", "sources": "Exercises/a"}]"#).first?.contains("list") == true)
  }

  @Test func meaningProblemsAreAllListed() {
    let found = problems(
      #"""
      [{"id": "01-a", "stage": 7, "title": " ", "testTarget": "T1Tests", "sources": []},
       {"id": "01-a", "stage": 1, "title": "B", "testTarget": "T1Tests", "sources": ["/etc/passwd", "Exercises/../../x"]},
       {"id": "bad id", "stage": 1, "title": "C", "testTarget": "Bad-Target", "sources": ["Exercises/c"], "starterHash": "abc"},
       {"id": "04-d", "stage": 2, "title": "D", "testTarget": "Exercise04", "sources": ["Exercises/04-d/Sources"]}]
      """#)
    #expect(
      found == [
        #"entry 1 ("01-a"): "stage" is 7; it should be one of 0, 1, 2, 3, 4"#,
        #"entry 1 ("01-a"): "title" is empty"#,
        #"entry 1 ("01-a"): "sources" is empty; list the files or folders the learner edits"#,
        #"entry 2 ("01-a"): the id "01-a" is used twice"#,
        #"entry 2 ("01-a"): the test target "T1Tests" belongs to another exercise too"#,
        #"entry 2 ("01-a"): "/etc/passwd" should be a path relative to the workspace root, without "..""#,
        #"entry 2 ("01-a"): "Exercises/../../x" should be a path relative to the workspace root, without "..""#,
        #"entry 3 ("bad id"): "id" should be a non-empty name of letters, digits, '-', '_' or '.' (it names a folder)"#,
        #"entry 3 ("bad id"): "testTarget" should be the name of a test target, like "Exercise01Tests""#,
        #"entry 3 ("bad id"): "starterHash" should be 64 hex digits (`swift run workshop starter-hashes` prints it)"#,
        #"entry 4 ("04-d"): "testTarget" should end in "Tests", like "Exercise01Tests" (Exercises/Package.swift names the starter's target "Exercise01" after it)"#,
      ])
  }

  @Test func theErrorMessageListsEveryProblem() {
    let error = WorkshopError.malformedManifest(path: "Exercises/exercises.json", problems: ["one", "two"])
    #expect(error.description == "Exercises/exercises.json is malformed:\n  - one\n  - two")
  }

  @Test func aCheckoutWithoutManifestHasNoExercisesAndNoError() throws {
    try TempRepo.with { repo in
      #expect(try ExerciseManifest.load(root: repo.root) == nil)
      try repo.addExercises()
      #expect(try ExerciseManifest.load(root: repo.root)?.count == 2)
    }
  }

  @Test func exercisesAreFoundByIDNumberOrPrefix() throws {
    let exercises = [
      Exercise(id: "01-model-not-found", stage: 1, title: "A", testTarget: "E1", sources: ["a"]),
      Exercise(id: "02-errors", stage: 1, title: "B", testTarget: "E2", sources: ["b"]),
      Exercise(id: "12-workers", stage: 4, title: "C", testTarget: "E12", sources: ["c"]),
    ]
    #expect(try ExerciseManifest.select("02-errors", from: exercises).id == "02-errors")
    #expect(try ExerciseManifest.select("01", from: exercises).id == "01-model-not-found")
    #expect(try ExerciseManifest.select("2", from: exercises).id == "02-errors")
    #expect(try ExerciseManifest.select("12", from: exercises).id == "12-workers")
    #expect(try ExerciseManifest.select("01-model", from: exercises).id == "01-model-not-found")
    #expect(throws: WorkshopError.ambiguousExercise("0", matches: ["01-model-not-found", "02-errors"])) {
      try ExerciseManifest.select("0", from: exercises)
    }
    #expect(throws: WorkshopError.unknownExercise("99", known: exercises.map(\.id))) {
      try ExerciseManifest.select("99", from: exercises)
    }
  }

  @Test func anExerciseOwnsItsSourcesAndItsFolder() {
    let exercise = Exercise(id: "01-a", stage: 1, title: "A", testTarget: "E1", sources: ["Shared/A.swift", "Exercises/01-a/Sources/"])
    #expect(exercise.owns("Shared/A.swift"))
    #expect(exercise.owns("Exercises/01-a/Sources/Stack.swift"))
    #expect(exercise.owns("Exercises/01-a/Tests/T.swift"))
    #expect(exercise.owns("Exercises/Tests/01-a/T.swift"))
    #expect(!exercise.owns("Exercises/Support/Proofs/Solutions/01-a/A.swift"))
    #expect(!exercise.owns("Exercises/01-ab/Sources/Stack.swift"))
    #expect(!exercise.owns("Shared/A.swift.orig"))
  }
}
