import Foundation
import Synchronization
import Testing

@testable import Workshop

@Suite("Finding the workspace and what it needs")
struct RepoAndPrerequisitesTests {
  @Test func theRootIsFoundFromAnyFolderBelowIt() throws {
    try TempRepo.with { repo in
      try repo.write("Exercises/Package.swift", "// the exercises' own package, without Stages/\n")
      try repo.makeFolder("Exercises/01-a/Sources")
      let root = repo.root.standardizedFileURL.path
      #expect(try RepoRoot.find(from: repo.root).path == root)
      #expect(try RepoRoot.find(from: repo.root.appendingPathComponent("Exercises/01-a/Sources")).path == root)
      #expect(try RepoRoot.find(from: repo.root.appendingPathComponent("Stages/ObjectGraph")).path == root)
      #expect(try RepoRoot.validate(repo.root).path == root)
      #expect(throws: WorkshopError.notAWorkspace(repo.root.appendingPathComponent("Exercises").standardizedFileURL.path)) {
        try RepoRoot.validate(repo.root.appendingPathComponent("Exercises"))
      }
    }
  }

  @Test func outsideAWorkspaceTheErrorSaysWhereToRunIt() throws {
    let folder = FileManager.default.temporaryDirectory.appendingPathComponent("not-a-workspace-\(UUID().uuidString)/deeper")
    try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
    defer { try? FileManager.default.removeItem(at: folder.deletingLastPathComponent()) }
    // A Package.swift without Stages/ is some other package, not the workspace.
    try Data().write(to: folder.appendingPathComponent("Package.swift"))
    #expect(throws: WorkshopError.notInWorkspace(searchedFrom: folder.standardizedFileURL.path)) { try RepoRoot.find(from: folder) }
    let message = WorkshopError.notInWorkspace(searchedFrom: "/tmp").description
    #expect(message.contains("Run the command from inside the workspace"))
  }

  @Test func sqliteHeadersAreRequiredOnLinuxOnly() {
    let missing = Prerequisites.problems(isLinux: true) { _ in false }
    #expect(missing == ["SQLite's development files are missing: sudo apt-get install libsqlite3-dev"])
    #expect(Prerequisites.problems(isLinux: true) { $0 == "/usr/include/sqlite3.h" }.isEmpty)
    #expect(Prerequisites.problems(isLinux: false) { _ in false }.isEmpty)
  }

  @Test func swiftIsLookedUpOnPath() {
    let path = "/opt/swift/usr/bin::/usr/bin"
    #expect(ExecutableLocator.find("swift", pathVariable: path) { $0 == "/usr/bin/swift" } == "/usr/bin/swift")
    #expect(ExecutableLocator.find("swift", pathVariable: path) { $0.hasSuffix("/swift") } == "/opt/swift/usr/bin/swift")
    #expect(ExecutableLocator.find("swift", pathVariable: nil) { _ in true } == nil)
    #expect(ExecutableLocator.find("swift", pathVariable: path) { _ in false } == nil)
  }

  @Test func stagesArePresentWhenTheirFolderIsAndHaveDemosWhenTheListNamesOneAndItsSourcesAreThere() throws {
    // Stage 0 has a Demo folder but the list names no demo for it; stage 2 has a demo in the list and in
    // Package.swift, but no Demo folder: the list and the folders decide, Package.swift is not read.
    try TempRepo.with(
      stages: ["ObjectGraph", "Stage1-SingleContext", "Stage2-PrivateParent"], demos: ["ObjectGraph", "Stage1-SingleContext"]
    ) { repo in
      try repo.write("Package.swift", #".executable(name: "stage2-demo", targets: ["Stage2Demo"])"#)
      let survey = StageAvailability.survey(root: repo.root, stages: try StageCatalog.load(root: repo.root))
      #expect(survey.map(\.stage.number) == [0, 1, 2, 3, 4])
      #expect(survey.map(\.isPresent) == [true, true, true, false, false])
      #expect(survey.map(\.hasDemo) == [false, true, false, false, false])
    }
  }
}

@Suite("Running programs")
struct ProcessRunnerTests {
  @Test func outputStreamsLineByLineAndTheStatusComesBack() throws {
    var lines: [String] = []
    let status = try FoundationProcessRunner().run(
      "/bin/sh", arguments: ["-c", "echo one; echo two >&2; printf 'no newline'; exit 3"], in: URL(fileURLWithPath: "/")
    ) { lines.append($0) }
    #expect(lines == ["one", "two", "no newline"])
    #expect(status == 3)
  }

  @Test func argumentsAreNeverInterpretedByAShell() throws {
    var lines: [String] = []
    let status = try FoundationProcessRunner().run(
      "/bin/echo", arguments: ["$(touch /tmp/workshop-injected)", "; rm -rf /"], in: URL(fileURLWithPath: "/")
    ) { lines.append($0) }
    #expect(status == 0)
    #expect(lines == ["$(touch /tmp/workshop-injected) ; rm -rf /"])
  }

  @Test func aKilledProcessReportsTheSignalAsAShellWould() throws {
    let status = try FoundationProcessRunner().run("/bin/sh", arguments: ["-c", "kill -9 $$"], in: URL(fileURLWithPath: "/")) { _ in }
    #expect(status == 137)
  }

  @Test("stopRunning() interrupts the running program (its process group too) and keeps the runner from starting another")
  func stopRunningStopsTheChildAndStartsNoMore() throws {
    let runner = FoundationProcessRunner()
    let said = Mutex<[String]>([])
    let status = Mutex<Int32?>(nil)
    Thread.detachNewThread {
      // A child gets the signals its starter blocks blocked too: not SIGINT, as from a terminal's shell (a
      // test runner's threads block it).
      var interrupt = sigset_t()
      sigemptyset(&interrupt)
      sigaddset(&interrupt, SIGINT)
      pthread_sigmask(SIG_UNBLOCK, &interrupt, nil)
      // A shell that says so (and who it is), then waits for a program of its own, in its process group.
      let ended = try? runner.run("/bin/sh", arguments: ["-c", "echo $$; sleep 120; echo never"], in: URL(fileURLWithPath: "/")) {
        line in said.withLock { $0.append(line) }
      }
      status.withLock { $0 = ended ?? -1 }
    }
    #expect(eventually { said.withLock { $0.count == 1 } })
    let shell = said.withLock { $0.first.flatMap { pid_t($0) } }
    // Only once `sleep` runs: a SIGINT that reaches the shell's child between its fork and its exec is caught
    // by the handler the child inherited from the shell and lost at the exec, and the child sleeps on (about
    // one try in fifteen with dash, even on a quiet machine). Ctrl-C on a terminal has the same window.
    #if os(Linux)
      #expect(eventually(within: 30) { shell.map { Self.hasChild(named: "sleep", of: $0) } ?? false })
    #endif
    runner.stopRunning()
    #expect(eventually(within: 30) { status.withLock { $0 != nil } }, "the run returns once its program has ended")
    #expect(status.withLock { $0 } == 128 + SIGINT)
    #expect(
      try runner.run("/bin/echo", arguments: ["again"], in: URL(fileURLWithPath: "/")) { _ in } == FoundationProcessRunner.stoppedStatus)
  }

  /// Whether a process named `name` (its program, once it has exec'd) has `parent` as its parent, from Linux's
  /// `/proc`.
  static func hasChild(named name: String, of parent: pid_t) -> Bool {
    let processes = (try? FileManager.default.contentsOfDirectory(atPath: "/proc")) ?? []
    return processes.contains { entry in
      guard Int32(entry) != nil, let stat = try? String(contentsOfFile: "/proc/\(entry)/stat", encoding: .utf8),
        let open = stat.firstIndex(of: "("), let close = stat.lastIndex(of: ")")
      else { return false }
      // "pid (comm) state ppid …": the name may hold spaces and parentheses, so it is read between the first
      // "(" and the last ")".
      let fields = stat[stat.index(after: close)...].split(separator: " ")
      return stat[stat.index(after: open)..<close] == name && fields.count > 1 && pid_t(fields[1]) == parent
    }
  }

  @Test func aMissingProgramIsAClearError() {
    #expect(throws: WorkshopError.self) {
      try FoundationProcessRunner().run("/no/such/swift", arguments: ["test"], in: URL(fileURLWithPath: "/")) { _ in }
    }
  }
}
