import ArgumentParser
import Foundation

/// `workshop reset <exercise>`: puts an exercise's starter back, after keeping a copy of the learner's
/// code, and starts its hints and its last check afresh.
struct ResetCommand: ParsableCommand {
  static let configuration = CommandConfiguration(
    commandName: "reset",
    abstract: "Put an exercise's starter code back (your code is kept in .workshop/backups/) and start its hints again.",
    discussion: """
      The starter is taken from the repository's git history: the newest commit whose version of the \
      exercise's sources is the untouched starter (the manifest's starterHash). Asks before it changes \
      anything, unless --yes is given.
      """
  )

  @OptionGroup var common: CommonOptions

  @Argument(help: "The exercise: its id, or its number (e.g. 01).")
  var exercise: String

  @Flag(help: "Do not ask; reset at once.")
  var yes = false

  func run() throws {
    try withWorkshopEnvironment { environment in
      let output = environment.output
      let root = try common.workspaceRoot(environment)
      let exercise = try ExerciseManifest.select(self.exercise, from: try requireExercises(root: root))
      let store = ProgressStore(root: root)
      var progress = store.load().progress
      guard let starterHash = exercise.starterHash ?? progress[exercise.id].starterHash else {
        throw WorkshopError.cannotReset(exercise: exercise.id, reason: "the workshop does not know its starter's hash yet")
      }
      let current = SourceHasher.hash(of: exercise.sources, root: root)
      // Found before asking, so that a missing starter is said before the learner says yes; not needed
      // when the sources are the starter already.
      let starter = current == starterHash ? nil : try StarterHistory.find(exercise, hash: starterHash, root: root)

      let stamp = Self.stamp(environment.now())
      let backup = ".workshop/backups/\(exercise.id)-\(stamp)"
      if current != starterHash {
        output.line("This puts the starter of \(exercise.id) back in \(exercise.sources.joined(separator: " and ")).")
        output.line("Your code is copied to \(backup)/ first, and the exercise's hints start again from the first.")
      } else {
        output.line("\(exercise.id)'s sources are the starter already; this starts its hints again from the first.")
      }
      if !yes {
        output.write("Reset \(exercise.id)? [y/N] ", .standardOutput)
        guard let answer = environment.askUser() else {
          output.line()
          throw WorkshopError.cannotReset(
            exercise: exercise.id, reason: "there is no terminal to ask on; run it again with --yes to reset without asking")
        }
        guard ["y", "yes"].contains(answer.trimmingCharacters(in: .whitespaces).lowercased()) else {
          output.line("Nothing changed.")
          return
        }
      }

      if let starter {
        try Self.copy(exercise.sources, from: root, to: root.appendingPathComponent(backup))
        try Self.replace(exercise.sources, with: starter, root: root)
      }
      progress[exercise.id].hintsShown = 0
      progress[exercise.id].lastCheck = nil
      try store.save(progress)
      output.line(
        starter.map { "\(exercise.id) is back to its starter (from commit \($0.commit.prefix(10))); your code is in \(backup)/." }
          ?? "\(exercise.id)'s hints start again from the first.")
    }
  }

  static func stamp(_ date: Date) -> String {
    let formatter = DateFormatter()
    formatter.locale = Locale(identifier: "en_US_POSIX")
    formatter.timeZone = TimeZone(identifier: "UTC")
    formatter.dateFormat = "yyyyMMdd-HHmmss"
    return formatter.string(from: date)
  }

  /// Copies every file of `sources` (root-relative) under `destination`, keeping their paths.
  static func copy(_ sources: [String], from root: URL, to destination: URL) throws {
    for file in SourceHasher.files(of: sources, root: root) {
      let target = destination.appendingPathComponent(file)
      try FileManager.default.createDirectory(at: target.deletingLastPathComponent(), withIntermediateDirectories: true)
      try FileManager.default.copyItem(at: root.appendingPathComponent(file), to: target)
    }
  }

  /// Removes the files of `sources` and writes the starter's in their place.
  static func replace(_ sources: [String], with starter: StarterHistory.Starter, root: URL) throws {
    for file in SourceHasher.files(of: sources, root: root) {
      try FileManager.default.removeItem(at: root.appendingPathComponent(file))
    }
    for (path, contents) in starter.files {
      let url = root.appendingPathComponent(path)
      try FileManager.default.createDirectory(at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
      try contents.write(to: url)
    }
  }
}

/// Finds an exercise's untouched starter in the repository's git history.
enum StarterHistory {
  struct Starter {
    let commit: String
    let files: [(path: String, contents: Data)]
  }

  /// The newest of the last 200 commits that touched the exercise's sources (HEAD first) whose version
  /// of them hashes to `hash`.
  static func find(_ exercise: Exercise, hash: String, root: URL) throws -> Starter {
    let commits = try git(["log", "--format=%H", "-n", "200", "HEAD", "--"] + exercise.sources, root: root)
      .split(separator: "\n").map(String.init)
    for commit in commits {
      let listed = try git(["ls-tree", "-r", "--name-only", commit, "--"] + exercise.sources, root: root)
      let paths = listed.split(separator: "\n").map(String.init).filter { path in
        !path.split(separator: "/").contains { $0.hasPrefix(".") }
      }
      var files: [(path: String, contents: Data)] = []
      for path in paths { files.append((path, try gitData(["show", "\(commit):\(path)"], root: root))) }
      let missing = exercise.sources.filter { source in
        let trimmed = source.hasSuffix("/") ? String(source.dropLast()) : source
        return !paths.contains { $0 == trimmed || $0.hasPrefix(trimmed + "/") }
      }
      if SourceHasher.hash(files: files, missing: missing) == hash { return Starter(commit: commit, files: files) }
    }
    throw WorkshopError.cannotReset(
      exercise: exercise.id,
      reason: "no commit in this checkout's git history holds its untouched starter (is this a git clone of the workshop?)")
  }

  static func git(_ arguments: [String], root: URL) throws -> String {
    String(decoding: try gitData(arguments, root: root), as: UTF8.self)
  }

  static func gitData(_ arguments: [String], root: URL) throws -> Data {
    try FoundationProcessRunner().output("/usr/bin/env", arguments: ["git", "-C", root.path] + arguments, in: root)
  }
}
