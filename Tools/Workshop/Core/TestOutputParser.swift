import Foundation

/// One failed expectation (Swift Testing issue or XCTest failure).
struct TestIssue: Sendable, Equatable {
  /// The test, as the output names it: `"Display name"`, `function()` or `Class.testMethod`.
  var test: String
  /// `File.swift:12:5` (Swift Testing) or a root-relative `path/File.swift:12` (XCTest), when given.
  var location: String?
  /// The failure, e.g. `Expectation failed: (x → 1) == 2`.
  var message: String
  /// The expectation's own comment and other detail lines (Swift Testing's `↳` lines).
  var details: [String]
}

/// One compiler error.
struct CompileError: Sendable, Equatable {
  /// Root-relative when under the root, else as printed.
  var path: String
  var line: Int
  var column: Int
  var message: String
  /// The compiler's excerpt of the source under the error line (`12 | …` and `| ` lines).
  var excerpt: [String]

  var location: String { "\(path):\(line):\(column)" }
}

/// The test process crashed (a `fatalError`, a force unwrap of nil, an index out of range…).
struct TestCrash: Sendable, Equatable {
  /// `Swift/ContiguousArrayBuffer.swift:692: Fatal error: Index out of range`, or the crash line.
  var reason: String
  /// The first frame of the crashed thread in the workspace's own code, root-relative, e.g. `Tests/X/T.swift:3:46`.
  var location: String?
  /// The tests that had started and not finished when it crashed.
  var runningTests: [String]
}

/// What a `swift test` run printed, boiled down.
struct TestRunReport: Sendable, Equatable {
  var issues: [TestIssue] = []
  var compileErrors: [CompileError] = []
  var crash: TestCrash?
  /// Other `error:` lines from SwiftPM (a broken Package.swift, a failed link…).
  var otherErrors: [String] = []
  /// XCTest and Swift Testing tests run, from their summary lines.
  var testsRun = 0
  /// Distinct tests that failed.
  var failedTests: [String] = []
  var buildSucceeded = false
  var noMatchingTests = false
  /// The output's last lines, for failures nothing above explains.
  var tail: [String] = []
}

/// What to show on the progress line.
enum CheckPhase: Sendable, Equatable {
  case building(step: Int, of: Int)
  case testing(finished: Int, failed: Int)
}

/// Reads `swift test` output line by line (so it can run while the output streams) and keeps what matters.
/// It knows Swift Testing's lines (`✘ Test "…" recorded an issue at File.swift:12:5: …` followed by
/// `↳ comment` lines), XCTest's (`/path/File.swift:12: error: Class.testMethod : message`), compiler
/// errors (`/path/File.swift:12:5: error: …` plus the excerpt under it), and crashes.
struct TestOutputParser {
  private(set) var report = TestRunReport()
  private(set) var phase: CheckPhase?
  /// The root, with a trailing slash, as given and with symlinks resolved (compilers print either).
  private let roots: [String]
  private var swiftTestingCount = 0
  private var xctestCount = 0
  private var finished = 0
  private var running: [String] = []
  private var attachDetailsToLastIssue = false
  private var attachExcerptToLastError = false
  private var inCrashedThread = false
  private var seenCompileErrors: Set<String> = []

  /// `root`: the workspace root, to make paths relative.
  init(root: String) {
    let given = URL(fileURLWithPath: root).standardizedFileURL.path
    let resolved = URL(fileURLWithPath: root).resolvingSymlinksInPath().path
    roots = Array(Set([given, resolved])).map { $0.hasSuffix("/") ? $0 : $0 + "/" }.sorted { $0.count > $1.count }
  }

  /// Parses a whole output at once.
  static func parse(_ output: String, root: String) -> TestRunReport {
    var parser = TestOutputParser(root: root)
    for line in output.split(separator: "\n", omittingEmptySubsequences: false) { parser.consume(String(line)) }
    return parser.report
  }

  mutating func consume(_ rawLine: String) {
    let line = Self.stripEscapes(rawLine)
    report.tail.append(line)
    if report.tail.count > 25 { report.tail.removeFirst() }

    if attachDetailsToLastIssue, !report.issues.isEmpty {
      let index = report.issues.count - 1
      if line.hasPrefix("↳ ") {
        report.issues[index].details.append(String(line.dropFirst(2)))
        return
      }
      if line.hasPrefix("  "), let last = report.issues[index].details.indices.last {
        report.issues[index].details[last] += "\n" + line.dropFirst(2)
        return
      }
      // A multi-line value in the expectation (two strings compared, say) continues on plain lines.
      if report.issues[index].details.isEmpty, !Self.isEventLine(line) {
        report.issues[index].message += "\n" + line
        return
      }
      attachDetailsToLastIssue = false
    }
    if attachExcerptToLastError, !report.compileErrors.isEmpty {
      if line.range(of: #"^\s*\d*\s*\|"#, options: .regularExpression) != nil {
        // The compiler ends its excerpt with the next, often empty, source line: keep only lines that say something.
        if line.range(of: #"^\s*\d*\s*\|\s*$"#, options: .regularExpression) == nil {
          report.compileErrors[report.compileErrors.count - 1].excerpt.append(line)
        }
        return
      }
      attachExcerptToLastError = false
    }

    if consumeSwiftTesting(line) || consumeXCTest(line) || consumeCompiler(line) || consumeCrash(line) { return }
    if let match = line.wholeMatch(of: #/\[(\d+)/(\d+)\] .*/#), let step = Int(match.1), let total = Int(match.2) {
      phase = .building(step: step, of: total)
    } else if line.hasPrefix("Build complete!") {
      report.buildSucceeded = true
    } else if line.hasPrefix("warning: No matching test cases were run") {
      report.noMatchingTests = true
    } else if line.hasPrefix("error: "), line != "error: fatalError" {
      report.otherErrors.append(String(line.dropFirst("error: ".count)))
    }
  }

  // MARK: Swift Testing

  private mutating func consumeSwiftTesting(_ line: String) -> Bool {
    if let match = line.wholeMatch(of: #/✘ (?:Test|Suite) (.+?) recorded an issue(?: with .+?)?(?: at (\S+?:\d+:\d+))?: (.*)/#) {
      addIssue(TestIssue(test: String(match.1), location: match.2.map(String.init), message: String(match.3), details: []))
      attachDetailsToLastIssue = true
      return true
    }
    if let match = line.wholeMatch(of: #/◇ Test (.+) started\./#) {
      if !match.1.hasPrefix("case ") && match.1 != "run" { running.append(String(match.1)) }
      if !isTesting { phase = .testing(finished: finished, failed: report.failedTests.count) }
      return true
    }
    if let match = line.wholeMatch(of: #/[✔✘] Test run with (\d+) tests? .*/#) {
      swiftTestingCount = Int(match.1) ?? 0
      report.testsRun = swiftTestingCount + xctestCount
      return true
    }
    if let match = line.wholeMatch(of: #/([✔✘]) Test (.+?)(?: with \d+ test cases?)? (passed|failed) after .*/#) {
      testFinished(String(match.2), failed: match.3 == "failed")
      return true
    }
    return false
  }

  // MARK: XCTest

  private mutating func consumeXCTest(_ line: String) -> Bool {
    if let match = line.wholeMatch(of: #/(/.+?):(\d+): error: (-\[.+?\]|\S+) : (.*)/#) {
      let location = relative(String(match.1)) + ":" + match.2
      var test = String(match.3)
      if test.hasPrefix("-["), test.hasSuffix("]") {
        test = String(test.dropFirst(2).dropLast()).replacingOccurrences(of: " ", with: ".")
      }
      addIssue(TestIssue(test: test, location: location, message: String(match.4), details: []))
      return true
    }
    if let match = line.wholeMatch(of: #/Test Case '(.+?)' (started|passed|failed) .*/#) {
      let name = String(match.1).replacingOccurrences(of: "-[", with: "").replacingOccurrences(of: "]", with: "")
        .replacingOccurrences(of: " ", with: ".")
      if match.2 == "started" {
        running.append(name)
        if !isTesting { phase = .testing(finished: finished, failed: report.failedTests.count) }
      } else {
        testFinished(name, failed: match.2 == "failed")
      }
      return true
    }
    if let match = line.wholeMatch(of: #/\s*Executed (\d+) tests?, with .*/#) {
      xctestCount = max(xctestCount, Int(match.1) ?? 0)
      report.testsRun = swiftTestingCount + xctestCount
      return true
    }
    return false
  }

  // MARK: Compiler

  private mutating func consumeCompiler(_ line: String) -> Bool {
    guard let match = line.wholeMatch(of: #/(.+?\.swift):(\d+):(\d+): error: (.*)/#) else { return false }
    let error = CompileError(
      path: relative(String(match.1)), line: Int(match.2) ?? 0, column: Int(match.3) ?? 0, message: String(match.4), excerpt: [])
    if seenCompileErrors.insert("\(error.location) \(error.message)").inserted {
      report.compileErrors.append(error)
      attachExcerptToLastError = true
    }
    return true
  }

  // MARK: Crashes

  private mutating func consumeCrash(_ line: String) -> Bool {
    if line.contains("Fatal error:") || line.hasPrefix("*** Program crashed:") || line.hasPrefix("error: Exited with unexpected signal") {
      if report.crash == nil {
        var reason = line.trimmingCharacters(in: CharacterSet(charactersIn: "* "))
        if reason.hasPrefix("error: ") { reason.removeFirst("error: ".count) }
        for root in roots { reason = reason.replacingOccurrences(of: root, with: "") }
        report.crash = TestCrash(reason: reason, location: nil, runningTests: running)
      }
      return true
    }
    guard report.crash != nil else { return false }
    if line.wholeMatch(of: #/Thread \d+.* crashed:/#) != nil {
      inCrashedThread = true
      return true
    }
    if line.hasPrefix("Thread ") || line.hasPrefix("Registers:") {
      inCrashedThread = false
      return false
    }
    if inCrashedThread, report.crash?.location == nil, let match = line.firstMatch(of: #/ at (/\S+?\.swift:\d+(?::\d+)?)$/#) {
      let path = String(match.1)
      if roots.contains(where: path.hasPrefix), !path.contains("/.build/") {
        let location = relative(path)
        report.crash?.location = location
      }
      return true
    }
    return false
  }

  // MARK: Helpers

  private var isTesting: Bool {
    if case .testing = phase { return true }
    return false
  }

  private mutating func addIssue(_ issue: TestIssue) {
    report.issues.append(issue)
    if !report.failedTests.contains(issue.test) { report.failedTests.append(issue.test) }
  }

  private mutating func testFinished(_ name: String, failed: Bool) {
    if let index = running.firstIndex(of: name) { running.remove(at: index) }
    finished += 1
    if failed, !report.failedTests.contains(name) { report.failedTests.append(name) }
    phase = .testing(finished: finished, failed: report.failedTests.count)
  }

  private func relative(_ path: String) -> String {
    guard let root = roots.first(where: path.hasPrefix) else { return path }
    return String(path.dropFirst(root.count))
  }

  /// Whether a line is one of the test libraries' own (an event), rather than the rest of a message.
  static func isEventLine(_ line: String) -> Bool {
    if let first = line.unicodeScalars.first, "◇✔✘↳⚠".unicodeScalars.contains(first) || first.value >= 0x10_0000 { return true }
    let prefixes = ["Test Case '", "Test Suite '", "\t Executed", "*** ", "error: ", "warning: "]
    return prefixes.contains(where: line.hasPrefix) || line.contains("Fatal error:")
  }

  /// The line without ANSI colour codes.
  static func stripEscapes(_ line: String) -> String {
    guard line.contains("\u{1B}") else { return line }
    return line.replacingOccurrences(of: "\u{1B}\\[[0-9;]*[A-Za-z]", with: "", options: .regularExpression)
  }
}
