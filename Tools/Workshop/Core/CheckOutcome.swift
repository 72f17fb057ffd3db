import Foundation

/// How checking one exercise turned out.
enum CheckOutcome: Sendable, Equatable {
  /// Every test of the exercise's target passed.
  case passed(tests: Int)
  /// Tests failed, or the test process crashed.
  case failed(TestRunReport)
  /// The exercise's own files do not compile.
  case doesNotCompile([CompileError])
  /// The package does not build because of other files (other exercises' ids, or none when the errors
  /// are outside every exercise): this exercise could not be checked.
  case blocked(byExercises: [String])
  /// `swift test` ran no test at all: the manifest's testTarget is probably wrong.
  case noTests
  /// `swift test` failed and its output says nothing the workshop can read.
  case unexplained(status: Int32, TestRunReport)

  /// The outcome of a run whose build succeeded (compile errors are sorted out by `buildFailure`).
  static func of(status: Int32, report: TestRunReport) -> CheckOutcome {
    let failedSomething = !report.issues.isEmpty || report.crash != nil || !report.failedTests.isEmpty
    if status == 0 && !failedSomething { return report.testsRun > 0 ? .passed(tests: report.testsRun) : .noTests }
    return failedSomething ? .failed(report) : .unexplained(status: status, report)
  }

  /// When the build fails, the outcome for each exercise in `checking`: the ones whose files have errors
  /// do not compile; the others are blocked by those (or by errors outside every exercise).
  static func buildFailure(_ errors: [CompileError], checking: [Exercise], manifest: [Exercise]) -> [String: CheckOutcome] {
    var outcomes: [String: CheckOutcome] = [:]
    let owners = manifest.filter { exercise in errors.contains { exercise.owns($0.path) } }
    for exercise in checking {
      let own = errors.filter { exercise.owns($0.path) }
      outcomes[exercise.id] = own.isEmpty ? .blocked(byExercises: owners.map(\.id)) : .doesNotCompile(own)
    }
    return outcomes
  }

  /// What the progress file records: passed or failed with the failure count, or nothing when the
  /// exercise could not really be checked.
  var record: (passed: Bool, failures: Int)? {
    switch self {
    case .passed: return (true, 0)
    case .failed(let report): return (false, max(report.failedTests.count, 1))
    case .doesNotCompile: return (false, 0)
    case .blocked, .noTests, .unexplained: return nil
    }
  }

  var isPassed: Bool {
    if case .passed = self { return true }
    return false
  }
}

/// The text `workshop check` prints about one exercise.
enum CheckExplanation {
  static let maximumIssues = 8
  static let maximumCompileErrors = 5
  static let maximumMessageLines = 20

  static func lines(for exercise: Exercise, outcome: CheckOutcome, style: Style) -> [String] {
    let id = exercise.id
    let footer = [
      "  The task: \(exercise.readmePath)",
      "  Stuck? Run `swift run workshop hint \(id)`.",
    ]
    switch outcome {
    case .passed(let tests):
      return [style.green("✓ ") + "\(id) passes (\(tests) \(tests == 1 ? "test" : "tests"))."]

    case .failed(let report):
      var lines: [String] = []
      if let crash = report.crash {
        lines.append(style.red("✗ ") + style.bold("\(id): the tests crashed"))
        lines.append("    \(crash.reason)")
        var whereLine: [String] = []
        if !crash.runningTests.isEmpty { whereLine.append("while running \(crash.runningTests.joined(separator: ", "))") }
        if let location = crash.location { whereLine.append("at \(location)") }
        if !whereLine.isEmpty { lines.append("    " + whereLine.joined(separator: ", ")) }
      } else {
        let failed = report.failedTests.count
        let total = max(report.testsRun, failed)
        lines.append(style.red("✗ ") + style.bold("\(id): \(failed) of \(total) \(total == 1 ? "test" : "tests") failed"))
      }
      lines += issueLines(report.issues, style: style, exerciseID: id)
      return lines + footer

    case .doesNotCompile(let errors):
      var lines = [style.red("✗ ") + style.bold("\(id) does not compile:")]
      lines += compileErrorLines(errors, style: style, exerciseID: id)
      return lines + footer

    case .blocked(let owners):
      let culprits =
        owners.isEmpty
        ? "errors outside the exercises (shown below)"
        : "errors in \(owners.joined(separator: ", ")) (fix those first, or undo your changes there)"
      return [style.yellow("! ") + "\(id) was not checked: the exercises package does not build because of \(culprits)."]

    case .noTests:
      return [
        style.yellow("! ") + "\(id): no test ran. Is \"testTarget\": \"\(exercise.testTarget)\" in \(ExerciseManifest.path) "
          + "a test target of \(ExerciseManifest.packagePath)?"
      ]

    case .unexplained(let status, let report):
      var lines = [style.red("✗ ") + "\(id): `swift test` failed (exit status \(status)) and said nothing the workshop understands."]
      lines += report.otherErrors.map { "    error: \($0)" }
      lines.append("  Its last lines:")
      lines += report.tail.suffix(15).map { "    \($0)" }
      return lines
    }
  }

  /// Failed expectations with their messages (the tests' messages are the lesson), each said once: tests
  /// whose issues say the same thing (an untouched starter, say, or one mistake that every check meets) are
  /// listed together under one message, and an explanation that an earlier test already gave is not
  /// repeated in full. Two texts are the same when they differ only in what changes from run to run
  /// (UUIDs: a store's, a temporary ID's, a temporary folder's).
  static func issueLines(_ issues: [TestIssue], style: Style, exerciseID: String) -> [String] {
    var byTest: [(test: String, issues: [TestIssue])] = []
    for issue in issues {
      if let index = byTest.firstIndex(where: { $0.test == issue.test }) {
        if !byTest[index].issues.contains(where: { sameText($0, issue) }) { byTest[index].issues.append(issue) }
      } else {
        byTest.append((issue.test, [issue]))
      }
    }
    var blocks: [(tests: [String], issues: [TestIssue])] = []
    for entry in byTest {
      if let index = blocks.firstIndex(where: { $0.issues.map(comparableText) == entry.issues.map(comparableText) }) {
        blocks[index].tests.append(entry.test)
      } else {
        blocks.append(([entry.test], entry.issues))
      }
    }

    var lines: [String] = []
    var shown = 0
    var said: Set<String> = []
    var saidSentences: Set<String> = []
    for block in blocks where shown < maximumIssues {
      lines += block.tests.map { "  " + style.bold($0) }
      for issue in block.issues {
        if said.contains(comparableText(issue)) {
          lines.append("    " + style.dim("(as explained above: \"\(opening(of: issue))\")"))
          continue
        }
        guard shown < maximumIssues else { break }
        said.insert(comparableText(issue))
        shown += 1
        // An explanation that an earlier check gave in the same words, after words of this check's own.
        let (rest, dropped) = withoutSaidSentences(issue, said: &saidSentences)
        if !(dropped && rest.message == "Issue recorded" && rest.details.isEmpty) { lines += messageLines(rest, style: style) }
        if dropped { lines.append("    " + style.dim("(the rest as explained above)")) }
      }
    }
    let hidden = blocks.flatMap(\.issues).filter { !said.contains(comparableText($0)) }.map(comparableText)
    let unsaid = Set(hidden).count
    if unsaid > 0 {
      lines.append("  … and \(unsaid) more (`swift run workshop check \(exerciseID) --verbose` shows swift test's output).")
    }
    return lines
  }

  /// An issue's text with what changes from run to run masked, to tell whether two issues say the same.
  static func comparableText(_ issue: TestIssue) -> String {
    masked(([issue.message] + issue.details).joined(separator: "\n"))
  }

  /// `text` with what changes from run to run (UUIDs) masked.
  static func masked(_ text: String) -> String {
    text.replacingOccurrences(
      of: "[0-9A-Fa-f]{8}-[0-9A-Fa-f]{4}-[0-9A-Fa-f]{4}-[0-9A-Fa-f]{4}-[0-9A-Fa-f]{12}", with: "…", options: .regularExpression)
  }

  /// Sentences this short may be said again: they cost less than a pointer back to them.
  static let shortestSentenceToOmit = 40

  /// `issue` without the sentences that were said already (in `said`, which gets this issue's sentences),
  /// and whether any was left out.
  static func withoutSaidSentences(_ issue: TestIssue, said: inout Set<String>) -> (issue: TestIssue, dropped: Bool) {
    var dropped = false
    func keep(_ text: String) -> String {
      let lines = text.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
      var kept: [String] = []
      for line in lines {
        guard !line.trimmingCharacters(in: .whitespaces).isEmpty else {
          kept.append(line)
          continue
        }
        var sentences: [String] = []
        for sentence in Self.sentences(of: line) {
          let key = masked(sentence.trimmingCharacters(in: .whitespaces))
          if key.count >= shortestSentenceToOmit && !said.insert(key).inserted {
            dropped = true
          } else {
            sentences.append(sentence)
          }
        }
        if !sentences.isEmpty {
          sentences[0] = String(sentences[0].drop { $0 == " " && !line.hasPrefix(" ") })
          kept.append(sentences.joined())
        }
      }
      return kept.joined(separator: "\n")
    }
    var result = issue
    if !(issue.message == "Issue recorded" && !issue.details.isEmpty) { result.message = keep(issue.message) }
    result.details = issue.details.map(keep).filter { !$0.isEmpty }
    if result.message.isEmpty { result.message = "Issue recorded" }
    return (result, dropped)
  }

  /// The sentences of one line: cut after each `.`, `?` or `!` that a space follows (the space begins the
  /// next sentence, so joining them gives the line back).
  static func sentences(of line: String) -> [String] {
    var result: [String] = []
    var current = ""
    let characters = Array(line)
    for (index, character) in characters.enumerated() {
      current.append(character)
      if ".?!".contains(character), index + 1 < characters.count, characters[index + 1] == " " {
        result.append(current)
        current = ""
      }
    }
    if !current.isEmpty { result.append(current) }
    return result
  }

  private static func sameText(_ a: TestIssue, _ b: TestIssue) -> Bool { comparableText(a) == comparableText(b) }

  /// The start of what an issue says, to point back at it.
  private static func opening(of issue: TestIssue) -> String {
    let text = issue.message == "Issue recorded" ? issue.details.first ?? issue.message : issue.message
    let line = readable(text.split(separator: "\n").first.map(String.init) ?? text)
    return line.count > 60 ? line.prefix(59).trimmingCharacters(in: .whitespaces) + "…" : line
  }

  /// `text` as a learner should read it. A string in a list that a test prints (`["… context \'Main\' …"]`)
  /// comes out with Swift's escapes, and an escaped single quote is only noise. A message that ends with a
  /// full stop, put into a sentence that adds one, ends up with two ("store.. Move"): one is enough.
  static func readable(_ text: String) -> String {
    text.replacingOccurrences(of: "\\'", with: "'")
      .replacingOccurrences(of: #"(?<=[^.])\.\.(?= [A-Z])"#, with: ".", options: .regularExpression)
  }

  private static func messageLines(_ issue: TestIssue, style: Style) -> [String] {
    var lines: [String] = []
    let location = issue.location.map { style.dim(" (\($0))") } ?? ""
    // `Issue.record(comment)` says only "Issue recorded": its comment is the message.
    if !(issue.message == "Issue recorded" && !issue.details.isEmpty) {
      var message = readable(issue.message).split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
      if message.count > maximumMessageLines {
        message = message.prefix(maximumMessageLines) + ["… (\(message.count - maximumMessageLines) more lines)"]
      }
      lines.append("    " + style.red(message[0]) + (message.count == 1 ? location : ""))
      lines += message.dropFirst().map { "    " + style.red($0) }
      if message.count > 1 { lines.append("   " + location) }
    }
    for detail in issue.details {
      let detailLines = readable(detail).split(separator: "\n", omittingEmptySubsequences: false)
      lines.append("    " + detailLines[0])
      lines += detailLines.dropFirst().map { "      " + $0 }
    }
    return lines
  }

  static func compileErrorLines(_ errors: [CompileError], style: Style, exerciseID: String?) -> [String] {
    var lines: [String] = []
    for error in errors.prefix(maximumCompileErrors) {
      lines.append("  " + style.bold(error.location) + ": " + style.red(error.message))
      lines += error.excerpt.map { "    " + $0 }
    }
    if errors.count > maximumCompileErrors {
      let more = exerciseID.map { " (`swift run workshop check \($0) --verbose` shows them all)" } ?? ""
      lines.append("  … and \(errors.count - maximumCompileErrors) more errors\(more).")
    }
    return lines
  }
}
