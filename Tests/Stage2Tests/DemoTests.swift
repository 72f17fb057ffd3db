import Foundation
import NotesModel
import ObjectGraph
import Stage2
import TestSupport
import Testing

// Runs the real `stage2-demo` executable, as a learner would, and checks what it prints. Timing figures
// are only checked for shape, never for value.

@Suite("stage2-demo", .timeLimit(.minutes(2)), .temporaryFolders)
struct DemoTests {
  func demo() throws -> URL { try BuildProducts.requireExecutable("stage2-demo") }

  @Test("the demo proves a child save stays in memory, then prints both stacks' main-queue stalls")
  func demoRuns() async throws {
    let folder = try TemporaryFolder()

    let output = try ProcessOutput.run(try demo(), ["--count", "500", "--store-folder", folder.url.path])

    #expect(output.status == 0, "stderr: \(output.stderr)")
    #expect(output.stderr.isEmpty)
    let lines = output.stdout.split(separator: "\n").map { $0.trimmingCharacters(in: .whitespaces) }
    #expect(lines.contains("after the main context saved: 0 rows in the file; after the private context saved: 1 row"))
    let stalls = lines.suffix(2)
    let stall = /Stage (\d): main queue: longest stall (\d+) ms, (\d+) frames? missed in all/
    #expect(stalls.compactMap { $0.wholeMatch(of: stall)?.output.1 } == ["1", "2"], "last lines:\n\(stalls.joined(separator: "\n"))")

    // What the demo left behind: stage 2's store holds the proof's note and the import, stage 1's the import.
    let stage2Count = try await notesInFile(folder.url.appendingPathComponent("Stage2")).count
    let stage1Count = try await notesInFile(folder.url.appendingPathComponent("Stage1")).count
    #expect(stage2Count == 501)
    #expect(stage1Count == 500)
  }

  @Test("Core Data's concurrency debug launch argument is accepted, and the demo runs clean under it")
  func concurrencyDebugArgument() throws {
    try DemoCommandLine.checkRunsUnderConcurrencyDebugging("stage2-demo", storeFolder: try TemporaryFolder().url)
  }

  @Test("Core Data's debug launch arguments are refused without a number, naming the argument")
  func debugArgumentsNeedANumber() throws { try DemoCommandLine.checkDebugArgumentsNeedANumber("stage2-demo") }

  @Test("--help prints the usage and every option, and exits 0")
  func help() throws { try DemoCommandLine.checkHelp(of: "stage2-demo") }

  @Test("a bad argument is reported on stderr with exit code 1")
  func badArgument() throws { try DemoCommandLine.checkRefusesCount("0", of: "stage2-demo") }
}
