// swift-tools-version: 6.0
// The workshop's exercises: starter code you edit, reference solutions, and the checks both must pass.
// Run `swift test --filter Exercise01Tests` here to check exercise 01 (see README.md).
import PackageDescription

/// The exercises, in order: folder name and number (also listed in exercises.json for the `workshop` command).
let exercises: [(folder: String, number: String)] = [
  ("01-model-not-found", "01"),
  ("02-store-errors-reach-the-caller", "02"),
  ("03-save-only-when-needed", "03"),
  ("04-main-child-private-parent", "04"),
  ("05-save-changes-in-order", "05"),
  ("06-crossing-the-streams", "06"),
]

let engine: [Target.Dependency] = [
  .product(name: "ObjectGraph", package: "CoreDataStackWorkshop"),
  .product(name: "NotesModel", package: "CoreDataStackWorkshop"),
]
// The root package's test scaffolding (temporary folders, the main-queue probe, the watchdog, notification logs).
let testSupport: Target.Dependency = .product(name: "TestSupport", package: "CoreDataStackWorkshop")

var targets: [Target] = [
  // `ExerciseNotDone`, thrown by every untouched starter.
  .target(name: "ExerciseKit", path: "Support/ExerciseKit"),
  // What the checks share: which code is under test, the tutorial's model, the concurrency-debug recorder.
  .target(name: "ExerciseChecks", dependencies: ["ExerciseKit"] + engine, path: "Support/ExerciseChecks"),
]
for exercise in exercises {
  let starter = "Exercise\(exercise.number)"
  targets += [
    // The starter: the code you edit.
    .target(name: starter, dependencies: ["ExerciseKit"] + engine, path: "\(exercise.folder)/Sources"),
    // The reference solution, with the same public API.
    .target(name: "\(starter)Solution", dependencies: engine, path: "Solutions/\(exercise.folder)"),
    // One set of checks, run against the starter, or against the solution when WORKSHOP_SOLUTIONS=1.
    .testTarget(
      name: "\(starter)Tests",
      dependencies: [.target(name: starter), .target(name: "\(starter)Solution"), "ExerciseChecks", "ExerciseKit", testSupport] + engine,
      path: "Tests/\(exercise.folder)"),
  ]
}

let package = Package(
  name: "CoreDataStackExercises",
  platforms: [.macOS(.v15)],
  dependencies: [.package(name: "CoreDataStackWorkshop", path: "..")],
  targets: targets,
  swiftLanguageModes: [.v6]
)
