import Foundation
import TestSupport
import Testing

/// The playground runs as it comes, and prints what its README shows (`…` standing for what changes from
/// run to run: IDs, the temporary folder).
@Suite("The playground", .timeLimit(.minutes(2)))
struct PlaygroundTests {
  @Test("swift run playground prints what Playground/README.md shows")
  func printsWhatTheReadmeShows() throws {
    let readme = try #require(Repository.text(of: "Playground/README.md"))
    let block = try #require(MarkdownDocument(text: readme).codeBlocks.first { $0.language == "text" })
    let run = try ProcessOutput.run(try BuildProducts.requireExecutable("playground"))
    #expect(run.status == 0, "stderr: \(run.stderr)")
    let printed = run.stdout.split(separator: "\n").map(String.init)
    #expect(printed.count == block.lines.count, "printed:\n\(run.stdout)")
    for (line, shown) in zip(printed, block.lines) {
      #expect(Self.matches(line, shown), "printed \(line)\nREADME shows \(shown)")
    }
  }

  @Test("The playground can import every stage's library, and its README has ideas for every chapter")
  func everyStageIsThere() throws {
    let manifest = try #require(Repository.text(of: "Package.swift"))
    let target = try #require(
      manifest.firstMatch(of: /name: "Playground",\s*dependencies: \[([^\]]*)\]/),
      "Package.swift has no Playground target with dependencies")
    let readme = try #require(Repository.text(of: "Playground/README.md"))
    for stage in try WorkspaceLists.stages() {
      if let library = stage.string("library") {
        #expect(target.1.contains("\"\(library)\""), "the Playground target should depend on \(library)")
      }
      if let chapter = stage.string("chapter") {
        #expect(readme.contains("(../\(chapter))"), "Playground/README.md should have an idea for \(chapter)")
      }
    }
  }

  @Test("A quoted line matches with … standing for any text")
  func ellipsisMatchesAnything() {
    #expect(Self.matches("The store is /tmp/playground-1234/Playground.sqlite.", "The store is /tmp/playground-…/Playground.sqlite."))
    #expect(!Self.matches("The store is elsewhere.", "The store is /tmp/playground-…/Playground.sqlite."))
    #expect(Self.matches("a (b) [c]", "a (b) [c]"))
  }

  /// Whether `line` is `shown`, with each `…` of `shown` standing for any run of characters.
  static func matches(_ line: String, _ shown: String) -> Bool {
    let pattern = shown.components(separatedBy: "…").map(NSRegularExpression.escapedPattern(for:)).joined(separator: ".*")
    return line.range(of: "^" + pattern + "$", options: .regularExpression) != nil
  }
}
