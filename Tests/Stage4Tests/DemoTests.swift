import Foundation
import TestSupport
import Testing

// Runs the real `stage4-demo` executable, as a learner would, and checks what it prints. Timing and memory
// figures are only checked for shape, never for value.

@Suite("stage4-demo", .timeLimit(.minutes(2)), .temporaryFolders)
struct DemoTests {
  func demo() throws -> URL { try BuildProducts.requireExecutable("stage4-demo") }

  @Test("the demo imports on workers of both shapes while the UI ticks, then through stage 1, and sums up")
  func demoRuns() async throws {
    let folder = try TemporaryFolder()

    let output = try await ProcessOutput.runSuspending(
      try demo(), ["--count", "1200", "--batch-size", "250", "--store-folder", folder.url.path])

    #expect(output.status == 0, "stderr: \(output.stderr)")
    #expect(output.stderr.isEmpty)
    let lines = output.stdout.split(separator: "\n").map { $0.trimmingCharacters(in: .whitespaces) }
    let text = lines.joined(separator: "\n")
    for shape in ["child of the main context", "beside the main context"] {
      let start = try #require(
        lines.firstIndex(of: "Stage 4, workers \(shape): importing 1200 notes in batches of 250 while the UI ticks at 60 Hz"),
        "\(text)")
      let block = lines[start...].prefix(6)
      // Five batches: 250, 250, 250, 250, 200. The list changes at least once per batch it is told of.
      let visible = /UI: the list changed \d+ times; the first notes showed after \d+ ms, all 1200 after \d+ ms/
      #expect(block.contains { $0.wholeMatch(of: visible) != nil }, "\(text)")
      #expect(block.contains("UI: the newest note, found by the ID the importer handed back: \"Imported note 1200\""), "\(text)")
      #expect(block.contains { $0.wholeMatch(of: /everything on disk after \d+ ms, in 5 saves/) != nil }, "\(text)")
      #expect(
        block.contains { $0.wholeMatch(of: /resident memory: \d+ MB before; highest by each tenth of the import: (\d+ ){10}MB/) != nil },
        "\(text)")
      #expect(
        block.contains {
          $0.wholeMatch(of: /main queue: longest stall \d+ ms, \d+ frames? missed in all; longest gap between two ticks \d+ ms/) != nil
        },
        "\(text)")
    }
    #expect(lines.contains("Stage 1: inserting and saving the same 1200 notes on the main queue while the UI ticks"), "\(text)")

    let summary = Array(lines.suffix(3))
    let stage4 =
      /stage 4, workers (?:child of|beside) the main context: longest stall (\d+) ms, \d+ frames? missed in all, longest gap (\d+) ms; import \d+ ms, \d+\.\d\dx stage 1's/
    let stage1 = /stage 1, on the main queue: longest stall (\d+) ms, \d+ frames? missed in all, longest gap (\d+) ms; import \d+ ms/
    #expect(summary.count == 3, "\(text)")
    let late = summary.prefix(2).compactMap { $0.wholeMatch(of: stage4).map { (Int($0.1), Int($0.2)) } }
    let stage1Late = summary.last?.wholeMatch(of: stage1).map { (Int($0.1), Int($0.2)) }
    #expect(late.count == 2 && stage1Late != nil, "\(text)")
    // A late tick waited for the oldest frame since the last tick ran: never longer than the gap (both
    // rounded to whole milliseconds).
    for case (let wait?, let gap?) in late + [stage1Late].compactMap({ $0 }) {
      #expect(wait <= gap, "\(text)")
    }

    // What the demo left behind: three stores, each with every note.
    for store in ["Stage4-child-of-main", "Stage4-beside-main", "Stage1"] {
      let file = folder.appending("\(store)/DataModel.sqlite").path
      #expect(FileManager.default.fileExists(atPath: file), "\(store)")
      #expect(try titlesOnDisk(at: URL(fileURLWithPath: file)).count == 1200, "\(store)")
    }
  }

  @Test("--share runs an app and its share extension as two processes; the app merges the extension's saves from history")
  func shareRunsTwoProcesses() async throws {
    let folder = try TemporaryFolder()
    let output = try await ProcessOutput.runSuspending(try demo(), ["--share", "--store-folder", folder.url.path])
    #expect(output.status == 0, "stderr: \(output.stderr)")
    #expect(output.stderr.isEmpty)
    let lines = output.stdout.split(separator: "\n").map { $0.trimmingCharacters(in: .whitespaces) }
    let text = lines.joined(separator: "\n")
    // Three processes printed: the app, and the extension twice, each with a process ID of its own.
    let apps = lines.compactMap { $0.firstMatch(of: /^app \(process (\d+)\)/)?.1 }
    let app = try #require(apps.first, "\(text)")
    let extensions = lines.compactMap { $0.firstMatch(of: /^share extension \(process (\d+)\)/)?.1 }
    #expect(extensions.count == 2 && !extensions.contains(app) && Set(extensions).count == 2, "\(text)")
    let expected = [
      "app: saved 2 notes; heard its own write, read 1 transaction of its own from history and skipped it",
      "app: the list shows 2 notes",
      "app: heard the write; merged 1 transaction from share-extension (3 inserted); the list shows 5 notes",
      "app: a note on screen reads \"Shared link 1\"",
      "app: heard the write; merged 1 transaction from share-extension (1 updated, 1 deleted); the list shows 4 notes",
      "app: the same note on screen now reads \"Shared link 1 (read later)\", without a fetch",
      "app: purged 2 transactions of history that both processes had read",
    ]
    #expect(lines.filter { $0.hasPrefix("app: ") } == expected, "\(text)")
    // The extension's lines come between the app's, in order: each is printed before the app goes on.
    let order = lines.map { $0.hasPrefix("share extension") ? "E" : $0.hasPrefix("app: ") ? "A" : "-" }.joined()
    #expect(order.contains("AAEAAEAAA"), "\(text)")
    #expect(try titlesOnDisk(at: folder.appending("Shared/DataModel.sqlite")).count == 4)
  }

  @Test("Core Data's concurrency debug launch argument is accepted, and the demo runs clean under it")
  func concurrencyDebugArgument() async throws {
    try await DemoCommandLine.checkRunsUnderConcurrencyDebugging("stage4-demo", storeFolder: try TemporaryFolder().url)
  }

  @Test("Core Data's debug launch arguments are refused without a number, naming the argument")
  func debugArgumentsNeedANumber() throws { try DemoCommandLine.checkDebugArgumentsNeedANumber("stage4-demo") }

  @Test("--help prints the usage and every option, and exits 0")
  func help() throws {
    try DemoCommandLine.checkHelp(of: "stage4-demo")
    #expect(try ProcessOutput.run(try demo(), ["--help"]).stdout.contains("How many notes an import saves"))
  }

  @Test("a bad argument is reported on stderr with exit code 1")
  func badArgument() throws {
    try DemoCommandLine.checkRefusesCount("0", of: "stage4-demo")
    let output = try ProcessOutput.run(try demo(), ["--batch-size", "0"])
    #expect(output.status != 0)
    #expect(output.stderr.contains("--batch-size needs a whole number above zero"), "\(output.stderr)")
  }
}
