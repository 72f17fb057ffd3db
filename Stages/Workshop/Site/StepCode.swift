import Foundation

/// The code a tutorial step shows: a stage source file as it stands after that step, cut from the real
/// file so the tutorial cannot drift from the stage.
///
/// A tutorial (`Docs/Tutorials/*.tutorial`) names a file and where the step ends:
/// `@Code(name: "CoreDataManager.swift", file: "Stages/Stage1-SingleContext/CoreDataManager.swift#through: public init(")`.
/// The step shows the file from its first line to the end of the declaration that starts on the first
/// line containing the text after `#through:`, with the scopes still open closed after it. Without a
/// `#through:` the step shows the whole file. Each step's file grows from the last, and DocC marks the
/// lines a step adds.
enum StepCode {
  /// The code for `reference` (`path` or `path#through: text`), read from `root`.
  static func code(for reference: String, root: URL, place: String) throws(SiteError) -> (path: String, code: String) {
    let parts = reference.components(separatedBy: "#through:")
    let path = parts[0].trimmingCharacters(in: .whitespaces)
    let url = root.appendingPathComponent(path)
    guard let source = try? String(contentsOf: url, encoding: .utf8) else {
      throw SiteError(place, "no file \(path) in the repository")
    }
    guard parts.count == 2 else { return (path, source) }
    let anchor = parts[1].trimmingCharacters(in: .whitespaces)
    guard let code = prefix(of: source, through: anchor) else {
      throw SiteError(place, "no line of \(path) contains '\(anchor)': point the step at a line the file has")
    }
    return (path, code)
  }

  /// The source from its start to the end of the declaration starting on the first line that contains
  /// `anchor`, followed by a closing brace for each scope still open; `nil` when no line contains it.
  static func prefix(of source: String, through anchor: String) -> String? {
    let lines = source.components(separatedBy: "\n")
    guard let start = lines.firstIndex(where: { $0.contains(anchor) }) else { return nil }
    let end = endOfDeclaration(startingAt: start, in: lines)
    var scanner = BraceScanner()
    var openScopes: [String] = []
    for line in lines[...end] {
      let indent = String(line.prefix(while: { $0 == " " }))
      for change in scanner.braces(in: line) {
        if change > 0 { openScopes.append(indent) } else if !openScopes.isEmpty { openScopes.removeLast() }
      }
    }
    let closing = openScopes.reversed().map { "\($0)}" }
    return (lines[...end] + closing).joined(separator: "\n") + "\n"
  }

  /// The last line of the declaration that starts on line `start`: where its braces close again, or the
  /// line itself when it opens none and does not go on to the next.
  static func endOfDeclaration(startingAt start: Int, in lines: [String]) -> Int {
    var scanner = BraceScanner()
    var depth = 0
    var parentheses = 0
    var opened = false
    for index in start..<lines.count {
      let line = lines[index]
      for change in scanner.braces(in: line) {
        depth += change
        if change > 0 { opened = true }
      }
      parentheses += scanner.lastParentheses
      if opened {
        if depth <= 0 { return index }
        continue
      }
      let trimmed = line.trimmingCharacters(in: .whitespaces)
      let next = index + 1 < lines.count ? lines[index + 1].trimmingCharacters(in: .whitespaces) : ""
      let goesOn =
        parentheses > 0 || trimmed.hasSuffix(",") || trimmed.hasSuffix("=") || trimmed.hasSuffix("(")
        || ["{", "->", "where", ")", ".", "?", ":", "throws", "async"].contains(where: { next.hasPrefix($0) })
      if !goesOn { return index }
    }
    return lines.count - 1
  }
}

/// Finds the braces of Swift lines outside string literals and comments (enough for the stages' plain
/// code: `"…"` strings with escapes, `"""` blocks, `//` and `/* */` comments).
struct BraceScanner {
  private var inBlockString = false
  private var inBlockComment = false
  /// The change in open parentheses over the last line scanned.
  private(set) var lastParentheses = 0

  /// +1 for each `{` and -1 for each `}` in `line`, in order.
  mutating func braces(in line: String) -> [Int] {
    var changes: [Int] = []
    lastParentheses = 0
    let characters = Array(line)
    var index = 0
    var inString = false
    while index < characters.count {
      let character = characters[index]
      let rest = characters[index...]
      if inBlockComment {
        if rest.starts(with: ["*", "/"]) {
          inBlockComment = false
          index += 1
        }
      } else if inBlockString {
        if rest.starts(with: ["\"", "\"", "\""]) {
          inBlockString = false
          index += 2
        }
      } else if inString {
        if character == "\\" {
          index += 1
        } else if character == "\"" {
          inString = false
        }
      } else if rest.starts(with: ["/", "/"]) {
        break
      } else if rest.starts(with: ["/", "*"]) {
        inBlockComment = true
        index += 1
      } else if rest.starts(with: ["\"", "\"", "\""]) {
        inBlockString = true
        index += 2
      } else if character == "\"" {
        inString = true
      } else if character == "{" {
        changes.append(1)
      } else if character == "}" {
        changes.append(-1)
      } else if character == "(" {
        lastParentheses += 1
      } else if character == ")" {
        lastParentheses -= 1
      }
      index += 1
    }
    return changes
  }
}
