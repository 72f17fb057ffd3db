import Foundation
import TestSupport
import Testing

// Runs the real `stage3-demo` executable, as a learner would, and checks what it prints. Timing figures
// are only checked for shape, never for value.

@Suite("stage3-demo", .timeLimit(.minutes(2)), .temporaryFolders)
struct DemoTests {
  func demo() throws -> URL { try BuildProducts.requireExecutable("stage3-demo") }

  @Test("the demo writes a version 1 store, migrates it behind a placeholder and a progress bar, and compares with stage 2")
  func demoRuns() async throws {
    let folder = try TemporaryFolder()

    let output = try await ProcessOutput.runSuspending(try demo(), ["--count", "2000", "--store-folder", folder.url.path])

    #expect(output.status == 0, "stderr: \(output.stderr)")
    #expect(output.stderr.isEmpty)
    let lines = output.stdout.split(separator: "\n").map { $0.trimmingCharacters(in: .whitespaces) }
    let text = lines.joined(separator: "\n")
    #expect(lines.contains("[##########] 100% 2000 of 2000 notes"), "\(text)")
    let initialiserLine = /Stage 3: the initialiser returned after \d+\.\d\d ms \(\d+\.\d\d ms of work on this thread\)/
    #expect(lines.contains { $0.wholeMatch(of: initialiserLine) != nil }, "\(text)")
    #expect(lines.contains("UI: a placeholder, \"Opening your notes…\", while the store loads"), "\(text)")

    // The progress bar follows the migration, in order, up to 100%, before the notes are shown.
    let bars = lines.filter { $0.hasPrefix("UI: migrating [") }
    let percents = bars.compactMap { $0.wholeMatch(of: /UI: migrating \[[#-]{10}\] +(\d+)%/).map { Int($0.output.1) ?? -1 } }
    #expect(percents.count == bars.count && !percents.isEmpty, "\(text)")
    #expect(percents == percents.sorted() && percents.last == 100, "\(text)")
    let shown = try #require(lines.firstIndex { $0.hasPrefix("UI: 2000 notes (the callback came on the main queue after") }, "\(text)")
    #expect(lines.lastIndex { $0.hasPrefix("UI: migrating") }.map { $0 < shown } == true)
    #expect(
      lines.contains { $0.wholeMatch(of: /Stage 2: the first mainContext access returned after \d+ ms, with 2000 notes/) != nil }, "\(text)"
    )

    let summary = lines.suffix(2)
    let stage3 =
      /Stage 3: initialiser \d+\.\d\d ms; store migrated and ready in \d+ ms; meanwhile the main queue's longest stall \d+ ms, \d+ frames? missed in all/
    let stage2 = /Stage 2: first mainContext access \d+ ms; meanwhile the main queue's longest stall \d+ ms, \d+ frames? missed in all/
    #expect(summary.first?.wholeMatch(of: stage3) != nil, "last lines:\n\(summary.joined(separator: "\n"))")
    #expect(summary.last?.wholeMatch(of: stage2) != nil, "last lines:\n\(summary.joined(separator: "\n"))")

    // What the demo left behind: both stores, migrated.
    for stage in ["Stage3", "Stage2"] {
      #expect(FileManager.default.fileExists(atPath: folder.appending("\(stage)/DataModel.sqlite").path))
    }
  }

  @Test("--what-can-be-inferred tries each change for real: what migrates keeps its values, what is refused says why and leaves the file")
  func whatCanBeInferred() async throws {
    let folder = try TemporaryFolder()

    let output = try await ProcessOutput.runSuspending(try demo(), ["--what-can-be-inferred", "--store-folder", folder.url.path])

    #expect(output.status == 0, "stderr: \(output.stderr)")
    let text = output.stdout
    let lines = text.split(separator: "\n").map { $0.trimmingCharacters(in: .whitespaces) }
    #expect(lines.filter { $0.wholeMatch(of: /\d\. .+/) != nil }.count == 8, "\(text)")
    #expect(lines.filter { $0.hasPrefix("migrated: ") }.count == 5, "\(text)")
    // The renaming identifier keeps the dates; a plain rename starts the new attribute empty.
    #expect(lines.contains { $0.hasPrefix("migrated: ") && $0.contains("modifiedAt: kept") }, "\(text)")
    #expect(lines.contains { $0.hasPrefix("migrated: ") && $0.contains("modifiedAt: nil") }, "\(text)")
    #expect(lines.contains { $0.hasPrefix("migrated: ") && $0.contains("wordCount: 0") }, "\(text)")
    #expect(lines.contains { $0.hasPrefix("migrated: Buy milk (body: \"\",") }, "\(text)")
    let refusals = lines.filter { $0.hasPrefix("refused: ") }
    #expect(
      refusals.map { $0.prefix(22) } == ["refused: error 134110:", "refused: error 134140:", "refused: error 134100:"],
      "\(text)")
    #expect(refusals.contains { $0.contains("Note.priority changed type from String to Integer 64") }, "\(text)")
    #expect(lines.filter { $0 == "the store file is byte for byte as it was" }.count == 3, "\(text)")
  }

  @Test(
    "--custom-stage migrates in stages: the did-handler fills the number at version 2; a handler's error fails the load and leaves the file"
  )
  func customStage() async throws {
    let folder = try TemporaryFolder()

    let output = try await ProcessOutput.runSuspending(try demo(), ["--custom-stage", "--store-folder", folder.url.path])

    #expect(output.status == 0, "stderr: \(output.stderr)")
    let lines = output.stdout.split(separator: "\n").map { $0.trimmingCharacters(in: .whitespaces) }
    let handlers = lines.filter { $0.hasSuffix("Handler") || $0.contains("Handler: ") }
    #expect(
      handlers == [
        "willMigrateHandler: the store is still at version 1, with 3 notes",
        "didMigrateHandler: the store is at version 2; priorityLevel set on 3 notes",
        "willMigrateHandler: the store is still at version 1, with 3 notes",
      ], "\(output.stdout)")
    #expect(
      lines.contains("loaded with version 3: Buy milk (priorityLevel: 3); Call Ann (priorityLevel: 1); Plan the hike (priorityLevel: 2)"),
      "\(output.stdout)")
    #expect(lines.contains("version 3's attributes: body, priorityLevel, title, updatedAt"), "\(output.stdout)")
    #expect(
      lines.contains("refused: error 1: Call Ann has the priority \"someday\", which is not low, normal or high"), "\(output.stdout)")
    #expect(lines.last == "the store file is byte for byte as it was", "\(output.stdout)")
    // No copy of a store is left beside them.
    let files = try FileManager.default.contentsOfDirectory(atPath: folder.url.path).filter { $0.hasSuffix(".sqlite") }
    #expect(files.sorted() == ["Refused.sqlite", "Staged.sqlite"])
  }

  @Test("Core Data's concurrency debug launch argument is accepted, and the demo runs clean under it")
  func concurrencyDebugArgument() async throws {
    try await DemoCommandLine.checkRunsUnderConcurrencyDebugging("stage3-demo", storeFolder: try TemporaryFolder().url)
  }

  @Test("Core Data's debug launch arguments are refused without a number, naming the argument")
  func debugArgumentsNeedANumber() throws { try DemoCommandLine.checkDebugArgumentsNeedANumber("stage3-demo") }

  @Test("--help prints the usage and every option, and exits 0")
  func help() throws {
    try DemoCommandLine.checkHelp(of: "stage3-demo")
    // Here --count is the size of the store the old app writes, not of an import.
    let help = try ProcessOutput.run(try demo(), ["--help"]).stdout
    #expect(help.contains("How many notes the store holds"), "\(help)")
    #expect(!help.contains("an import saves"), "\(help)")
  }

  @Test("a bad argument is reported on stderr with exit code 1")
  func badArgument() throws { try DemoCommandLine.checkRefusesCount("0", of: "stage3-demo") }
}
