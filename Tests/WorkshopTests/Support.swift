import ArgumentParser
import Foundation
import Synchronization
import Testing

@testable import Workshop

/// A throwaway workspace in a temporary folder: Package.swift, a stage list, Stages/ with the given
/// stages (and `Demo/` folders for the given demos), and whatever files a test adds. Removed when the
/// test's closure returns.
struct TempRepo {
  let root: URL

  /// A stage list shaped like the workspace's: stages 0 to 4, stages 1 to 4 with demos.
  static let stageList = #"""
    [
      {"number": 0, "title": "The engine: ObjectGraph", "folder": "Stages/ObjectGraph", "adds": "the engine"},
      {"number": 1, "title": "Single context", "folder": "Stages/Stage1-SingleContext", "adds": "one context", "demo": "stage1-demo"},
      {"number": 2, "title": "Private parent, main child", "folder": "Stages/Stage2-PrivateParent", "adds": "two contexts",
       "demo": "stage2-demo"},
      {"number": 3, "title": "Asynchronous loading", "folder": "Stages/Stage3-AsyncLoading", "adds": "a callback", "demo": "stage3-demo"},
      {"number": 4, "title": "Workers and injection", "folder": "Stages/Stage4-WorkersAndInjection", "adds": "workers",
       "demo": "stage4-demo"}
    ]
    """#

  /// The numbers of ``stageList``'s stages.
  static let stageNumbers = [0, 1, 2, 3, 4]

  /// - Parameters:
  ///   - stages: the folders under `Stages/` to make.
  ///   - demos: the stage folders that get a `Demo/` folder.
  ///   - stageList: the text of `Stages/stages.json`, or `nil` for none.
  static func with<R>(
    stages: [String] = ["ObjectGraph"], demos: [String] = [], stageList: String? = TempRepo.stageList, _ body: (TempRepo) throws -> R
  )
    throws -> R
  {
    let root = FileManager.default.temporaryDirectory.appendingPathComponent("workshop-tests-\(UUID().uuidString)")
    try FileManager.default.createDirectory(at: root, withIntermediateDirectories: true)
    defer { try? FileManager.default.removeItem(at: root) }
    let repo = TempRepo(root: root)
    try repo.write("Package.swift", "// swift-tools-version: 6.0\n")
    try repo.makeFolder("Stages")
    if let stageList { try repo.write("Stages/stages.json", stageList) }
    for stage in stages { try repo.makeFolder("Stages/\(stage)") }
    for demo in demos { try repo.makeFolder("Stages/\(demo)/Demo") }
    return try body(repo)
  }

  func write(_ path: String, _ text: String) throws {
    let url = root.appendingPathComponent(path)
    try FileManager.default.createDirectory(at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
    try Data(text.utf8).write(to: url)
  }

  func read(_ path: String) throws -> String {
    try String(contentsOf: root.appendingPathComponent(path), encoding: .utf8)
  }

  func makeFolder(_ path: String) throws {
    try FileManager.default.createDirectory(at: root.appendingPathComponent(path), withIntermediateDirectories: true)
  }

  /// Two exercises of stage 1 with starter sources, READMEs, and a HINTS.md for the first.
  func addExercises(starterHashes: Bool = false) throws {
    try write("Exercises/Package.swift", "// swift-tools-version: 6.0\n")
    try write("Exercises/01-model-not-found/Sources/Model.swift", "let name = \"Model\"\n")
    try write("Exercises/01-model-not-found/README.md", "# Find the model\n")
    try write("Exercises/02-errors-not-abort/Sources/Save.swift", "func save() { abort() }\n")
    try write("Exercises/02-errors-not-abort/README.md", "# Errors, not abort()\n")
    let hash1 = SourceHasher.hash(of: ["Exercises/01-model-not-found/Sources"], root: root)
    let hash2 = SourceHasher.hash(of: ["Exercises/02-errors-not-abort/Sources"], root: root)
    try write(
      "Exercises/exercises.json",
      """
      [
        {"id": "01-model-not-found", "stage": 1, "title": "Find the model", "testTarget": "Exercise01Tests",
         "sources": ["Exercises/01-model-not-found/Sources"]\(starterHashes ? ", \"starterHash\": \"\(hash1)\"" : "")},
        {"id": "02-errors-not-abort", "stage": 1, "title": "Errors, not abort()", "testTarget": "Exercise02Tests",
         "sources": ["Exercises/02-errors-not-abort/Sources"]\(starterHashes ? ", \"starterHash\": \"\(hash2)\"" : "")}
      ]
      """)
  }

  func progress() -> WorkshopProgress {
    ProgressStore(root: root).load().progress
  }
}

/// Collects what a command prints.
final class OutputRecorder: Sendable {
  private let storage = Mutex<[(String, Output.Channel)]>([])

  func output(isTerminal: Bool = false) -> Output {
    Output(isTerminal: isTerminal, colours: false) { text, channel in self.storage.withLock { $0.append((text, channel)) } }
  }

  var standardOutput: String { storage.withLock { $0.filter { $0.1 == .standardOutput }.map(\.0).joined() } }
  var standardError: String { storage.withLock { $0.filter { $0.1 == .standardError }.map(\.0).joined() } }
  var all: String { storage.withLock { $0.map(\.0).joined() } }
}

/// Replays canned `swift test` output and remembers how it was called.
final class FakeRunner: ProcessRunning {
  struct Call: Equatable {
    var executable: String
    var arguments: [String]
    var directory: String
    var attached: Bool
  }

  private let respond: @Sendable ([String]) -> (output: String, status: Int32)
  private let recorded = Mutex<[Call]>([])

  init(_ respond: @escaping @Sendable ([String]) -> (output: String, status: Int32) = { _ in ("", 0) }) {
    self.respond = respond
  }

  var calls: [Call] { recorded.withLock { $0 } }

  func run(_ executable: String, arguments: [String], in directory: URL, onLine: (String) -> Void) throws -> Int32 {
    recorded.withLock { $0.append(Call(executable: executable, arguments: arguments, directory: directory.path, attached: false)) }
    let (output, status) = respond(arguments)
    for line in output.split(separator: "\n", omittingEmptySubsequences: false) { onLine(String(line)) }
    return status
  }

  func runAttached(_ executable: String, arguments: [String], in directory: URL) throws -> Int32 {
    recorded.withLock { $0.append(Call(executable: executable, arguments: arguments, directory: directory.path, attached: true)) }
    return respond(arguments).status
  }
}

/// An environment where `swift` is /usr/bin/swift, SQLite's header exists, and output is recorded.
func testEnvironment(
  _ recorder: OutputRecorder, runner: FakeRunner = FakeRunner(), currentDirectory: String = "/", isLinux: Bool = true,
  hasSQLiteHeader: Bool = true, hasSwift: Bool = true
) -> WorkshopEnvironment {
  WorkshopEnvironment(
    output: recorder.output(),
    runner: runner,
    fileExists: { path in path == Prerequisites.sqliteHeader ? hasSQLiteHeader : FileManager.default.fileExists(atPath: path) },
    isExecutableFile: { path in hasSwift && path == "/usr/bin/swift" },
    isLinux: isLinux,
    currentDirectory: currentDirectory,
    pathVariable: "/usr/local/bin:/usr/bin",
    now: { Date(timeIntervalSince1970: 1_800_000_000) }
  )
}

/// Waits for `condition`, looking every few milliseconds, for up to `seconds` (generous: the machine may be
/// busy); returns whether it came true.
func eventually(within seconds: Double = 60, _ condition: () -> Bool) -> Bool {
  let deadline = Date().addingTimeInterval(seconds)
  while Date() < deadline {
    if condition() { return true }
    Thread.sleep(forTimeInterval: 0.005)
  }
  return condition()
}

/// Parses `arguments` as the real command line and runs the command in `environment`; returns the exit status.
@discardableResult
func runWorkshop(_ arguments: [String], in environment: WorkshopEnvironment) throws -> Int32 {
  var command = try Workshop.parseAsRoot(arguments)
  do {
    try WorkshopEnvironment.$current.withValue(environment) { try command.run() }
    return 0
  } catch let exit as ExitCode {
    return exit.rawValue
  }
}

/// The problems a list's parser reports (`WorkshopError.malformedManifest`), after checking that they
/// name the file at `path`; none when `parse` succeeds.
func listProblems(path: String, _ parse: () throws -> Void) -> [String] {
  do {
    try parse()
    return []
  } catch let WorkshopError.malformedManifest(reported, problems) {
    #expect(reported == path)
    return problems
  } catch {
    Issue.record("unexpected error \(error)")
    return []
  }
}
