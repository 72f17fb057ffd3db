import Foundation

/// Every failure a learner can run into, each with a message that says what to do.
enum WorkshopError: Error, Equatable, CustomStringConvertible {
  case notInWorkspace(searchedFrom: String)
  case notAWorkspace(String)
  case malformedManifest(path: String, problems: [String])
  case exercisesNotInCheckout
  case exercisesPackageMissing(String)
  case unknownExercise(String, known: [String])
  case ambiguousExercise(String, matches: [String])
  case unknownStage(Int, known: [Int])
  case stageNotInCheckout(Stage, available: [Stage])
  case noDemo(Stage, available: [Stage])
  case missingPrerequisites([String])
  case swiftNotOnPath
  case noHintsFile(exercise: String, path: String)
  case noCurrentExercise(done: Int)
  case cannotReset(exercise: String, reason: String)
  case progressNotSaved(path: String, reason: String)
  case couldNotRun(command: String, reason: String)
  case doccNotFound(swift: String)
  case siteNotBuilt(String)
  case doccFailed(command: String, status: Int32)
  case symbolGraphNotExtracted(status: Int32)
  case symbolGraphNotNamed(marker: String)
  case siteFolderInUse(String)

  var description: String {
    switch self {
    case .notInWorkspace(let folder):
      return """
        This is not inside the Core Data stack workshop: no folder above \(folder) has both Package.swift and Stages/.
        Run the command from inside the workspace (the folder you cloned, or any folder below it).
        """
    case .notAWorkspace(let folder):
      return "\(folder) is not the workshop's folder: it needs both Package.swift and a Stages/ folder."
    case .malformedManifest(let path, let problems):
      return (["\(path) is malformed:"] + problems.map { "  - \($0)" }).joined(separator: "\n")
    case .exercisesNotInCheckout:
      return "The exercises are not in this checkout yet (there is no \(ExerciseManifest.path))."
    case .exercisesPackageMissing(let path):
      return "\(path) is missing: the exercises are a package of their own, and it is not in this checkout."
    case .unknownExercise(let name, let known):
      let list = known.isEmpty ? "there are none yet" : known.joined(separator: ", ")
      return "There is no exercise \"\(name)\". Exercises: \(list). (`swift run workshop list` shows them.)"
    case .ambiguousExercise(let name, let matches):
      return "\"\(name)\" could be any of \(matches.joined(separator: ", ")): give more of the id."
    case .unknownStage(let number, let known):
      guard let first = known.first, let last = known.last else { return "There is no stage \(number): \(StageCatalog.path) lists none." }
      return "There is no stage \(number): the stages are numbered \(first)–\(last)."
    case .stageNotInCheckout(let stage, let available):
      return "Stage \(stage.number) (\(stage.title)) is not in this checkout yet, so it has no demo to run. \(Self.demoList(available))"
    case .noDemo(let stage, let available):
      return "Stage \(stage.number) (\(stage.title)) has no demo yet. \(Self.demoList(available))"
    case .missingPrerequisites(let problems):
      return problems.joined(separator: "\n")
    case .swiftNotOnPath:
      return """
        `swift` is not on your PATH, so the workshop cannot build or test anything.
        Add your Swift toolchain's usr/bin folder to PATH (for a toolchain in /opt/swift: export PATH=/opt/swift/usr/bin:$PATH).
        """
    case .cannotReset(let exercise, let reason):
      return "Cannot reset \(exercise): \(reason). Nothing was changed."
    case .noCurrentExercise(let done):
      return
        "All \(done) exercises are done, so there is no current one. Name the exercise you want: `swift run workshop hint 06` (its number or id)."
    case .noHintsFile(let exercise, let path):
      return "\(exercise) has no hints: \(path) is not in this checkout."
    case .progressNotSaved(let path, let reason):
      return "Could not save your progress in \(path): \(reason)"
    case .couldNotRun(let command, let reason):
      return "Could not run `\(command)`: \(reason)"
    case .doccNotFound(let swift):
      return """
        `docc` was not found on your PATH nor next to \(swift). It ships with the Swift toolchain (usr/bin/docc); \
        a toolchain without it cannot render the site. The chapters are plain Markdown in Docs/, readable as they are.
        """
    case .siteNotBuilt(let problem):
      return "The site was not built: \(problem)"
    case .doccFailed(let command, let status):
      return
        "`docc \(command)` failed (exit status \(status)); its messages above say which page and line. The chapters in Docs/ are unchanged."
    case .symbolGraphNotExtracted(let status):
      return """
        The engine's symbol graph, which the site's reference is made from, was not extracted: \
        `swift package objectgraph-symbol-graph` failed (exit status \(status)). Its messages above say why \
        (a compile error shows the same in `swift build --target ObjectGraph`). Nothing was rendered.
        """
    case .symbolGraphNotNamed(let marker):
      return """
        `swift package objectgraph-symbol-graph` succeeded but printed no line starting "\(marker)", so the \
        engine's symbol graph cannot be found. Tools/SymbolGraphPlugin prints it; check that the plugin is \
        the one in this checkout. Nothing was rendered.
        """
    case .siteFolderInUse(let path):
      return """
        \(path) holds files DocC did not write, so the site is not written there (it replaces the folder). \
        Give --output an empty or new folder.
        """
    }
  }

  private static func demoList(_ stages: [Stage]) -> String {
    if stages.isEmpty { return "There are no demos in this checkout yet." }
    return "Demos in this checkout: "
      + stages.map { "stage \($0.number) (`swift run workshop demo \($0.number)`)" }.joined(separator: ", ") + "."
  }
}
