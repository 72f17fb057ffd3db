import Foundation
import NotesModel
import ObjectGraph
import Stage1
import TestSupport
import Testing

// Runs the real `stage1-demo` executable, as a learner would, and checks what it prints. Timing figures
// are only checked for shape, never for value.

@Suite("stage1-demo", .timeLimit(.minutes(2)), .temporaryFolders)
struct DemoTests {
  func demo() throws -> URL { try BuildProducts.requireExecutable("stage1-demo") }

  @Test("the demo saves notes, finds them after a relaunch, and reports the main-queue stall")
  func demoRuns() async throws {
    let folder = try TemporaryFolder()

    let run = try await ProcessOutput.runSuspending(try demo(), ["--count", "500", "--store-folder", folder.url.path])

    #expect(run.status == 0, "stderr: \(run.stderr)")
    #expect(run.stderr.isEmpty)
    let lines = run.stdout.split(separator: "\n").map(String.init)
    let relaunch = try #require(lines.firstIndex { $0.hasPrefix("Relaunch:") }, "no relaunch in:\n\(run.stdout)")
    #expect(lines[relaunch].contains("found 3 notes"))
    let afterRelaunch = lines[(relaunch + 1)...].prefix(3).map { $0.trimmingCharacters(in: .whitespaces) }
    #expect(afterRelaunch == ["- Buy milk [errands]", "- Call the plumber [errands, home]", "- Plan the hike [outdoors]"])

    let last = try #require(lines.last)
    let stallLine = /Main queue, while saving 500 notes: longest stall (\d+) ms, (\d+) frames? missed in all\./
    let match = try #require(last.wholeMatch(of: stallLine), "last line: \(last)")
    #expect(Int(match.output.1) != nil && Int(match.output.2) != nil)

    // The store the demo left behind holds the three notes and the 500 imported ones.
    let context = try CoreDataManager(modelName: NotesModel.name, storeFolder: folder.url).mainContext
    let count = try await context.perform { try context.count(for: NSFetchRequest<Note>(entityName: "Note")) }
    #expect(count == 503)
  }

  @Test("Core Data's concurrency debug launch argument is accepted, and the demo runs clean under it")
  func concurrencyDebugArgument() async throws {
    try await DemoCommandLine.checkRunsUnderConcurrencyDebugging("stage1-demo", storeFolder: try TemporaryFolder().url)
  }

  @Test("With SQL debugging on, a banner says so once, before the first statement")
  func sqlDebugBanner() throws {
    try DemoCommandLine.checkSQLDebugBanner("stage1-demo", storeFolder: try TemporaryFolder().url)
  }

  @Test("Core Data's debug launch arguments are refused without a number, naming the argument")
  func debugArgumentsNeedANumber() throws { try DemoCommandLine.checkDebugArgumentsNeedANumber("stage1-demo") }

  @Test("--help prints the usage and every option, and exits 0")
  func help() throws { try DemoCommandLine.checkHelp(of: "stage1-demo") }

  @Test("a bad argument is reported on stderr with exit code 1")
  func badArgument() throws { try DemoCommandLine.checkRefusesCount("many", of: "stage1-demo") }

  @Test("a store that cannot be opened is reported on stderr with exit code 1, not a crash")
  func unusableStoreFolder() throws {
    let folder = try TemporaryFolder()
    let blocker = folder.appending("file")
    try Data("in the way".utf8).write(to: blocker)

    let run = try ProcessOutput.run(try demo(), ["--count", "10", "--store-folder", blocker.appendingPathComponent("Stores").path])

    #expect(run.status == 1)
    #expect(run.stderr.contains("Cannot create the store folder"))
  }
}
