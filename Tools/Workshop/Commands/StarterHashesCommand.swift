import ArgumentParser
import Foundation

/// For whoever writes exercises: the `starterHash` of each exercise's sources as they are now, to put in
/// Exercises/exercises.json so status can tell "not started" for certain; `--check` (for CI, on a clean
/// checkout) fails when a recorded starterHash no longer matches the starter sources.
struct StarterHashesCommand: ParsableCommand {
  static let configuration = CommandConfiguration(
    commandName: "starter-hashes",
    abstract: "Print each exercise's sources hash, for the manifest's \"starterHash\" (for exercise authors).",
    shouldDisplay: false
  )

  @OptionGroup var common: CommonOptions

  @Flag(help: "Fail when a starterHash in the manifest does not match the sources (run it on a clean checkout).")
  var check = false

  func run() throws {
    try withWorkshopEnvironment { environment in
      let root = try common.workspaceRoot(environment)
      var stale: [String] = []
      for exercise in try requireExercises(root: root) {
        let hash = SourceHasher.hash(of: exercise.sources, root: root)
        if check {
          if let recorded = exercise.starterHash, recorded != hash { stale.append(exercise.id) }
        } else {
          environment.output.line("\(exercise.id)  \(hash)")
        }
      }
      guard check else { return }
      if stale.isEmpty {
        environment.output.line("Every starterHash in \(ExerciseManifest.path) matches its sources.")
      } else {
        environment.output.error(
          "These starterHash values in \(ExerciseManifest.path) do not match the sources: \(stale.joined(separator: ", ")). "
            + "Update them from `swift run workshop starter-hashes`.")
        throw ExitCode.failure
      }
    }
  }
}
