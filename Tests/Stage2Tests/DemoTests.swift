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

    let output = try await ProcessOutput.runSuspending(try demo(), ["--count", "500", "--store-folder", folder.url.path])

    #expect(output.status == 0, "stderr: \(output.stderr)")
    #expect(output.stderr.isEmpty)
    let lines = output.stdout.split(separator: "\n").map { $0.trimmingCharacters(in: .whitespaces) }
    #expect(lines.contains("after the main context saved: 0 rows in the file; after the private context saved: 1 row"))
    // The note's ID stays temporary in the main context through every save; the private context has the
    // row's permanent one; a second stack cannot use the temporary one.
    let ids = lines.filter { $0.hasPrefix("inserted:") || $0.hasPrefix("after the main save:") || $0.hasPrefix("after saveChanges():") }
    #expect(ids.count == 3 && ids.allSatisfy { $0.hasSuffix("(isTemporaryID: true)") }, "\(ids)")
    let temporary = ids.compactMap { $0.firstMatch(of: /<x-coredata:\/\/\/Note\/t[^>]+>/).map { String($0.output) } }
    #expect(Set(temporary).count == 1, "the same ID at each step: \(temporary)")
    #expect(
      lines.contains { $0.wholeMatch(of: /the private context has: <x-coredata:\/\/[0-9A-F-]+\/Note\/p1> \(isTemporaryID: false\)/) != nil }
    )
    #expect(lines.contains { $0.hasPrefix("a second stack, asked for it: error 900004: No object with temporary ID") })
    #expect(
      lines.contains {
        $0.wholeMatch(
          of:
            /Busy writer: a count in the main context took \d+ ms right after saveChanges\(\) returned, while the private context wrote 500 notes; \d+ ms once the write was over/
        ) != nil
      })
    let stalls = lines.suffix(2)
    let stall = /Stage (\d): main queue: longest stall (\d+) ms, (\d+) frames? missed in all/
    #expect(stalls.compactMap { $0.wholeMatch(of: stall)?.output.1 } == ["1", "2"], "last lines:\n\(stalls.joined(separator: "\n"))")

    // What the demo left behind: stage 2's store holds the proof's note and two imports (the second while
    // the main context counted), stage 1's the import.
    let stage2Count = try await notesInFile(folder.url.appendingPathComponent("Stage2")).count
    let stage1Count = try await notesInFile(folder.url.appendingPathComponent("Stage1")).count
    #expect(stage2Count == 1001)
    #expect(stage1Count == 500)
  }

  @Test("Core Data's concurrency debug launch argument is accepted, and the demo runs clean under it")
  func concurrencyDebugArgument() async throws {
    try await DemoCommandLine.checkRunsUnderConcurrencyDebugging("stage2-demo", storeFolder: try TemporaryFolder().url)
  }

  @Test("Core Data's debug launch arguments are refused without a number, naming the argument")
  func debugArgumentsNeedANumber() throws { try DemoCommandLine.checkDebugArgumentsNeedANumber("stage2-demo") }

  @Test("--help prints the usage and every option, and exits 0")
  func help() throws { try DemoCommandLine.checkHelp(of: "stage2-demo") }

  @Test("a bad argument is reported on stderr with exit code 1")
  func badArgument() throws { try DemoCommandLine.checkRefusesCount("0", of: "stage2-demo") }
}
