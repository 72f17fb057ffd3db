import Foundation

/// One hint of an exercise's HINTS.md: a section that starts with a `## Hint N` heading.
struct Hint: Sendable, Equatable {
  let number: Int
  /// The heading line without its `## `, e.g. "Hint 2: where does the bundle look?".
  let heading: String
  /// The text up to the next heading of level 1 or 2, trimmed of blank lines at both ends.
  let body: String
}

/// Reads hints and decides which one comes next.
enum HintBook {
  /// The `## Hint N` sections of a Markdown file, in the order they appear. Text before the first hint,
  /// and sections with other headings, are not hints. Headings inside ``` fences do not count.
  static func parse(_ markdown: String) -> [Hint] {
    var hints: [Hint] = []
    var current: (number: Int, heading: String, lines: [String])?
    var inFence = false

    func finish() {
      guard let section = current else { return }
      var lines = section.lines
      while let first = lines.first, first.trimmingCharacters(in: .whitespaces).isEmpty { lines.removeFirst() }
      while let last = lines.last, last.trimmingCharacters(in: .whitespaces).isEmpty { lines.removeLast() }
      hints.append(Hint(number: section.number, heading: section.heading, body: lines.joined(separator: "\n")))
      current = nil
    }

    for rawLine in markdown.split(separator: "\n", omittingEmptySubsequences: false) {
      let line = rawLine.hasSuffix("\r") ? String(rawLine.dropLast()) : String(rawLine)
      let trimmed = line.trimmingCharacters(in: .whitespaces)
      if trimmed.hasPrefix("```") || trimmed.hasPrefix("~~~") { inFence.toggle() }
      if !inFence, line.hasPrefix("# ") || line.hasPrefix("## ") {
        finish()
        if line.hasPrefix("## "), let number = hintNumber(inHeading: String(line.dropFirst(3))) {
          current = (number, String(line.dropFirst(3)).trimmingCharacters(in: .whitespaces), [])
        }
        continue
      }
      current?.lines.append(line)
    }
    finish()
    return hints
  }

  /// N for a heading "Hint N…" (any case), else nil.
  private static func hintNumber(inHeading heading: String) -> Int? {
    let words = heading.trimmingCharacters(in: .whitespaces)
    guard words.lowercased().hasPrefix("hint") else { return nil }
    let digits = words.dropFirst(4).drop { $0 == " " }.prefix { $0.isNumber }
    return Int(digits)
  }

  /// What `workshop hint` shows after `shown` hints have been shown.
  enum Step: Sendable, Equatable {
    case hint(Hint, position: Int, of: Int)
    case noMore(total: Int)
    case noHints
  }

  static func next(after shown: Int, in hints: [Hint]) -> Step {
    if hints.isEmpty { return .noHints }
    if shown >= hints.count { return .noMore(total: hints.count) }
    let position = max(shown, 0)
    return .hint(hints[position], position: position + 1, of: hints.count)
  }
}
