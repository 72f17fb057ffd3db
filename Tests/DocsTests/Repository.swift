import Foundation
import Testing

/// The checkout the tests run in, found from this file's own path (`Tests/DocsTests/Repository.swift`).
enum Repository {
  static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
    .deletingLastPathComponent()

  /// Every Markdown file in `Docs/` and its subfolders, as paths relative to the root
  /// (`Docs/00-the-pieces.md`), sorted.
  static let documents: [String] = {
    let docs = root.appendingPathComponent("Docs", isDirectory: true)
    let paths = FileManager.default.enumerator(atPath: docs.path)?.compactMap { $0 as? String } ?? []
    return paths.filter { $0.hasSuffix(".md") }.sorted().map { "Docs/\($0)" }
  }()

  /// The lines of the file at `path` (relative to the root), or `nil` when it cannot be read.
  static func lines(of path: String) -> [String]? {
    text(of: path).map { text in
      var lines = text.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
      if lines.last == "" { lines.removeLast() }
      return lines
    }
  }

  /// The text of the file at `path` (relative to the root), or `nil` when it cannot be read.
  static func text(of path: String) -> String? {
    try? String(contentsOf: root.appendingPathComponent(path), encoding: .utf8)
  }

  /// Reads the chapter at `path`, recording an issue when it cannot be read.
  static func document(_ path: String) -> MarkdownDocument? {
    guard let text = text(of: path) else {
      Issue.record("Cannot read \(path) under \(root.path).")
      return nil
    }
    return MarkdownDocument(text: text)
  }

  /// Records each problem as an issue located at its line of the chapter.
  static func record(_ problems: [DocsProblem]) {
    for problem in problems {
      let location = SourceLocation(
        fileID: problem.document, filePath: root.appendingPathComponent(problem.document).path, line: max(problem.line, 1), column: 1)
      Issue.record(Comment(rawValue: problem.description), sourceLocation: location)
    }
  }
}
