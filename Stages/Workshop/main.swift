// The workshop's front door. Until the stage issues land it lists the planned stages, checks which of
// them exist in this checkout, and says what to do next.
import Foundation

struct Stage {
  let number: Int
  let title: String
  let folder: String
  let lesson: String
}

let stages = [
  Stage(number: 0, title: "The engine (ObjectGraph)", folder: "Stages/ObjectGraph", lesson: "model, store, coordinator, contexts, objects"),
  Stage(
    number: 1, title: "Single context", folder: "Stages/Stage1-SingleContext", lesson: "a stack of your own, errors instead of abort()"),
  Stage(
    number: 2, title: "Private parent, main child", folder: "Stages/Stage2-PrivateParent", lesson: "writing to disk off the main queue"),
  Stage(number: 3, title: "Asynchronous store loading", folder: "Stages/Stage3-AsyncLoading", lesson: "a callback when the stack is ready"),
  Stage(
    number: 4, title: "Workers and injection", folder: "Stages/Stage4-WorkersAndInjection",
    lesson: "worker contexts, merging, no singletons"),
]

/// The package root: the working directory when `swift run` is used from the checkout, else found from this file.
func packageRoot() -> URL {
  let cwd = URL(fileURLWithPath: FileManager.default.currentDirectoryPath)
  if FileManager.default.fileExists(atPath: cwd.appendingPathComponent("Package.swift").path) { return cwd }
  return URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
}

let root = packageRoot()
print("Core Data stack workshop: build a Core Data stack you can defend, one stage at a time.\n")
var firstMissing: Stage?
for stage in stages {
  let exists = FileManager.default.fileExists(atPath: root.appendingPathComponent(stage.folder).path)
  if !exists && firstMissing == nil { firstMissing = stage }
  let mark = exists ? "ready  " : "planned"
  print("  [\(mark)] Stage \(stage.number): \(stage.title) (\(stage.lesson))")
}
print("")
if let next = firstMissing {
  print("Stages marked 'planned' are not in this checkout yet; stage \(next.number) is next to be written.")
}
print("Run the tests with `swift test`. Read Docs/ for the chapters and README.md for the stage map.")
