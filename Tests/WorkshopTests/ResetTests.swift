import Foundation
import Testing

@testable import Workshop

/// `workshop reset`: the starter comes back from git history, the learner's code is kept, and nothing
/// changes unless the learner says so.
@Suite("workshop reset")
struct ResetTests {
  /// A temporary workshop that is a git repository whose one commit holds the untouched starters.
  private func withCommittedRepo(_ body: (TempRepo) throws -> Void) throws {
    try TempRepo.with { repo in
      try repo.addExercises(starterHashes: true)
      for arguments in [
        ["init", "-q"], ["add", "-A"],
        ["-c", "user.name=Workshop", "-c", "user.email=workshop@example.com", "commit", "-q", "-m", "starters"],
      ] {
        _ = try StarterHistory.git(arguments, root: repo.root)
      }
      try body(repo)
    }
  }

  private func environment(_ recorder: OutputRecorder, answer: String?) -> WorkshopEnvironment {
    var environment = testEnvironment(recorder)
    environment.askUser = { answer }
    return environment
  }

  private func read(_ repo: TempRepo, _ path: String) throws -> String {
    try String(contentsOf: repo.root.appendingPathComponent(path), encoding: .utf8)
  }

  @Test func resetPutsTheStarterBackAndKeepsTheLearnersCode() throws {
    try withCommittedRepo { repo in
      try repo.write("Exercises/01-model-not-found/Sources/Model.swift", "let name = \"Mine\"\n")
      try repo.write("Exercises/01-model-not-found/Sources/Extra.swift", "let extra = 1\n")
      var progress = repo.progress()
      progress["01-model-not-found"].hintsShown = 2
      try ProgressStore(root: repo.root).save(progress)

      let recorder = OutputRecorder()
      #expect(try runWorkshop(["reset", "01", "--root", repo.root.path], in: environment(recorder, answer: "y")) == 0)
      #expect(try read(repo, "Exercises/01-model-not-found/Sources/Model.swift") == "let name = \"Model\"\n")
      #expect(
        !FileManager.default.fileExists(atPath: repo.root.appendingPathComponent("Exercises/01-model-not-found/Sources/Extra.swift").path))
      let backup = ".workshop/backups/01-model-not-found-\(ResetCommand.stamp(Date(timeIntervalSince1970: 1_800_000_000)))"
      #expect(try read(repo, backup + "/Exercises/01-model-not-found/Sources/Model.swift") == "let name = \"Mine\"\n")
      #expect(try read(repo, backup + "/Exercises/01-model-not-found/Sources/Extra.swift") == "let extra = 1\n")
      #expect(repo.progress()["01-model-not-found"].hintsShown == 0)
      #expect(recorder.standardOutput.contains("Reset 01-model-not-found? [y/N] "))
      #expect(recorder.standardOutput.contains("your code is in \(backup)/."), "\(recorder.standardOutput)")
    }
  }

  @Test func nothingChangesUnlessTheLearnerSaysYes() throws {
    try withCommittedRepo { repo in
      try repo.write("Exercises/01-model-not-found/Sources/Model.swift", "let name = \"Mine\"\n")
      let declined = OutputRecorder()
      #expect(try runWorkshop(["reset", "01", "--root", repo.root.path], in: environment(declined, answer: "n")) == 0)
      #expect(declined.standardOutput.hasSuffix("Nothing changed.\n"))
      #expect(try read(repo, "Exercises/01-model-not-found/Sources/Model.swift") == "let name = \"Mine\"\n")

      let unasked = OutputRecorder()
      #expect(try runWorkshop(["reset", "01", "--root", repo.root.path], in: environment(unasked, answer: nil)) == 1)
      #expect(
        unasked.standardError.contains("no terminal to ask on; nothing was changed. Run it again with --yes"), "\(unasked.standardError)")
      #expect(try read(repo, "Exercises/01-model-not-found/Sources/Model.swift") == "let name = \"Mine\"\n")

      let forced = OutputRecorder()
      #expect(try runWorkshop(["reset", "01", "--yes", "--root", repo.root.path], in: environment(forced, answer: nil)) == 0)
      #expect(try read(repo, "Exercises/01-model-not-found/Sources/Model.swift") == "let name = \"Model\"\n")
    }
  }

  @Test("reset all: one question, then every changed exercise's starter back, each one's code kept")
  func resetAllPutsEveryStarterBackAfterOneQuestion() throws {
    try withCommittedRepo { repo in
      try repo.write("Exercises/01-model-not-found/Sources/Model.swift", "let name = \"Mine\"\n")
      try repo.write("Exercises/02-errors-not-abort/Sources/Save.swift", "func save() throws {}\n")
      var progress = repo.progress()
      progress["01-model-not-found"].hintsShown = 2
      progress["02-errors-not-abort"].hintsShown = 1
      try ProgressStore(root: repo.root).save(progress)

      let declined = OutputRecorder()
      #expect(try runWorkshop(["reset", "all", "--root", repo.root.path], in: environment(declined, answer: "n")) == 0)
      #expect(declined.standardOutput.hasSuffix("Reset every exercise? [y/N] Nothing changed.\n"), "\(declined.standardOutput)")
      #expect(try read(repo, "Exercises/02-errors-not-abort/Sources/Save.swift") == "func save() throws {}\n")

      let recorder = OutputRecorder()
      #expect(try runWorkshop(["reset", "all", "--root", repo.root.path], in: environment(recorder, answer: "yes")) == 0)
      let stamp = ResetCommand.stamp(Date(timeIntervalSince1970: 1_800_000_000))
      #expect(recorder.standardOutput.components(separatedBy: "[y/N]").count == 2, "asked once:\n\(recorder.standardOutput)")
      #expect(recorder.standardOutput.contains("This puts the starter back in the 2 exercises you changed:"))
      #expect(try read(repo, "Exercises/01-model-not-found/Sources/Model.swift") == "let name = \"Model\"\n")
      #expect(try read(repo, "Exercises/02-errors-not-abort/Sources/Save.swift") == "func save() { abort() }\n")
      #expect(
        try read(repo, ".workshop/backups/01-model-not-found-\(stamp)/Exercises/01-model-not-found/Sources/Model.swift")
          == "let name = \"Mine\"\n")
      #expect(
        try read(repo, ".workshop/backups/02-errors-not-abort-\(stamp)/Exercises/02-errors-not-abort/Sources/Save.swift")
          == "func save() throws {}\n")
      #expect(repo.progress()["01-model-not-found"].hintsShown == 0 && repo.progress()["02-errors-not-abort"].hintsShown == 0)
      #expect(recorder.standardOutput.hasSuffix("Every exercise's hints start again from the first.\n"), "\(recorder.standardOutput)")
    }
  }

  @Test("reset all changes nothing when one starter cannot be found, and asks nothing without a terminal")
  func resetAllIsAllOrNothing() throws {
    try withCommittedRepo { repo in
      try repo.write("Exercises/01-model-not-found/Sources/Model.swift", "let name = \"Mine\"\n")
      let unasked = OutputRecorder()
      #expect(try runWorkshop(["reset", "all", "--root", repo.root.path], in: environment(unasked, answer: nil)) == 1)
      #expect(unasked.standardError.contains("Cannot reset all: there is no terminal to ask on"), "\(unasked.standardError)")
      #expect(try read(repo, "Exercises/01-model-not-found/Sources/Model.swift") == "let name = \"Mine\"\n")

      // A history that holds 01's starter but not 02's: 02 was changed before the only commit; 01 after it.
      try FileManager.default.removeItem(at: repo.root.appendingPathComponent(".git"))
      try repo.write("Exercises/01-model-not-found/Sources/Model.swift", "let name = \"Model\"\n")
      try repo.write("Exercises/02-errors-not-abort/Sources/Save.swift", "func save() throws {}\n")
      for arguments in [
        ["init", "-q"], ["add", "-A"],
        ["-c", "user.name=Workshop", "-c", "user.email=workshop@example.com", "commit", "-q", "-m", "mine"],
      ] {
        _ = try StarterHistory.git(arguments, root: repo.root)
      }
      try repo.write("Exercises/01-model-not-found/Sources/Model.swift", "let name = \"Mine\"\n")
      let missing = OutputRecorder()
      #expect(try runWorkshop(["reset", "all", "--yes", "--root", repo.root.path], in: environment(missing, answer: nil)) == 1)
      #expect(missing.standardError.contains("no commit in this checkout's git history holds its untouched starter"))
      #expect(missing.standardError.contains("Cannot reset 02-errors-not-abort"), "\(missing.standardError)")
      #expect(
        try read(repo, "Exercises/01-model-not-found/Sources/Model.swift") == "let name = \"Mine\"\n",
        "01's starter was found, yet nothing changes")
      #expect(try read(repo, "Exercises/02-errors-not-abort/Sources/Save.swift") == "func save() throws {}\n")
      #expect(!FileManager.default.fileExists(atPath: repo.root.appendingPathComponent(".workshop/backups").path))
    }
  }

  @Test func untouchedSourcesNeedNoHistoryOnlyTheHintsStartAgain() throws {
    try TempRepo.with { repo in
      try repo.addExercises(starterHashes: true)  // not a git repository at all
      var progress = repo.progress()
      progress["01-model-not-found"].hintsShown = 1
      try ProgressStore(root: repo.root).save(progress)
      let recorder = OutputRecorder()
      #expect(try runWorkshop(["reset", "01", "--yes", "--root", repo.root.path], in: environment(recorder, answer: nil)) == 0)
      #expect(recorder.standardOutput.hasSuffix("01-model-not-found's hints start again from the first.\n"), "\(recorder.standardOutput)")
      #expect(repo.progress()["01-model-not-found"].hintsShown == 0)
    }
  }

  @Test func withoutTheStarterInHistoryNothingChanges() throws {
    try withCommittedRepo { repo in
      // The learner committed their work and the starter's commit is gone from reach: a fresh history.
      try FileManager.default.removeItem(at: repo.root.appendingPathComponent(".git"))
      try repo.write("Exercises/01-model-not-found/Sources/Model.swift", "let name = \"Mine\"\n")
      for arguments in [
        ["init", "-q"], ["add", "-A"],
        ["-c", "user.name=Workshop", "-c", "user.email=workshop@example.com", "commit", "-q", "-m", "mine"],
      ] {
        _ = try StarterHistory.git(arguments, root: repo.root)
      }
      let recorder = OutputRecorder()
      #expect(try runWorkshop(["reset", "01", "--yes", "--root", repo.root.path], in: environment(recorder, answer: nil)) == 1)
      #expect(recorder.standardError.contains("no commit in this checkout's git history holds its untouched starter"))
      #expect(try read(repo, "Exercises/01-model-not-found/Sources/Model.swift") == "let name = \"Mine\"\n")
    }
  }
}
