// The `workshop` command: the workspace's front door (`swift run workshop`). It shows the stages and
// your exercises, runs demos, checks exercises with `swift test`, gives hints, and remembers progress in
// `.workshop/progress.json`. Everything it shows comes from the checkout's files: it never builds
// anything just to show the status.
import ArgumentParser
import Foundation

@main
struct Workshop: ParsableCommand {
  static let configuration = CommandConfiguration(
    commandName: "workshop",
    abstract: "The Core Data stack workshop: the stages, your exercises, what to do next.",
    discussion: """
      Run it from anywhere inside the workspace; with no subcommand it shows the status. \
      Each exercise lives in Exercises/ with its task (README.md) and hints (HINTS.md). \
      `swift run workshop watch` checks the exercise you are on each time you save it, and moves on to the \
      next when it passes; `swift run workshop check` checks once. \
      Your progress is kept in .workshop/progress.json, which git ignores.
      """,
    subcommands: [
      StatusCommand.self, ListCommand.self, CheckCommand.self, WatchCommand.self, HintCommand.self, ResetCommand.self, DemoCommand.self,
      DiffCommand.self, DocsCommand.self, StarterHashesCommand.self,
    ],
    defaultSubcommand: StatusCommand.self
  )
}

/// Options every subcommand takes.
struct CommonOptions: ParsableArguments {
  @Option(help: .hidden)
  var root: String?

  /// The workspace root: `--root` if given (for tests), else found from the current folder upwards.
  func workspaceRoot(_ environment: WorkshopEnvironment) throws -> URL {
    let here = URL(fileURLWithPath: environment.currentDirectory)
    if let root { return try RepoRoot.validate(URL(fileURLWithPath: root, relativeTo: here)) }
    return try RepoRoot.find(from: here)
  }
}

/// Runs a command's body in the current environment; a `WorkshopError` becomes its message on standard
/// error and exit status 1, instead of a stack trace or ArgumentParser's generic "Error:".
func withWorkshopEnvironment(_ body: (WorkshopEnvironment) throws -> Void) throws {
  let environment = WorkshopEnvironment.current
  do {
    try body(environment)
  } catch let error as WorkshopError {
    environment.output.error(error.description)
    throw ExitCode.failure
  }
}

/// The exercises, or the error that says they are not in this checkout.
func requireExercises(root: URL) throws -> [Exercise] {
  guard let exercises = try ExerciseManifest.load(root: root) else { throw WorkshopError.exercisesNotInCheckout }
  return exercises
}
