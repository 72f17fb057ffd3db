import ArgumentParser
import Foundation

/// `workshop reset <exercise>` and `workshop reset all`: puts an exercise's starter back (or every changed
/// exercise's), after keeping a copy of the learner's code, and starts its hints and its last check afresh.
struct ResetCommand: ParsableCommand {
  static let configuration = CommandConfiguration(
    commandName: "reset",
    abstract:
      "Put an exercise's starter code back, or every exercise's with `all` (your code is kept in .workshop/backups/), and start the hints again.",
    discussion: """
      The starter is taken from the repository's git history: the newest commit whose version of the \
      exercise's sources is the untouched starter (the manifest's starterHash). Asks once before it changes \
      anything, unless --yes is given; when a starter cannot be found, nothing changes.
      """
  )

  @OptionGroup var common: CommonOptions

  @Argument(help: "The exercise: its id, or its number (e.g. 01); or `all` for every exercise.")
  var exercise: String

  @Flag(help: "Do not ask; reset at once.")
  var yes = false

  /// What resetting one exercise does: the starter to put back (nil when the sources are the starter
  /// already), and where the learner's code goes.
  struct Plan {
    let exercise: Exercise
    let starter: StarterHistory.Starter?
    let backup: String
  }

  func run() throws {
    try withWorkshopEnvironment { environment in
      let output = environment.output
      let root = try common.workspaceRoot(environment)
      let manifest = try requireExercises(root: root)
      let all = exercise.lowercased() == "all" && !manifest.contains { $0.id.lowercased() == "all" }
      let chosen = all ? manifest : [try ExerciseManifest.select(exercise, from: manifest)]
      let store = ProgressStore(root: root)
      var progress = store.load().progress
      let stamp = Self.stamp(environment.now())
      // Every starter is found before asking, so that a missing one is said before the learner says yes, and
      // nothing changes at all when one is missing.
      let plans = try chosen.map { exercise -> Plan in
        guard let starterHash = exercise.starterHash ?? progress[exercise.id].starterHash else {
          throw WorkshopError.cannotReset(exercise: exercise.id, reason: "the workshop does not know its starter's hash yet")
        }
        let current = SourceHasher.hash(of: exercise.sources, root: root)
        let starter = current == starterHash ? nil : try StarterHistory.find(exercise, hash: starterHash, root: root)
        return Plan(exercise: exercise, starter: starter, backup: ".workshop/backups/\(exercise.id)-\(stamp)")
      }

      let what = all ? "every exercise" : plans[0].exercise.id
      for line in Self.intent(plans, all: all) { output.line(line) }
      if !yes {
        output.write("Reset \(what)? [y/N] ", .standardOutput)
        guard let answer = environment.askUser() else {
          output.line()
          throw WorkshopError.cannotReset(
            exercise: all ? "all" : plans[0].exercise.id,
            reason: "there is no terminal to ask on; nothing was changed. Run it again with --yes to reset without asking")
        }
        guard ["y", "yes"].contains(answer.trimmingCharacters(in: .whitespaces).lowercased()) else {
          output.line("Nothing changed.")
          return
        }
      }

      for plan in plans {
        let exercise = plan.exercise
        if let starter = plan.starter {
          try Self.copy(exercise.sources, from: root, to: root.appendingPathComponent(plan.backup))
          try Self.replace(exercise.sources, with: starter, root: root)
        }
        progress[exercise.id].hintsShown = 0
        progress[exercise.id].lastCheck = nil
        try store.save(progress)
        if let starter = plan.starter {
          output.line("\(exercise.id) is back to its starter (from commit \(starter.commit.prefix(10))); your code is in \(plan.backup)/.")
        } else if !all {
          output.line("\(exercise.id)'s hints start again from the first.")
        }
      }
      if all { output.line("Every exercise's hints start again from the first.") }
    }
  }

  /// What the reset is about to do, said before asking.
  static func intent(_ plans: [Plan], all: Bool) -> [String] {
    let changed = plans.filter { $0.starter != nil }
    guard all else {
      let plan = plans[0]
      let id = plan.exercise.id
      guard plan.starter != nil else { return ["\(id)'s sources are the starter already; this starts its hints again from the first."] }
      return [
        "This puts the starter of \(id) back in \(plan.exercise.sources.joined(separator: " and ")).",
        "Your code will be copied to \(plan.backup)/ first, and the exercise's hints will start again from the first.",
      ]
    }
    guard !changed.isEmpty else {
      return ["Every exercise's sources are the starter already; this starts every exercise's hints again from the first."]
    }
    var lines = ["This puts the starter back in the \(changed.count) exercise\(changed.count == 1 ? "" : "s") you changed:"]
    lines += changed.map { "  \($0.exercise.id): your code will be copied to \($0.backup)/ first" }
    lines.append("and starts every exercise's hints and checks again from the first.")
    return lines
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
