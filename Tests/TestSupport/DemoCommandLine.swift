import Foundation
import Testing

/// Checks of the command line every stage's demo shares (DemoSupport's `DemoOptions`), run on a built
/// demo: each stage's demo tests call them, so every demo keeps the same options and the same answers.
public enum DemoCommandLine {
  /// What ObjectGraph prints on standard error, once, when the first context is made with concurrency
  /// debugging on.
  public static let concurrencyBanner =
    "ObjectGraph: concurrency debugging is on: touching a context or its objects off its queue stops the program, naming the rule broken."
  /// The same for SQL debugging.
  public static let sqlBanner =
    "ObjectGraph: SQL debugging is on: every statement a store runs is logged to standard error, with its time."

  /// Core Data's concurrency-debug launch argument is accepted, and a short run under it is clean: no
  /// object is touched off its context's queue, and standard error holds the switch's banner, once, and
  /// nothing else.
  public static func checkRunsUnderConcurrencyDebugging(
    _ demo: String, storeFolder: URL, sourceLocation: SourceLocation = #_sourceLocation
  ) async throws {
    let arguments = ["--count", "50", "--store-folder", storeFolder.path, "-com.apple.CoreData.ConcurrencyDebug", "1"]
    let run = try await ProcessOutput.runSuspending(try BuildProducts.requireExecutable(demo), arguments)
    #expect(run.status == 0, "stderr: \(run.stderr)", sourceLocation: sourceLocation)
    #expect(run.stderr == concurrencyBanner + "\n", sourceLocation: sourceLocation)
  }

  /// With SQL debugging on, the log starts with the switch's banner, printed once, then only statements.
  public static func checkSQLDebugBanner(_ demo: String, storeFolder: URL, sourceLocation: SourceLocation = #_sourceLocation)
    throws
  {
    let run = try ProcessOutput.run(
      try BuildProducts.requireExecutable(demo), ["--count", "3", "--store-folder", storeFolder.path],
      environment: ["OBJECTGRAPH_SQL_DEBUG": "1"])
    #expect(run.status == 0, "stderr: \(run.stderr)", sourceLocation: sourceLocation)
    let lines = run.stderr.split(separator: "\n").map(String.init)
    #expect(lines.first == sqlBanner, sourceLocation: sourceLocation)
    #expect(lines.dropFirst().allSatisfy { $0.hasPrefix("ObjectGraph SQL: ") }, "\(lines.prefix(5))", sourceLocation: sourceLocation)
    #expect(lines.count > 10, sourceLocation: sourceLocation)
  }

  /// A bad `--count` (`value`) is reported on standard error with the usage, nothing is printed on
  /// standard output, and the exit status is 1.
  public static func checkRefusesCount(_ value: String, of demo: String, sourceLocation: SourceLocation = #_sourceLocation)
    throws
  {
    let run = try ProcessOutput.run(try BuildProducts.requireExecutable(demo), ["--count", value])
    #expect(run.status == 1, sourceLocation: sourceLocation)
    #expect(run.stdout.isEmpty, sourceLocation: sourceLocation)
    #expect(run.stderr.contains("--count needs a whole number above zero"), "stderr: \(run.stderr)", sourceLocation: sourceLocation)
    #expect(run.stderr.contains("usage: \(demo)"), "stderr: \(run.stderr)", sourceLocation: sourceLocation)
  }

  /// `--help` prints the usage and every option on standard output, and exits with status 0.
  public static func checkHelp(of demo: String, sourceLocation: SourceLocation = #_sourceLocation) throws {
    let help = try ProcessOutput.run(try BuildProducts.requireExecutable(demo), ["--help"])
    #expect(help.status == 0, "stderr: \(help.stderr)", sourceLocation: sourceLocation)
    #expect(help.stderr.isEmpty, sourceLocation: sourceLocation)
    let parts = [
      "USAGE: \(demo)", "--count <n>", "--store-folder <path>", "-com.apple.CoreData.ConcurrencyDebug <n>",
      "-com.apple.CoreData.SQLDebug <n>", "-h, --help",
    ]
    for part in parts {
      #expect(help.stdout.contains(part), "no '\(part)' in:\n\(help.stdout)", sourceLocation: sourceLocation)
    }
  }

  /// Core Data's debug launch arguments, `-com.apple.CoreData.ConcurrencyDebug N` and
  /// `-com.apple.CoreData.SQLDebug N`, are refused without a number, with exit status 1 and a message
  /// naming the argument.
  public static func checkDebugArgumentsNeedANumber(_ demo: String, sourceLocation: SourceLocation = #_sourceLocation) throws {
    let executable = try BuildProducts.requireExecutable(demo)
    for name in ["-com.apple.CoreData.ConcurrencyDebug", "-com.apple.CoreData.SQLDebug"] {
      let missing = try ProcessOutput.run(executable, [name])
      #expect(missing.status == 1, sourceLocation: sourceLocation)
      #expect(missing.stderr.contains("Missing value for '\(name) <n>'"), "stderr: \(missing.stderr)", sourceLocation: sourceLocation)
      let word = try ProcessOutput.run(executable, [name, "yes"])
      #expect(word.status == 1, sourceLocation: sourceLocation)
      #expect(word.stdout.isEmpty, sourceLocation: sourceLocation)
      #expect(word.stderr.contains("\(name) needs a number, such as 1"), "stderr: \(word.stderr)", sourceLocation: sourceLocation)
      #expect(word.stderr.contains("usage: \(demo)"), "stderr: \(word.stderr)", sourceLocation: sourceLocation)
    }
  }
}
