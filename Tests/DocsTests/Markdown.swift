import Foundation

// Just enough Markdown to check the chapters: fenced code blocks, the HTML comment above each one,
// links and headings. It follows GitHub's rendering where the chapters depend on it and is documented
// in Docs/README.md ("How the excerpts stay honest").

/// One Markdown file of `Docs/`, split into code blocks and prose.
struct MarkdownDocument {
  /// A fenced code block (```` ``` ```` or `~~~`).
  struct CodeBlock {
    /// The first word of the info string, lowercased: `swift`, `sh`, `text`, `mermaid`, or empty.
    let language: String
    /// The 1-based line of the opening fence.
    let fenceLine: Int
    /// The lines between the fences.
    let lines: [String]
    /// The annotation on the nearest non-blank line above the fence, if that line is one.
    let annotation: Annotation?
  }

  /// What the HTML comment above a code block says about it.
  enum Annotation: Equatable {
    /// `<!-- excerpt: PATH -->`: the block is a run of lines of PATH (relative to the repository root).
    case excerpt(path: String)
    /// `<!-- illustration -->`: the block is not stage code and is not checked.
    case illustration
    /// `<!-- transcript: KIND -->`: a ```text block of what a command printed, compared with a real run
    /// by `TranscriptTests` (KIND says which run, for example `sqlite` or `sql-log`).
    case transcript(kind: String)
  }

  /// An annotation that no code block follows.
  struct DanglingAnnotation {
    /// The 1-based line of the annotation.
    let line: Int
    let annotation: Annotation
  }

  /// A line outside every code block.
  struct ProseLine {
    /// The 1-based line number.
    let number: Int
    let text: String
  }

  let codeBlocks: [CodeBlock]
  let danglingAnnotations: [DanglingAnnotation]
  let prose: [ProseLine]

  init(text: String) {
    let lines = text.split(separator: "\n", omittingEmptySubsequences: false).map { line in
      line.hasSuffix("\r") ? String(line.dropLast()) : String(line)
    }
    var codeBlocks: [CodeBlock] = []
    var dangling: [DanglingAnnotation] = []
    var prose: [ProseLine] = []
    // The last non-blank prose line, if it is an annotation that no block has claimed yet.
    var pending: (line: Int, annotation: Annotation)?
    var index = 0
    while index < lines.count {
      let line = lines[index]
      if let fence = Fence(opening: line) {
        var body: [String] = []
        var next = index + 1
        while next < lines.count, !fence.isClosed(by: lines[next]) {
          body.append(lines[next])
          next += 1
        }
        codeBlocks.append(
          CodeBlock(language: fence.language, fenceLine: index + 1, lines: body, annotation: pending?.annotation))
        pending = nil
        index = next + 1
        continue
      }
      prose.append(ProseLine(number: index + 1, text: line))
      if !line.trimmingCharacters(in: .whitespaces).isEmpty {
        if let pending { dangling.append(DanglingAnnotation(line: pending.line, annotation: pending.annotation)) }
        pending = Self.annotation(in: line).map { (index + 1, $0) }
      }
      index += 1
    }
    if let pending { dangling.append(DanglingAnnotation(line: pending.line, annotation: pending.annotation)) }
    self.codeBlocks = codeBlocks
    self.danglingAnnotations = dangling
    self.prose = prose
  }

  /// The annotation a line holds, if the whole line is one.
  static func annotation(in line: String) -> Annotation? {
    let trimmed = line.trimmingCharacters(in: .whitespaces)
    guard trimmed.hasPrefix("<!--"), trimmed.hasSuffix("-->") else { return nil }
    let inner = trimmed.dropFirst(4).dropLast(3).trimmingCharacters(in: .whitespaces)
    if inner == "illustration" { return .illustration }
    if inner.hasPrefix("transcript:") {
      let kind = inner.dropFirst("transcript:".count).trimmingCharacters(in: .whitespaces)
      return kind.isEmpty ? nil : .transcript(kind: kind)
    }
    guard inner.hasPrefix("excerpt:") else { return nil }
    let path = inner.dropFirst("excerpt:".count).trimmingCharacters(in: .whitespaces)
    guard !path.isEmpty, !path.contains(" ") else { return nil }
    return .excerpt(path: path)
  }

  // MARK: - Headings

  /// The anchors GitHub gives the document's headings (`## Where Linux differs` → `where-linux-differs`),
  /// with `-1`, `-2`… added to repeated ones, as GitHub does.
  var headingAnchors: Set<String> {
    var seen: [String: Int] = [:]
    var anchors: Set<String> = []
    for line in prose {
      guard let heading = Self.headingText(line.text) else { continue }
      let slug = Self.slug(heading)
      let count = seen[slug, default: 0]
      seen[slug] = count + 1
      anchors.insert(count == 0 ? slug : "\(slug)-\(count)")
    }
    return anchors
  }

  /// The text of an ATX heading (`## Text`), or `nil` when the line is not one.
  static func headingText(_ line: String) -> String? {
    let hashes = line.prefix { $0 == "#" }
    guard (1...6).contains(hashes.count) else { return nil }
    let rest = line.dropFirst(hashes.count)
    guard rest.first == " " else { return nil }
    var text = rest.trimmingCharacters(in: .whitespaces)
    while text.hasSuffix("#") { text.removeLast() }
    return text.trimmingCharacters(in: .whitespaces)
  }

  /// GitHub's anchor for a heading: the rendered text, lowercased, without punctuation, spaces as hyphens.
  static func slug(_ heading: String) -> String {
    // Links render as their text: [text](target) → text.
    let rendered = heading.replacingOccurrences(of: #"\[([^\]]*)\]\([^)]*\)"#, with: "$1", options: .regularExpression)
    var slug = ""
    for scalar in rendered.lowercased().unicodeScalars {
      if scalar == " " {
        slug.append("-")
      } else if scalar == "-" || scalar == "_" || CharacterSet.alphanumerics.contains(scalar) {
        slug.unicodeScalars.append(scalar)
      }
    }
    return slug
  }

  // MARK: - Links

  /// A link target written in the document's prose.
  struct Link {
    /// The 1-based line it is on.
    let line: Int
    let target: String
  }

  /// Every link target in the prose: inline links and images `[text](target)`, and reference
  /// definitions `[name]: target`. Code spans and code blocks are skipped.
  var links: [Link] {
    var links: [Link] = []
    for line in prose {
      let text = Self.removingCodeSpans(line.text)
      for target in Self.matches(of: #"\]\(\s*<?([^)\s>]+)>?(?:\s+"[^"]*")?\s*\)"#, in: text) {
        links.append(Link(line: line.number, target: target))
      }
      for target in Self.matches(of: #"^ {0,3}\[[^\]]+\]:\s*<?([^\s>]+)>?"#, in: text) {
        links.append(Link(line: line.number, target: target))
      }
    }
    return links
  }

  static func removingCodeSpans(_ text: String) -> String {
    text.replacingOccurrences(of: #"(`+)(?:(?!\1).)+\1"#, with: "``", options: .regularExpression)
  }

  /// The first capture group of every match of `pattern` in `text`.
  private static func matches(of pattern: String, in text: String) -> [String] {
    guard let regex = try? NSRegularExpression(pattern: pattern) else { return [] }
    let range = NSRange(text.startIndex..., in: text)
    return regex.matches(in: text, range: range).compactMap { match in
      Range(match.range(at: 1), in: text).map { String(text[$0]) }
    }
  }
}

/// An opening code fence and what closes it.
private struct Fence {
  let character: Character
  let length: Int
  let language: String

  /// Reads `line` as an opening fence: three or more backticks or tildes, then an optional info string.
  init?(opening line: String) {
    let trimmed = line.drop { $0 == " " || $0 == "\t" }
    guard let first = trimmed.first, first == "`" || first == "~" else { return nil }
    let run = trimmed.prefix { $0 == first }
    guard run.count >= 3 else { return nil }
    let info = trimmed.dropFirst(run.count).trimmingCharacters(in: .whitespaces)
    // A backtick fence's info string may not contain backticks (that line is inline code instead).
    if first == "`" && info.contains("`") { return nil }
    character = first
    length = run.count
    language = info.split(separator: " ").first.map { $0.lowercased() } ?? ""
  }

  /// Whether `line` closes this fence: the same character, at least as many, nothing else.
  func isClosed(by line: String) -> Bool {
    let trimmed = line.trimmingCharacters(in: .whitespaces)
    return trimmed.count >= length && trimmed.allSatisfy { $0 == character }
  }
}
