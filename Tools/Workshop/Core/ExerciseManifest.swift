import Foundation

// The exercise manifest: `Exercises/exercises.json`, a JSON array with one object per exercise, in the
// order a learner should do them. Paths are relative to the workspace root. It is the only list of the
// exercises: `Exercises/Package.swift` reads it too, and makes three targets per entry: the starter
// `<testTarget without "Tests">` from `Exercises/<id>/Sources`, the reference solution
// `<starter>Solution` from `Exercises/Support/Proofs/Solutions/<id>`, and the checks `<testTarget>` from
// `Exercises/Tests/<id>`.
//
//   [
//     {
//       "id": "01-model-not-found",                          required: the folder-style name learners type
//       "stage": 1,                                          required: a stage number of Stages/stages.json
//       "title": "Find the model",                           required: one line
//       "testTarget": "Exercise01Tests",                     required: the checks' test target; ends in "Tests"
//       "sources": ["Exercises/01-model-not-found/Sources"], required: the files or folders the learner edits
//       "readme": "Exercises/01-model-not-found/README.md",  optional, this is the default
//       "hints": "Exercises/01-model-not-found/HINTS.md",    optional, this is the default
//       "solution": "Exercises/Support/Proofs/Solutions/01-model-not-found", optional, this is the default
//       "starterHash": "…64 hex digits…"                     optional: `swift run workshop starter-hashes` prints it
//     }
//   ]
//
// `starterHash` is the hash of the untouched starter sources (see SourceHasher). With it, status knows
// for certain whether an exercise has been started; without it, the workshop records the hash the first
// time it sees the exercise. Unknown keys are ignored. `workshop check` runs
// `swift test --package-path Exercises --filter '^<testTarget>\.'`; a compile error in an exercise's
// sources, in `Exercises/<id>/` or in `Exercises/Tests/<id>/` is reported as that exercise's.

/// One exercise, as the manifest describes it.
struct Exercise: Sendable, Equatable, Decodable {
  var id: String
  var stage: Int
  var title: String
  var testTarget: String
  var sources: [String]
  var readme: String?
  var hints: String?
  var solution: String?
  var starterHash: String?

  init(
    id: String, stage: Int, title: String, testTarget: String, sources: [String], readme: String? = nil, hints: String? = nil,
    solution: String? = nil, starterHash: String? = nil
  ) {
    self.id = id
    self.stage = stage
    self.title = title
    self.testTarget = testTarget
    self.sources = sources
    self.readme = readme
    self.hints = hints
    self.solution = solution
    self.starterHash = starterHash
  }

  var readmePath: String { readme ?? "Exercises/\(id)/README.md" }
  var hintsPath: String { hints ?? "Exercises/\(id)/HINTS.md" }
  var solutionPath: String { solution ?? "Exercises/Support/Proofs/Solutions/\(id)" }
  /// The folder the exercise lives in (its README and hints, and its sources unless the manifest says otherwise).
  var folder: String { "Exercises/\(id)" }
  /// Where the exercise's checks live.
  var testsFolder: String { "Exercises/Tests/\(id)" }

  /// The `--filter` for `swift test`: the test target's tests and no other target's.
  var testFilter: String { "^" + NSRegularExpression.escapedPattern(for: testTarget) + "\\." }

  /// Whether a file (relative to the root) belongs to this exercise: its sources, its folder, its checks
  /// (a compile error in the checks usually means the learner changed the function's signature).
  func owns(_ relativePath: String) -> Bool {
    (sources + [folder, testsFolder]).contains { relativePath == $0 || relativePath.hasPrefix($0.hasSuffix("/") ? $0 : $0 + "/") }
  }
}

/// Reads and checks `Exercises/exercises.json`, the one list of exercises: the workshop reads it here,
/// `Exercises/Package.swift` makes each entry's targets from it, and the docs tests check the exercise
/// tables of the READMEs against it.
enum ExerciseManifest {
  static let path = "Exercises/exercises.json"
  static let packagePath = "Exercises/Package.swift"

  private static let list = JSONList(
    path: path, entryShape: #"{"id": …, "stage": …, …}"#, nameKey: "id", contents: "exercises")

  /// The exercises, or `nil` when this checkout has no manifest yet (which is not an error). Their stages
  /// are checked against the stage list, `Stages/stages.json`.
  static func load(root: URL) throws -> [Exercise]? {
    guard let data = try list.read(root: root) else { return nil }
    let stages = try StageCatalog.load(root: root)
    return try parse(data, stages: stages.map(\.number))
  }

  /// Parses and validates a manifest; every problem found is in the thrown error.
  /// - Parameter stages: the stage numbers an exercise may belong to.
  static func parse(_ data: Data, stages: [Int]) throws -> [Exercise] {
    let exercises = try list.decode(data, as: Exercise.self)
    let problems = validate(exercises, stages: stages)
    guard problems.isEmpty else { throw WorkshopError.malformedManifest(path: path, problems: problems) }
    return exercises
  }

  /// What is wrong with well-formed entries: empty or duplicate names, stages out of range, unsafe paths.
  static func validate(_ exercises: [Exercise], stages stageNumbers: [Int]) -> [String] {
    var problems: [String] = []
    var seenIDs: Set<String> = []
    var seenTargets: Set<String> = []
    for (index, exercise) in exercises.enumerated() {
      let name = exercise.id.isEmpty ? "entry \(index + 1)" : "entry \(index + 1) (\"\(exercise.id)\")"
      if !JSONList.isSimpleName(exercise.id, allowing: "-_.") {
        problems.append("\(name): \"id\" should be a non-empty name of letters, digits, '-', '_' or '.' (it names a folder)")
      } else if !seenIDs.insert(exercise.id).inserted {
        problems.append("\(name): the id \"\(exercise.id)\" is used twice")
      }
      if !stageNumbers.contains(exercise.stage) {
        problems.append(
          "\(name): \"stage\" is \(exercise.stage); it should be one of \(stageNumbers.map(String.init).joined(separator: ", "))")
      }
      if exercise.title.trimmingCharacters(in: .whitespaces).isEmpty {
        problems.append("\(name): \"title\" is empty")
      }
      if !JSONList.isSimpleName(exercise.testTarget, allowing: "_") {
        problems.append("\(name): \"testTarget\" should be the name of a test target, like \"Exercise01Tests\"")
      } else if !exercise.testTarget.hasSuffix("Tests") || exercise.testTarget == "Tests" {
        problems.append(
          "\(name): \"testTarget\" should end in \"Tests\", like \"Exercise01Tests\" (Exercises/Package.swift names the starter's target \"Exercise01\" after it)"
        )
      } else if !seenTargets.insert(exercise.testTarget).inserted {
        problems.append("\(name): the test target \"\(exercise.testTarget)\" belongs to another exercise too")
      }
      if exercise.sources.isEmpty {
        problems.append("\(name): \"sources\" is empty; list the files or folders the learner edits")
      }
      let paths = exercise.sources + [exercise.readme, exercise.hints, exercise.solution].compactMap { $0 }
      for path in paths where !JSONList.isSafeRelativePath(path) {
        problems.append("\(name): \"\(path)\" should be a path relative to the workspace root, without \"..\"")
      }
      if let hash = exercise.starterHash, hash.count != 64 || !hash.allSatisfy(\.isHexDigit) {
        problems.append("\(name): \"starterHash\" should be 64 hex digits (`swift run workshop starter-hashes` prints it)")
      }
    }
    return problems
  }

  /// Finds an exercise by id, by number ("1" or "01" for "01-…"), or by an unambiguous prefix of its id.
  static func select(_ name: String, from exercises: [Exercise]) throws -> Exercise {
    if let exact = exercises.first(where: { $0.id == name }) { return exact }
    var matches = exercises.filter { $0.id.hasPrefix(name) }
    if matches.isEmpty, let number = Int(name) {
      matches = exercises.filter { Int($0.id.prefix { $0.isNumber }) == number }
    }
    switch matches.count {
    case 1: return matches[0]
    case 0: throw WorkshopError.unknownExercise(name, known: exercises.map(\.id))
    default: throw WorkshopError.ambiguousExercise(name, matches: matches.map(\.id))
    }
  }
}
