import ArgumentParser
import Foundation

struct ListCommand: ParsableCommand {
  static let configuration = CommandConfiguration(commandName: "list", abstract: "List the exercises: id, stage, title.")

  @OptionGroup var common: CommonOptions

  func run() throws {
    try withWorkshopEnvironment { environment in
      let root = try common.workspaceRoot(environment)
      guard let exercises = try ExerciseManifest.load(root: root) else {
        environment.output.line("The exercises are not in this checkout yet (there is no \(ExerciseManifest.path)).")
        return
      }
      let output = environment.output
      let style = environment.style
      let idWidth = max("id".count, exercises.map(\.id.count).max() ?? 0)
      output.line(style.bold("id".padding(toLength: idWidth, withPad: " ", startingAt: 0) + "  stage  title"))
      for exercise in exercises {
        let id = exercise.id.padding(toLength: idWidth, withPad: " ", startingAt: 0)
        let stage = String(exercise.stage).padding(toLength: 5, withPad: " ", startingAt: 0)
        output.line("\(id)  \(stage)  \(exercise.title)")
      }
    }
  }
}
