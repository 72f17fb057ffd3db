import Dispatch
import Foundation
import Synchronization

/// What a finished child process printed, and how it ended.
///
/// ```swift
/// let demo = try ProcessOutput.run(executable, ["--count", "500"])
/// #expect(demo.status == 0, "stderr: \(demo.stderr)")
/// ```
public struct ProcessOutput: Sendable {
  /// The exit status (or, when a signal ended the process, the signal's number).
  public let status: Int32
  /// Everything it wrote to standard output.
  public let stdout: String
  /// Everything it wrote to standard error.
  public let stderr: String

  /// Runs `executable` with `arguments` to its end and collects what it printed.
  ///
  /// Both pipes are read at once, standard error on a thread of its own, so a child that fills one of them
  /// while the test reads the other cannot block: any amount of output is fine.
  ///
  /// - Parameters:
  ///   - environment: variables set for the child on top of this process's environment.
  ///   - currentDirectory: the folder the child starts in (its relative paths start there); `nil` for this
  ///     process's.
  ///   - limit: how long the child may run; after that it is killed.
  /// - Throws: what `Process.run()` throws (for example when the file is not executable), or a
  ///   ``WatchdogTimeout`` holding what the child printed when it ran past `limit`.
  public static func run(
    _ executable: URL, _ arguments: [String] = [], environment: [String: String] = [:], currentDirectory: URL? = nil,
    upTo limit: Duration = .seconds(120)
  ) throws -> ProcessOutput {
    let process = Process()
    process.executableURL = executable
    process.arguments = arguments
    if let currentDirectory { process.currentDirectoryURL = currentDirectory }
    process.environment = ProcessInfo.processInfo.environment.merging(environment) { _, set in set }
    let (out, err) = (Pipe(), Pipe())
    process.standardOutput = out
    process.standardError = err
    try process.run()

    let pid = process.processIdentifier
    let killed = Mutex(false)
    let watchdog = DispatchWorkItem {
      killed.withLock { $0 = true }
      kill(pid, SIGKILL)
    }
    DispatchQueue.global().asyncAfter(deadline: .now() + limit.dispatchInterval, execute: watchdog)
    let errorBytes = Mutex(Data())
    let errorRead = DispatchGroup()
    DispatchQueue.global().async(group: errorRead) {
      let bytes = err.fileHandleForReading.readDataToEndOfFile()
      errorBytes.withLock { $0 = bytes }
    }
    let outputBytes = out.fileHandleForReading.readDataToEndOfFile()
    errorRead.wait()
    process.waitUntilExit()
    watchdog.cancel()

    let output = ProcessOutput(
      status: process.terminationStatus, stdout: String(decoding: outputBytes, as: UTF8.self),
      stderr: String(decoding: errorBytes.withLock { $0 }, as: UTF8.self))
    if killed.withLock({ $0 }) {
      throw WatchdogTimeout(
        what: "\(executable.lastPathComponent) to end; it was killed. Its stdout:\n\(output.stdout)\nIts stderr:\n\(output.stderr)",
        limit: limit)
    }
    return output
  }

  /// ``run(_:_:environment:currentDirectory:upTo:)`` on a thread of its own, the caller suspended meanwhile.
  ///
  /// `swift test` runs tests on Swift's cooperative threads, one per core: a test that waits for a child
  /// with the blocking ``run(_:_:environment:currentDirectory:upTo:)`` keeps one of them from every other
  /// test for as long as the child runs, though the child may spend most of that time waiting (a demo's
  /// 60 Hz "UI", a sleep). An `async` test that awaits this instead gives its thread back to the others.
  ///
  /// ```swift
  /// let demo = try await ProcessOutput.runSuspending(executable, ["--count", "500"])
  /// ```
  public static func runSuspending(
    _ executable: URL, _ arguments: [String] = [], environment: [String: String] = [:], currentDirectory: URL? = nil,
    upTo limit: Duration = .seconds(120)
  ) async throws -> ProcessOutput {
    try await withCheckedThrowingContinuation { continuation in
      Thread {
        continuation.resume(
          with: Result {
            try run(executable, arguments, environment: environment, currentDirectory: currentDirectory, upTo: limit)
          })
      }.start()
    }
  }
}
