import Foundation
import Synchronization

#if canImport(Glibc)
  import Glibc
#elseif canImport(Musl)
  import Musl
#elseif canImport(Darwin)
  import Darwin
#endif

/// Runs programs. The live one uses Foundation's `Process` (arguments as an array: no shell, so nothing
/// in them is ever interpreted); tests substitute a fake that replays recorded output.
protocol ProcessRunning: Sendable {
  /// Runs `executable` in `directory`, calling `onLine` with each line of its standard output and
  /// standard error (merged, in order) as it comes, and returns its exit status.
  func run(_ executable: String, arguments: [String], in directory: URL, onLine: (String) -> Void) throws -> Int32

  /// Runs `executable` attached to this terminal (its input and output are ours: a demo that redraws
  /// its screen in place needs the terminal itself, not a pipe), and returns its exit status.
  func runAttached(_ executable: String, arguments: [String], in directory: URL) throws -> Int32

  /// Stops the programs this runner is running (a Ctrl-C to `workshop watch` during a check), and keeps it
  /// from starting more: a `run` after this returns at once. Safe to call from any thread.
  func stopRunning()
}

extension ProcessRunning {
  /// A runner whose programs cannot be stopped (a test's fake that returns at once) has nothing to stop.
  func stopRunning() {}
}

/// The real thing.
struct FoundationProcessRunner: ProcessRunning {
  /// The programs it is running, for `stopRunning()` (shared by the runner's copies).
  private let children = RunningChildren()

  /// The status `run` returns for a program it did not start because the runner was stopped: a shell's
  /// for a program that Ctrl-C ended (128 + SIGINT).
  static let stoppedStatus: Int32 = 128 + SIGINT

  func run(_ executable: String, arguments: [String], in directory: URL, onLine: (String) -> Void) throws -> Int32 {
    let process = makeProcess(executable, arguments: arguments, in: directory)
    let pipe = Pipe()
    process.standardOutput = pipe
    process.standardError = pipe
    process.standardInput = FileHandle.nullDevice
    guard let child = try children.start({ try launch(process, executable: executable, arguments: arguments) }) else {
      return Self.stoppedStatus
    }
    defer { children.ended(child) }

    // read(2) itself: it returns as soon as there is output (FileHandle's `read(upToCount:)` waits for
    // the whole count or the end, so nothing would stream), and a failure is an error, not a trap
    // (as it is in `availableData`).
    let descriptor = pipe.fileHandleForReading.fileDescriptor
    var buffer = [UInt8](repeating: 0, count: 64 * 1024)
    var pending = Data()
    while true {
      let count = buffer.withUnsafeMutableBytes { read(descriptor, $0.baseAddress, $0.count) }
      if count == 0 { break }
      if count < 0 {
        if errno == EINTR { continue }
        let command = ([URL(fileURLWithPath: executable).lastPathComponent] + arguments).joined(separator: " ")
        throw WorkshopError.couldNotRun(command: command, reason: "reading its output failed (\(String(cString: strerror(errno))))")
      }
      pending.append(contentsOf: buffer[0..<count])
      while let newline = pending.firstIndex(of: UInt8(ascii: "\n")) {
        var lineData = pending[pending.startIndex..<newline]
        if lineData.last == UInt8(ascii: "\r") { lineData = lineData.dropLast() }
        onLine(String(decoding: lineData, as: UTF8.self))
        pending.removeSubrange(pending.startIndex...newline)
      }
    }
    if !pending.isEmpty { onLine(String(decoding: pending, as: UTF8.self)) }
    process.waitUntilExit()
    return status(of: process)
  }

  func runAttached(_ executable: String, arguments: [String], in directory: URL) throws -> Int32 {
    let process = makeProcess(executable, arguments: arguments, in: directory)
    guard let child = try children.start({ try launch(process, executable: executable, arguments: arguments) }) else {
      return Self.stoppedStatus
    }
    defer { children.ended(child) }
    process.waitUntilExit()
    return status(of: process)
  }

  func stopRunning() {
    children.stop(grace: Self.stopGrace)
  }

  /// How long a stopped program has to end after its SIGINT (SwiftPM stops its build and its tests, then
  /// exits) before it is killed.
  static let stopGrace: Double = 10

  /// Runs `executable` to its end and returns its standard output as bytes (a file's contents, say);
  /// standard error is dropped. Throws when it cannot start or exits with a status other than 0.
  func output(_ executable: String, arguments: [String], in directory: URL) throws -> Data {
    let process = makeProcess(executable, arguments: arguments, in: directory)
    let pipe = Pipe()
    process.standardOutput = pipe
    process.standardError = FileHandle.nullDevice
    process.standardInput = FileHandle.nullDevice
    try launch(process, executable: executable, arguments: arguments)
    let data = pipe.fileHandleForReading.readDataToEndOfFile()
    process.waitUntilExit()
    let exit = status(of: process)
    guard exit == 0 else {
      let command = ([URL(fileURLWithPath: executable).lastPathComponent] + arguments).joined(separator: " ")
      throw WorkshopError.couldNotRun(command: command, reason: "it exited with status \(exit)")
    }
    return data
  }

  private func makeProcess(_ executable: String, arguments: [String], in directory: URL) -> Process {
    let process = Process()
    process.executableURL = URL(fileURLWithPath: executable)
    process.arguments = arguments
    process.currentDirectoryURL = directory
    return process
  }

  /// Starts `process` and returns its process id.
  @discardableResult
  private func launch(_ process: Process, executable: String, arguments: [String]) throws -> pid_t {
    do {
      try process.run()
      return process.processIdentifier
    } catch {
      let command = ([URL(fileURLWithPath: executable).lastPathComponent] + arguments).joined(separator: " ")
      throw WorkshopError.couldNotRun(command: command, reason: error.localizedDescription)
    }
  }

  /// The exit status; a process killed by a signal gets 128 + the signal, as a shell reports it.
  private func status(of process: Process) -> Int32 {
    process.terminationReason == .uncaughtSignal ? 128 + process.terminationStatus : process.terminationStatus
  }
}

/// The programs a `FoundationProcessRunner` has started and that have not ended, and whether it was
/// stopped, behind one lock: a program is either started before the stop, and then signalled by it, or
/// not started at all.
final class RunningChildren: Sendable {
  private struct State {
    var stopped = false
    var running: Set<pid_t> = []
  }

  private let state = Mutex(State())

  /// Starts a program with `launch` (which returns its process id), unless `stop` was called: then it
  /// starts nothing and returns nil.
  func start(_ launch: () throws -> pid_t) throws -> pid_t? {
    try state.withLock { state in
      guard !state.stopped else { return nil }
      let child = try launch()
      state.running.insert(child)
      return child
    }
  }

  /// `child` has ended (or its runner gave up on it).
  func ended(_ child: pid_t) {
    state.withLock { _ = $0.running.remove(child) }
  }

  /// Sends SIGINT to the running programs, as Ctrl-C on a terminal would (SwiftPM then stops its build
  /// or its tests and exits), and SIGKILL to those still running `grace` seconds later; `start` starts
  /// nothing from now on. The signals go to each program's process group, which Foundation makes for it
  /// on Linux, so whatever it started in its group ends too. They are sent under the lock, while the
  /// program is known to be running: its process id cannot have gone to another program (but for the
  /// moment between Foundation reaping it and `ended`, too short to matter).
  func stop(grace: Double) {
    let signalled = state.withLock { state in
      state.stopped = true
      for child in state.running { Self.send(SIGINT, to: child) }
      return state.running
    }
    guard !signalled.isEmpty else { return }
    DispatchQueue.global().asyncAfter(deadline: .now() + grace) { [self] in
      state.withLock { state in
        for child in state.running.intersection(signalled) { Self.send(SIGKILL, to: child) }
      }
    }
  }

  /// Signals `child`'s process group, or `child` alone when it leads none (Foundation on macOS makes no group).
  private static func send(_ signal: Int32, to child: pid_t) {
    if kill(-child, signal) != 0 { kill(child, signal) }
  }
}

/// Finding programs on PATH.
enum ExecutableLocator {
  /// The first `name` on `pathVariable` that `isExecutable` accepts.
  static func find(_ name: String, pathVariable: String?, isExecutable: (String) -> Bool) -> String? {
    for folder in (pathVariable ?? "").split(separator: ":") where !folder.isEmpty {
      let candidate = URL(fileURLWithPath: String(folder)).appendingPathComponent(name).path
      if isExecutable(candidate) { return candidate }
    }
    return nil
  }

  /// `swift` from the environment's PATH, or the error that says how to fix PATH.
  static func swift(in environment: WorkshopEnvironment) throws -> String {
    guard let swift = find("swift", pathVariable: environment.pathVariable, isExecutable: environment.isExecutableFile) else {
      throw WorkshopError.swiftNotOnPath
    }
    return swift
  }
}

/// What must be on the machine before anything is built.
enum Prerequisites {
  static let sqliteHeader = "/usr/include/sqlite3.h"
  static let sqliteMissing = "SQLite's development files are missing: sudo apt-get install libsqlite3-dev"

  /// The problems, each a line that says what to do; empty when all is well. (macOS ships SQLite's headers.)
  static func problems(isLinux: Bool, fileExists: (String) -> Bool) -> [String] {
    var problems: [String] = []
    if isLinux && !fileExists(sqliteHeader) { problems.append(sqliteMissing) }
    return problems
  }

  /// Throws when something is missing.
  static func require(_ environment: WorkshopEnvironment) throws {
    let problems = problems(isLinux: environment.isLinux, fileExists: environment.fileExists)
    if !problems.isEmpty { throw WorkshopError.missingPrerequisites(problems) }
  }
}
