import ArgumentParser
import Foundation

struct HintCommand: ParsableCommand {
  static let configuration = CommandConfiguration(
    commandName: "hint",
    abstract: "Show the next hint for an exercise (from its HINTS.md); the workshop remembers which you have seen."
  )

  @OptionGroup var common: CommonOptions

  @Argument(help: "The exercise: its id, or its number (e.g. 01). The one you are on when omitted.")
  var exercise: String?

  @Flag(help: "Show all the hints at once.")
  var all = false

  func run() throws {
    try withWorkshopEnvironment { environment in
      let output = environment.output
      let style = environment.style
      let root = try common.workspaceRoot(environment)
      let manifest = try requireExercises(root: root)
      let exercise: Exercise
      if let named = self.exercise {
        exercise = try ExerciseManifest.select(named, from: manifest)
      } else {
        // The one `swift run workshop` calls next (StatusReport.current: it follows the learner's progress).
        guard let current = StatusReport.currentExercise(of: manifest, root: root) else {
          throw WorkshopError.noCurrentExercise(done: manifest.count)
        }
        exercise = current
        output.line(style.dim("Hints for \(exercise.id), the exercise you are on (name another: `swift run workshop hint NN`)."))
        output.line()
      }
      let hintsURL = root.appendingPathComponent(exercise.hintsPath)
      guard let markdown = try? String(contentsOf: hintsURL, encoding: .utf8) else {
        throw WorkshopError.noHintsFile(exercise: exercise.id, path: exercise.hintsPath)
      }
      let hints = HintBook.parse(markdown)
      let store = ProgressStore(root: root)
      var progress = store.load().progress
      let solution = solutionSentence(for: exercise, root: root)

      func show(_ hint: Hint) {
        output.line(style.bold(hint.heading))
        if !hint.body.isEmpty { output.line(hint.body) }
      }

      if all {
        for (index, hint) in hints.enumerated() {
          if index > 0 { output.line() }
          show(hint)
        }
        output.line()
        output.line(hints.isEmpty ? "\(exercise.hintsPath) has no `## Hint 1` sections. \(solution)" : "That is every hint. \(solution)")
        progress[exercise.id].hintsShown = hints.count
        try store.save(progress)
        return
      }

      switch HintBook.next(after: progress[exercise.id].hintsShown, in: hints) {
      case .noHints:
        output.line("\(exercise.hintsPath) has no `## Hint 1` sections. \(solution)")
      case .noMore(let total):
        output.line(
          "No more hints for \(exercise.id): you have seen all \(total) "
            + "(`swift run workshop hint \(exercise.id) --all` shows them again). \(solution)")
      case .hint(let hint, let position, let total):
        show(hint)
        output.line()
        if position < total {
          output.line(style.dim("Hint \(position) of \(total). Still stuck? Run `swift run workshop hint \(exercise.id)` again."))
        } else {
          output.line(style.dim("That was the last hint (\(position) of \(total)). \(solution)"))
        }
        progress[exercise.id].hintsShown = position
        try store.save(progress)
      }
    }
  }

  private func solutionSentence(for exercise: Exercise, root: URL) -> String {
    let folder = exercise.solutionPath.hasSuffix("/") ? exercise.solutionPath : exercise.solutionPath + "/"
    if FileManager.default.fileExists(atPath: root.appendingPathComponent(exercise.solutionPath).path) {
      return "The reference solution is in \(folder)."
    }
    return "The reference solution will be in \(folder) (not in this checkout yet)."
  }
}
