// swift-tools-version: 6.0
// The workshop's exercises: starter code you edit, reference solutions, and the checks both must pass.
// Run `swift test --filter Exercise01Tests` here to check exercise 01 (see README.md).
import Foundation
import PackageDescription

/// One exercise as `exercises.json` lists it: the one list of exercises, which `swift run workshop`
/// reads too. Only the keys this package needs are read here.
struct Exercise: Decodable {
  /// The exercise's folder name: `Exercises/<id>/Sources` is the starter, `Support/Proofs/Solutions/<id>` the
  /// reference solution, `Tests/<id>` the checks.
  var id: String
  /// The checks' test target, `ExerciseNNTests`; the starter's target is the same name without `Tests`.
  var testTarget: String
}

/// The exercises, in order. A manifest cannot throw: a list that cannot be read stops here with a
/// message, which SwiftPM shows, rather than leaving a package with no exercises in it.
let exercises: [Exercise] = {
  let list = URL(fileURLWithPath: Context.packageDirectory).appendingPathComponent("exercises.json")
  do {
    return try JSONDecoder().decode([Exercise].self, from: Data(contentsOf: list))
  } catch {
    FileHandle.standardError.write(Data("Cannot read the exercise list \(list.path): \(error)\n".utf8))
    exit(1)
  }
}()

let engine: [Target.Dependency] = [
  .product(name: "ObjectGraph", package: "CoreDataStackWorkshop"),
  .product(name: "NotesModel", package: "CoreDataStackWorkshop"),
]
// The root package's test scaffolding: TestSupport (temporary folders, the main-queue probe, the watchdog,
// notification logs) and EngineTestSupport (`TutorialStack`: the tutorial's model, stacks, version 1 stores).
let testSupport: [Target.Dependency] = [
  .product(name: "TestSupport", package: "CoreDataStackWorkshop"),
  .product(name: "EngineTestSupport", package: "CoreDataStackWorkshop"),
]

var targets: [Target] = [
  // `ExerciseNotDone`, thrown by every untouched starter.
  .target(name: "ExerciseKit", path: "Support/ExerciseKit"),
  // What the checks share: which code is under test, the child-process runner and its watchdog, the
  // concurrency-debug recorder.
  .target(name: "ExerciseChecks", dependencies: ["ExerciseKit"] + engine + testSupport, path: "Support/ExerciseChecks"),
  // The support's own tests: what an untouched starter's error says, how checks word an error.
  .testTarget(name: "ExerciseSupportTests", dependencies: ["ExerciseKit", "ExerciseChecks"], path: "Support/ExerciseSupportTests"),
]
for exercise in exercises {
  let starter = exercise.testTarget.hasSuffix("Tests") ? String(exercise.testTarget.dropLast("Tests".count)) : exercise.testTarget
  targets += [
    // The starter: the code you edit.
    .target(name: starter, dependencies: ["ExerciseKit"] + engine, path: "\(exercise.id)/Sources"),
    // The reference solution, with the same public API.
    .target(name: "\(starter)Solution", dependencies: engine, path: "Support/Proofs/Solutions/\(exercise.id)"),
    // One set of checks, run against the starter, or against the solution when WORKSHOP_SOLUTIONS=1.
    .testTarget(
      name: exercise.testTarget,
      dependencies: [.target(name: starter), .target(name: "\(starter)Solution"), "ExerciseChecks", "ExerciseKit"] + testSupport + engine,
      path: "Tests/\(exercise.id)"),
  ]
}

let package = Package(
  name: "CoreDataStackExercises",
  platforms: [.macOS(.v15)],
  dependencies: [.package(name: "CoreDataStackWorkshop", path: "..")],
  targets: targets,
  swiftLanguageModes: [.v6]
)
