import Foundation

/// The code a tutorial step shows: the declarations the tutorial has reached so far in a stage source
/// file, cut from the real file so the tutorial cannot drift from the stage.
///
/// A step names a file and the declarations it adds, each by text from its first line, split by ` | `:
/// `@Code(name: "CoreDataManager.swift", file: "Stages/Stage1-SingleContext/CoreDataManager.swift#adds: public init(")`.
/// The step shows the file's imports and, in file order, every declaration added to that file by this step
/// and the tutorial's earlier steps, inside the opening and closing lines of the types and extensions
/// around them; doc comments are left out (the step's text says what the code is for), comments inside
/// the code stay. So a step's code is the last step's plus exactly the declarations it adds, and DocC
/// highlights just those. Without `#adds:` the step shows the whole file, its doc comments left out too.
///
/// DocC's code pane shows about 85 characters and cuts the rest of a line off, so a line longer than
/// ``columns`` is wrapped for the pane: a comment is refilled under its own `//`, a line of code continues
/// on the next line, indented four more (``CodeWrapping``). The stage's file is not changed.
enum StepCode {
  /// How many characters of a line the tutorial's code pane shows whole, with its line numbers, in a window
  /// 1,280 px wide (about 7.7 px a character).
  static let columns = 84

  /// What a step's reference names: the file, and the text of each declaration the step adds.
  struct Reference: Equatable {
    var path: String
    /// Empty for the whole file.
    var adds: [String]

    init(path: String, adds: [String]) {
      self.path = path
      self.adds = adds
    }

    /// Parses `path` or `path#adds: text | text`.
    init(parsing reference: String, place: String) throws(SiteError) {
      guard let hash = reference.firstIndex(of: "#") else {
        self.init(path: reference.trimmingCharacters(in: .whitespaces), adds: [])
        return
      }
      let path = reference[..<hash].trimmingCharacters(in: .whitespaces)
      let fragment = reference[reference.index(after: hash)...]
      guard fragment.hasPrefix("adds:") else {
        throw SiteError(
          place, "'\(reference)' names no declarations: write 'path#adds: text of a declaration's first line'")
      }
      let adds = fragment.dropFirst("adds:".count).components(separatedBy: " | ")
        .map { $0.trimmingCharacters(in: .whitespaces) }.filter { !$0.isEmpty }
      guard !adds.isEmpty else { throw SiteError(place, "'\(reference)' names no declaration after '#adds:'") }
      self.init(path: path, adds: adds)
    }
  }

  /// The code for `reference`, read from `root`, given the declarations earlier steps of the tutorial
  /// added to the same file (`shown`, in step order).
  static func code(for reference: Reference, shown: [String], root: URL, place: String) throws(SiteError) -> String {
    let url = root.appendingPathComponent(reference.path)
    guard let source = try? String(contentsOf: url, encoding: .utf8) else {
      throw SiteError(place, "no file \(reference.path) in the repository")
    }
    guard !reference.adds.isEmpty else { return CodeWrapping.wrapped(withoutDocComments(source), columns: columns) }
    guard let code = view(of: source, showing: shown + reference.adds) else {
      let lines = source.components(separatedBy: "\n")
      let missing = reference.adds.first { anchor in firstLine(containing: anchor, in: lines) == nil } ?? ""
      throw SiteError(
        place, "no line of code in \(reference.path) contains '\(missing)': point the step at a line the file has")
    }
    return CodeWrapping.wrapped(code, columns: columns)
  }

  /// `source` without its doc comments (`///` lines).
  static func withoutDocComments(_ source: String) -> String {
    source.components(separatedBy: "\n").filter { !$0.trimmingCharacters(in: .whitespaces).hasPrefix("///") }
      .joined(separator: "\n")
  }

  /// The file's imports and the declarations whose first lines contain `anchors`, in file order, inside
  /// the opening and closing lines of their enclosing scopes; `nil` when a text is on no line.
  static func view(of source: String, showing anchors: [String]) -> String? {
    var lines = source.components(separatedBy: "\n")
    if lines.last == "" { lines.removeLast() }
    let scopes = enclosingScopes(of: lines)
    var kept = Set(lines.indices.filter { lines[$0].hasPrefix("import ") })
    var openers = Set<Int>()
    var closers = Set<Int>()
    for anchor in anchors {
      guard let line = firstLine(containing: anchor, in: lines) else { return nil }
      var start = line
      while start > 0, lines[start - 1].trimmingCharacters(in: .whitespaces).hasPrefix("@") { start -= 1 }
      kept.formUnion(start...endOfDeclaration(startingAt: line, in: lines))
      for scope in scopes[line] {
        kept.formUnion(scope.header)
        openers.insert(scope.header.upperBound)
        closers.insert(scope.close)
      }
    }
    kept.formUnion(closers)
    var shown: [String] = []
    var previous: Int?
    for index in kept.sorted() {
      // A blank line between pieces that are apart in the file, but none after an opening line or
      // before a closing one.
      if let previous, index > previous + 1, !openers.contains(previous), !closers.contains(index),
        shown.last?.isEmpty == false
      {
        shown.append("")
      }
      shown.append(lines[index])
      previous = index
    }
    return shown.joined(separator: "\n") + "\n"
  }

  /// The first line of code (not a comment) that contains `text`.
  static func firstLine(containing text: String, in lines: [String]) -> Int? {
    lines.firstIndex { $0.contains(text) && !$0.trimmingCharacters(in: .whitespaces).hasPrefix("//") }
  }

  /// A type or extension around a line: the lines of its header (up to the one that opens its brace) and
  /// the line that closes it.
  struct Scope {
    var header: ClosedRange<Int>
    var close: Int
  }

  /// For each line, the scopes open at its start, outermost first.
  static func enclosingScopes(of lines: [String]) -> [[Scope]] {
    var scanner = BraceScanner()
    var open: [Int] = []
    var openAt: [[Int]] = []
    var closeOf: [Int: Int] = [:]
    for (index, line) in lines.enumerated() {
      openAt.append(open)
      for change in scanner.braces(in: line) {
        if change > 0 {
          open.append(index)
        } else if let opener = open.popLast() {
          closeOf[opener] = index
        }
      }
    }
    return openAt.map { openers in
      openers.map { opener in
        Scope(header: headerStart(ofBraceOn: opener, in: lines)...opener, close: closeOf[opener] ?? lines.count - 1)
      }
    }
  }

  /// The first line of the declaration whose `{` is on line `brace`: earlier lines belong to it while
  /// the line that follows them goes on with a `{`, `)`, `->`, `where` or `throws`, or they end in `(` or `,`.
  static func headerStart(ofBraceOn brace: Int, in lines: [String]) -> Int {
    var start = brace
    while start > 0 {
      let here = lines[start].trimmingCharacters(in: .whitespaces)
      let before = lines[start - 1].trimmingCharacters(in: .whitespaces)
      let continues =
        ["{", ")", "->", "where", "throws"].contains(where: { here.hasPrefix($0) }) || before.hasSuffix("(")
        || before.hasSuffix(",")
      guard continues, !before.isEmpty, !before.hasPrefix("//") else { break }
      start -= 1
    }
    return start
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
