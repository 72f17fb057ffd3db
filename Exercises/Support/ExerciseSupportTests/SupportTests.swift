// The exercises' support: what an untouched starter's error says (each exercise its own way to start, read
// from the starter), and how checks word an error.
import ExerciseChecks
import Foundation
import Testing

@testable import ExerciseKit

@Suite("ExerciseNotDone quotes the starter")
struct ExerciseNotDoneTests {
  let file = "/home/me/workshop/Exercises/07-demo/Sources/Start.swift"

  func excerpt(_ text: String, line: Int) -> (place: String, lines: [String])? {
    StarterExcerpt.excerpt(of: text, line: line, file: file, exercise: "07-demo")
  }

  @Test func aLineToReplaceIsQuotedWithItsComment() throws {
    let text = """
      public func start() {
        // Replace this line with your code. (Until then it tells the completion.)
        completion(Result { throw ExerciseNotDone("07-demo") })
      }
      """
    let found = try #require(excerpt(text, line: 3))
    #expect(found.place == "Exercises/07-demo/Sources/Start.swift:3")
    #expect(
      found.lines == [
        "  // Replace this line with your code. (Until then it tells the completion.)",
        "  completion(Result { throw ExerciseNotDone(\"07-demo\") })",
      ])
  }

  @Test func twoLinesUnderTheirCommentAreBothQuoted() throws {
    let text = """
        let ids = notes.map(\\.objectID)
        try worker.save()

        // Fixed it? Then replace these two lines with `return ids`.
        _ = ids
        throw ExerciseNotDone("07-demo")
      }
      """
    let found = try #require(excerpt(text, line: 6))
    #expect(
      found.lines == [
        "  // Fixed it? Then replace these two lines with `return ids`.", "  _ = ids", "  throw ExerciseNotDone(\"07-demo\")",
      ])
  }

  @Test func aCommentOfSeveralLinesStopsAtTheCodeAboveIt() throws {
    let text = """
        let note = makeNote()
        // Version 2 ready? Replace these lines
        // with a return.
        throw ExerciseNotDone("07-demo")
      """
    let found = try #require(excerpt(text, line: 4))
    #expect(found.lines == ["  // Version 2 ready? Replace these lines", "  // with a return.", "  throw ExerciseNotDone(\"07-demo\")"])
  }

  @Test func withoutACommentOnlyTheThrowIsQuoted() throws {
    let text = """
      public func start() throws {
        let unused = 1
        throw ExerciseNotDone("07-demo")
      }
      """
    #expect(try #require(excerpt(text, line: 3)).lines == ["  throw ExerciseNotDone(\"07-demo\")"])
  }

  @Test func aLineWithoutTheErrorOrAFileThatIsGoneGivesTheGeneralAdvice() {
    #expect(excerpt("let a = 1\n", line: 1) == nil)
    #expect(excerpt("let a = 1\n", line: 9) == nil)
    let error = ExerciseNotDone("07-demo", file: "/nowhere/Exercises/07-demo/Sources/Start.swift", line: 3)
    #expect(
      error.description
        == "Exercise 07-demo is not done yet: read Exercises/07-demo/README.md, then replace the `ExerciseNotDone(\"07-demo\")` "
        + "in Exercises/07-demo/Sources with your code, as the comment above it says.")
  }

  @Test func theMessageNamesTheExerciseAndQuotesTheStarter() throws {
    let folder = FileManager.default.temporaryDirectory.appendingPathComponent("ExerciseKitTests-\(UUID().uuidString)")
    let sources = folder.appendingPathComponent("Exercises/07-demo/Sources")
    try FileManager.default.createDirectory(at: sources, withIntermediateDirectories: true)
    defer { try? FileManager.default.removeItem(at: folder) }
    let starter = sources.appendingPathComponent("Start.swift")
    try Data("func start() throws {\n  // Fixed it? Then delete this line.\n  throw ExerciseNotDone(\"07-demo\")\n}\n".utf8).write(
      to: starter)
    let error = ExerciseNotDone("07-demo", file: starter.path, line: 3)
    #expect(
      error.description == """
        Exercise 07-demo is not done yet: read Exercises/07-demo/README.md. Then start where the starter says, in \
        Exercises/07-demo/Sources/Start.swift:3:
          // Fixed it? Then delete this line.
          throw ExerciseNotDone("07-demo")
        """)
  }
}

@Suite("How checks word an error")
struct SentenceTests {
  struct Plain: Error, CustomStringConvertible {
    let description: String
  }

  @Test func anErrorEndsWithOneFullStop() {
    #expect(sentence(Plain(description: "The file was left untouched.")) == "The file was left untouched.")
    #expect(sentence(Plain(description: "no such store")) == "no such store.")
    #expect(sentence(Plain(description: "Is it a store?\n")) == "Is it a store?")
  }
}
