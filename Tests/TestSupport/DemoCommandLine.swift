import Foundation
import Testing

/// Checks of the command line every stage's demo shares (DemoSupport's `DemoOptions`), run on a built
/// demo: each stage's demo tests call them, so every demo keeps the same options and the same answers.
public enum DemoCommandLine {
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
