import Foundation

/// The error an untouched starter throws: it says which exercise is not done, where its task is, and how
/// this exercise's starter says to begin.
///
/// Every starter holds one `ExerciseNotDone`, under a comment that says what to do with it:
///
/// ```swift
/// // Replace this line with your code.
/// throw ExerciseNotDone("01-model-not-found")
/// ```
///
/// Until you do, the exercise's checks fail with "Exercise 01-model-not-found is not done yet: read
/// Exercises/01-model-not-found/README.md", followed by the starter's own lines: the file and line where
/// the error is thrown, the comment above it, and the code from there to the throw. So each exercise says
/// its own way to start (a line to replace, a line to delete once the bug is fixed, two lines that become
/// a `return`), and a new exercise needs nothing more than that comment.
public struct ExerciseNotDone: Error, Sendable, CustomStringConvertible {
  /// The exercise's folder name, for example `01-model-not-found`.
  public let exercise: String
  /// The starter file that throws it (`#filePath` of the call).
  public let file: String
  /// The line of ``file`` that throws it (`#line` of the call).
  public let line: Int

  /// Makes the error for the exercise in folder `Exercises/<exercise>`; `file` and `line` are the
  /// starter's, filled in by the compiler.
  public init(_ exercise: String, file: String = #filePath, line: Int = #line) {
    self.exercise = exercise
    self.file = file
    self.line = line
  }

  public var description: String {
    let task = "Exercise \(exercise) is not done yet: read Exercises/\(exercise)/README.md"
    guard let start = StarterExcerpt.read(file: file, line: line, exercise: exercise) else {
      return task + ", then replace the `ExerciseNotDone(\"\(exercise)\")` in Exercises/\(exercise)/Sources with your code, "
        + "as the comment above it says."
    }
    return task + ". Then start where the starter says, in \(start.place):\n" + start.lines.joined(separator: "\n")
  }
}

/// The lines of a starter around its `ExerciseNotDone`: the comment above it and the code from that
/// comment down to the line that throws.
enum StarterExcerpt {
  /// The most lines quoted above the throwing line.
  static let maximumLinesAbove = 6

  /// `place` is `Exercises/<exercise>/Sources/<file>:<line>` (the path from the exercise's folder on, or
  /// the file's name when it is elsewhere); `lines` the excerpt, each indented by two spaces. Nil when the
  /// file cannot be read or its line `line` does not hold an `ExerciseNotDone`.
  static func read(file: String, line: Int, exercise: String) -> (place: String, lines: [String])? {
    guard let text = try? String(contentsOfFile: file, encoding: .utf8) else { return nil }
    return excerpt(of: text, line: line, file: file, exercise: exercise)
  }

  static func excerpt(of text: String, line: Int, file: String, exercise: String) -> (place: String, lines: [String])? {
    let lines = text.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
    let index = line - 1
    guard lines.indices.contains(index), lines[index].contains("ExerciseNotDone(") else { return nil }
    // Up from the throw: the code between it and the comment (a line it shares the work with), then the
    // comment itself; a blank line, or code above the comment, ends the excerpt.
    var first = index
    var sawComment = false
    while first > 0, index - (first - 1) <= maximumLinesAbove {
      let above = lines[first - 1].trimmingCharacters(in: .whitespaces)
      let isComment = above.hasPrefix("//")
      if above.isEmpty || (sawComment && !isComment) { break }
      if !isComment && above.hasSuffix("{") { break }  // the enclosing declaration: no comment above the throw
      sawComment = sawComment || isComment
      first -= 1
    }
    if !sawComment { first = index }
    let quoted = lines[first...index]
    let indent = quoted.map { $0.prefix { $0 == " " }.count }.min() ?? 0
    let place: String
    if let range = file.range(of: "/Exercises/\(exercise)/", options: .backwards) {
      place = String(file[file.index(after: range.lowerBound)...]) + ":\(line)"
    } else {
      place = (file.split(separator: "/").last.map(String.init) ?? file) + ":\(line)"
    }
    return (place, quoted.map { "  " + $0.dropFirst(indent) })
  }
}
