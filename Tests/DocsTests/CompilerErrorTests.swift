import Foundation
import TestSupport
import Testing

/// The chapters quote the errors Swift 6 gives for handing a managed object to another queue. These tests
/// build the snippets of `Docs/snippets/` against the engine this checkout has just built (`swift test`
/// builds it first), so each quote is what a real build says today, and the right way compiles. A
/// ```text block marked `<!-- transcript: swiftc SNIPPET… -->` lists `error:` lines that building those
/// snippets must print.
@Suite("The compiler errors the chapters quote")
struct CompilerErrorTests {
  @Test("Each `swiftc` transcript's errors are what the compiler says of its snippets today")
  func quotedCompilerErrors() throws {
    let transcripts = TranscriptTests.transcripts("swiftc")
    #expect(transcripts.count >= 3)
    for transcript in transcripts {
      guard case .transcript(let annotation)? = transcript.block.annotation else { continue }
      let place = "\(transcript.document):\(transcript.block.fenceLine)"
      let snippets = TranscriptTests.arguments(annotation)
      #expect(!snippets.isEmpty, "\(place): the annotation names no snippet to build")
      var said = ""
      for snippet in snippets {
        let output = try compile(snippet)
        #expect(output.status != 0, "\(place): \(snippet) compiled, but the page says it does not:\n\(output.text)")
        said += output.text
      }
      // A quote is a whole diagnostic (`Docs/snippets/X.swift:8:5: error: …`, which ends the line the
      // compiler prints for the file's absolute path) or its message alone (`error: …`).
      let quoted = transcript.block.lines.filter { $0.hasPrefix("error: ") || $0.contains(": error: ") }
      #expect(!quoted.isEmpty, "\(place): the block quotes no `error:` line")
      for line in quoted {
        let expected = line.hasPrefix("error: ") ? ": \(line)" : line
        #expect(said.contains(expected), "\(place): the compiler no longer says:\n\(line)\nIt says:\n\(said)")
      }
    }
  }

  @Test("Handing over the object's ID instead compiles")
  func handingAnIDCompiles() throws {
    let output = try typecheck("Docs/snippets/HandOverAnID.swift")
    #expect(output.status == 0, "\(output.text)")
  }

  @Test("Returning an object from the async perform compiles, as it does with Core Data (the page says why it is still wrong)")
  func returningAnObjectCompiles() throws {
    let output = try compile("Docs/snippets/ReturnedFromPerform.swift")
    #expect(output.status == 0, "\(output.text)")
  }

  /// Runs `swiftc -typecheck` on `path` (relative to the root) against this build's modules. The
  /// file is named by its absolute path, so each diagnostic line ends with the chapter's quote of it.
  private func typecheck(_ path: String) throws -> (status: Int32, text: String) {
    try swiftc(["-typecheck"], path)
  }

  /// Compiles `path` as far as SIL, where Swift 6 finds the data races `sending` guards against (a
  /// type check alone stops short of them).
  private func compile(_ path: String) throws -> (status: Int32, text: String) {
    try swiftc(["-emit-sil", "-o", "/dev/null"], path)
  }

  private func swiftc(_ mode: [String], _ path: String) throws -> (status: Int32, text: String) {
    // The modules of the build these tests belong to (whatever its scratch path), and the SQLite module
    // map of the GRDB checkout it was built from (`<scratch>/<triple>/debug` is the products folder).
    let modules = BuildProducts.folder.appendingPathComponent("Modules")
    let scratch = BuildProducts.folder.deletingLastPathComponent().deletingLastPathComponent()
    let sqliteModuleMap = scratch.appendingPathComponent("checkouts/GRDB.swift/Sources/GRDBSQLite/module.modulemap")
    try #require(
      FileManager.default.fileExists(atPath: sqliteModuleMap.path), "no GRDB checkout at \(sqliteModuleMap.path)")
    try #require(
      FileManager.default.fileExists(atPath: modules.appendingPathComponent("ObjectGraph.swiftmodule").path),
      "no debug build of ObjectGraph at \(modules.path): run `swift build` first")
    let output = try ProcessOutput.run(
      URL(fileURLWithPath: "/usr/bin/env"),
      ["swiftc"] + mode + [
        "-swift-version", "6", "-I", modules.path, "-Xcc", "-fmodule-map-file=\(sqliteModuleMap.path)",
        Repository.root.appendingPathComponent(path).path,
      ])
    return (output.status, output.stdout + output.stderr)
  }
}
