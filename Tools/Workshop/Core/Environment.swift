// What the workshop needs from the outside world, gathered in one value so tests can swap it: where
// text goes, how programs are run, which files exist, the platform, the working directory, PATH.
import Foundation

#if canImport(Glibc)
  import Glibc
#elseif canImport(Musl)
  import Musl
#elseif canImport(Darwin)
  import Darwin
#endif

/// Where the workshop's text goes: the terminal when it runs for real, a buffer in tests.
struct Output: Sendable {
  /// The two places text can go.
  enum Channel: Sendable, Equatable {
    case standardOutput
    case standardError
  }

  /// Whether standard output is a terminal (progress lines are redrawn in place only then).
  var isTerminal: Bool
  /// Whether to colour the text (only on a terminal, and not when `NO_COLOR` is set).
  var colours: Bool
  /// Writes text, exactly as given, to a channel.
  var write: @Sendable (_ text: String, _ channel: Channel) -> Void

  /// Writes one line to standard output.
  func line(_ text: String = "") {
    write(text + "\n", .standardOutput)
  }

  /// Writes one line to standard error.
  func error(_ text: String) {
    write(text + "\n", .standardError)
  }

  /// The process's own standard output and standard error.
  static var terminal: Output {
    let isTerminal = isatty(1) == 1
    let environment = ProcessInfo.processInfo.environment
    let colours = isTerminal && environment["NO_COLOR"] == nil && environment["TERM"] != "dumb"
    return Output(isTerminal: isTerminal, colours: colours) { text, channel in
      let handle = channel == .standardOutput ? FileHandle.standardOutput : FileHandle.standardError
      handle.write(Data(text.utf8))
    }
  }
}

/// ANSI styling that is a no-op unless colours are on.
struct Style: Sendable {
  var enabled: Bool

  private func paint(_ text: String, _ code: String) -> String {
    enabled ? "\u{1B}[\(code)m\(text)\u{1B}[0m" : text
  }

  func bold(_ text: String) -> String { paint(text, "1") }
  func dim(_ text: String) -> String { paint(text, "2") }
  func red(_ text: String) -> String { paint(text, "31") }
  func green(_ text: String) -> String { paint(text, "32") }
  func yellow(_ text: String) -> String { paint(text, "33") }
  func cyan(_ text: String) -> String { paint(text, "36") }
}

/// Everything the commands take from outside. `WorkshopEnvironment.current` is a task-local, so a test
/// can run a command against a fake environment with `WorkshopEnvironment.$current.withValue(…)`.
struct WorkshopEnvironment: Sendable {
  var output: Output
  var runner: any ProcessRunning
  var fileExists: @Sendable (String) -> Bool
  var isExecutableFile: @Sendable (String) -> Bool
  var isLinux: Bool
  var currentDirectory: String
  var pathVariable: String?
  var now: @Sendable () -> Date
  /// Reads one line the user typed, or nil when there is no one to ask (standard input is not a terminal,
  /// or it ended).
  var askUser: @Sendable () -> String? = {
    guard isatty(0) == 1 else { return nil }
    return readLine()
  }

  var style: Style { Style(enabled: output.colours) }

  /// The real world.
  static var live: WorkshopEnvironment {
    #if os(Linux)
      let isLinux = true
    #else
      let isLinux = false
    #endif
    return WorkshopEnvironment(
      output: .terminal,
      runner: FoundationProcessRunner(),
      fileExists: { FileManager.default.fileExists(atPath: $0) },
      isExecutableFile: { FileManager.default.isExecutableFile(atPath: $0) },
      isLinux: isLinux,
      currentDirectory: FileManager.default.currentDirectoryPath,
      pathVariable: ProcessInfo.processInfo.environment["PATH"],
      now: { Date() }
    )
  }

  @TaskLocal static var current: WorkshopEnvironment = .live
}
