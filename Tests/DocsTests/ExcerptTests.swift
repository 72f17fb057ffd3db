import Foundation
import Testing

// Every ```swift block in Docs/ is the real code: it names its source file in an HTML comment above it
// and must appear there, line for line. The rule is spelled out on ExcerptChecker and in Docs/README.md.

@Suite("Docs: code excerpts")
struct ExcerptTests {
  @Test("every Swift block of a chapter is annotated, and every excerpt is in its source file", arguments: Repository.documents)
  func swiftBlocksAreRealCode(document path: String) throws {
    let document = try #require(Repository.document(path))
    let checker = ExcerptChecker(readSource: Repository.lines(of:))
    Repository.record(checker.problems(in: document, named: path))
  }

  // MARK: - The checker itself, on made-up chapters

  /// A stand-in source file.
  static let source = [
    "import Foundation",
    "",
    "final class Pantry {",
    "  private var jars: [String] = []",
    "",
    "  func store(_ jar: String) {",
    "    jars.append(jar)  ",
    "  }",
    "}",
  ]

  static let checker = ExcerptChecker { path in path == "Sources/Pantry.swift" ? ExcerptTests.source : nil }

  static func problems(_ markdown: String) -> [DocsProblem] {
    checker.problems(in: MarkdownDocument(text: markdown), named: "Docs/test.md")
  }

  @Test("a run of lines passes whether shown flush left or indented as in the file; blank lines need not keep spaces")
  func copiedRunsPass() {
    let problems = Self.problems(
      """
      <!-- excerpt: Sources/Pantry.swift -->
      ```swift
      func store(_ jar: String) {
        jars.append(jar)
      }
      ```

      <!-- excerpt: Sources/Pantry.swift -->

      ```swift
        private var jars: [String] = []

        func store(_ jar: String) {
      ```
      """)

    #expect(problems.isEmpty, "\(problems)")
  }

  @Test("a changed line is reported with the chapter, the block's line and the file")
  func changedLineFails() throws {
    let problems = Self.problems(
      """
      # Chapter

      <!-- excerpt: Sources/Pantry.swift -->
      ```swift
      func store(_ jar: String) {
        jars.insert(jar, at: 0)
      }
      ```
      """)

    let problem = try #require(problems.first)
    #expect(problems.count == 1)
    #expect(problem.document == "Docs/test.md")
    #expect(problem.line == 4)
    #expect(problem.description.hasPrefix("Docs/test.md:4: the excerpt is not in Sources/Pantry.swift"))
    #expect(problem.message.contains("chapter's line 6, `jars.insert(jar, at: 0)`, where the file's line 7 has `jars.append(jar)`"))
  }

  @Test("lines that exist but not one after the other, or indented otherwise, are reported")
  func nonContiguousOrReindentedFails() {
    let skipping = Self.problems(
      """
      <!-- excerpt: Sources/Pantry.swift -->
      ```swift
      final class Pantry {
        func store(_ jar: String) {
      ```
      """)
    let reindented = Self.problems(
      """
      <!-- excerpt: Sources/Pantry.swift -->
      ```swift
      func store(_ jar: String) {
      jars.append(jar)
      }
      ```
      """)

    #expect(skipping.count == 1)
    #expect(reindented.first?.message.contains("indented differently") == true)
  }

  @Test("a Swift block without an annotation is reported; an illustration and other languages are not checked")
  func annotationsAreRequired() {
    let problems = Self.problems(
      """
      Some text.
      ```swift
      let unannotated = true
      ```

      <!-- illustration -->
      ```swift
      let madeUp = true
      ```

      ```sh
      swift run stage1-demo
      ```
      """)

    #expect(problems.map(\.line) == [2])
    #expect(problems.first?.message.contains("has no annotation") == true)
  }

  @Test("an annotation without a Swift block under it, or naming a missing file, is reported")
  func misplacedAnnotationsFail() {
    let problems = Self.problems(
      """
      <!-- excerpt: Sources/Pantry.swift -->
      The block moved away.

      <!-- excerpt: Sources/Pantry.swift -->
      ```sh
      ls
      ```

      <!-- excerpt: Sources/Cellar.swift -->
      ```swift
      let wine = 1
      ```
      """)

    #expect(problems.map(\.line) == [1, 5, 10])
    #expect(problems.last?.message.contains("Sources/Cellar.swift, which does not exist") == true)
  }
}
