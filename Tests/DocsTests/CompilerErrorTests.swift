import Foundation
import TestSupport
import Testing

/// Chapter 4 quotes the error Swift 6 gives for handing a managed object to another queue. These tests
/// build the chapter's two snippets against the engine this checkout has just built (`swift test` builds
/// it first), so the quote is what a real build says today, and the right way compiles.
@Suite("The compiler errors the chapters quote")
struct CompilerErrorTests {
  static let chapter = "Docs/04-workers-and-injection.md"

  @Test("Handing a managed object to a worker's queue is refused with the error chapter 4 quotes")
  func handingAnObjectIsRefused() throws {
    let output = try typecheck("Docs/snippets/HandOverAnObject.swift")
    #expect(output.status != 0, "the snippet compiled, but it must not:\n\(output.text)")
    let quoted = try quotedErrorLines()
    #expect(!quoted.isEmpty, "\(Self.chapter) quotes no `error:` line in a ```text block")
    for line in quoted {
      #expect(output.text.contains(line), "the compiler no longer says:\n\(line)\nIt says:\n\(output.text)")
    }
  }

  @Test("Handing over the object's ID instead compiles")
  func handingAnIDCompiles() throws {
    let output = try typecheck("Docs/snippets/HandOverAnID.swift")
    #expect(output.status == 0, "\(output.text)")
  }

  /// The `error:` lines of the chapter's `text` blocks that quote the snippet.
  private func quotedErrorLines() throws -> [String] {
    let text = try #require(Repository.text(of: Self.chapter), "cannot read \(Self.chapter)")
    return text.split(separator: "\n").map(String.init).filter {
      $0.hasPrefix("Docs/snippets/HandOverAnObject.swift:") && $0.contains(": error: ")
    }
  }

  /// Runs `swiftc -typecheck` on `path` (relative to the root) against the debug build's modules. The
  /// file is named by its absolute path, so each diagnostic line ends with the chapter's quote of it.
  private func typecheck(_ path: String) throws -> (status: Int32, text: String) {
    let modules = Repository.root.appendingPathComponent(".build/debug/Modules")
    let sqliteModuleMap = Repository.root.appendingPathComponent(".build/checkouts/GRDB.swift/Sources/GRDBSQLite/module.modulemap")
    try #require(
      FileManager.default.fileExists(atPath: modules.appendingPathComponent("ObjectGraph.swiftmodule").path),
      "no debug build of ObjectGraph at \(modules.path): run `swift build` first")
    let output = try ProcessOutput.run(
      URL(fileURLWithPath: "/usr/bin/env"),
      [
        "swiftc", "-typecheck", "-swift-version", "6", "-I", modules.path, "-Xcc", "-fmodule-map-file=\(sqliteModuleMap.path)",
        Repository.root.appendingPathComponent(path).path,
      ])
    return (output.status, output.stdout + output.stderr)
  }
}
