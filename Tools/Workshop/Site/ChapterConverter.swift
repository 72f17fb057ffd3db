import Foundation

/// Turns a chapter of `Docs/` (GitHub-flavoured Markdown) into a DocC article, so the site and GitHub
/// show the same text, from the same file:
/// - a ```` ```mermaid ```` block becomes its image, drawn by `Docs/Tools/render_diagrams.py` into
///   `Docs/Images/<chapter>-<n>.svg`, with the diagram's `accTitle:` as the alternative text;
/// - a link to another chapter (`02-private-parent.md#some-heading`) becomes a DocC link
///   (`<doc:02-private-parent#Some-heading>`), its heading found by GitHub's anchor;
/// - a link to a file of the repository (`../Stages/…`) points at `/repository/…`, which
///   `workshop docs` serves from the checkout;
/// - the annotations the docs tests read (`<!-- excerpt: … -->` and the like) are dropped.
/// Code blocks pass through untouched, so the excerpt checks keep holding for the site.
struct ChapterConverter {
  /// The chapters' file names without `.md`, which links may name.
  let chapters: Set<String>
  /// Each chapter's headings, by GitHub's anchor, as DocC's anchor.
  let headings: [String: [String: String]]

  /// A converter for the chapters in `sources` (file name without `.md` → Markdown text).
  init(sources: [String: String]) {
    chapters = Set(sources.keys)
    headings = sources.mapValues(Self.headingAnchors)
  }

  /// The DocC article for `markdown`, the chapter `name`; a broken link or an untitled diagram is an error.
  func convert(_ markdown: String, name: String) throws(SiteError) -> String {
    var output: [String] = []
    var fence: String?
    var mermaid: [String]?
    var diagrams = 0
    // The lines of the code block being read, and whether it is Swift.
    var fenceLines: [String] = []
    var fenceIsSwift = false
    for (index, line) in markdown.components(separatedBy: "\n").enumerated() {
      let trimmed = line.trimmingCharacters(in: .whitespaces)
      let place = "Docs/\(name).md:\(index + 1)"
      if var body = mermaid {
        if trimmed == "```" {
          diagrams += 1
          guard let title = Self.diagramTitle(body) else {
            throw SiteError(place, "the diagram has no 'accTitle:' line, which the site needs as the image's text")
          }
          output.append("![\(title)](\(name)-\(diagrams))")
          mermaid = nil
        } else {
          body.append(line)
          mermaid = body
        }
        continue
      }
      if let open = fence {
        if trimmed == open {
          // The block's lines wrapped at the column, indentation kept; DocC's own wrap (which continues at
          // column 0) is left for a line with nowhere to break.
          output += CodeWrapping.wrapped(
            fenceLines.joined(separator: "\n"), columns: Self.codeColumns, swift: fenceIsSwift
          ).components(separatedBy: "\n")
          output.append(line)
          fence = nil
          fenceLines = []
        } else {
          fenceLines.append(line)
        }
        continue
      }
      if trimmed == "```mermaid" {
        mermaid = []
        continue
      }
      if let opener = ["```", "~~~"].first(where: trimmed.hasPrefix) {
        fence = opener
        fenceIsSwift = trimmed.dropFirst(opener.count).hasPrefix("swift")
        output.append(Self.wrapping(line, opener: opener))
        continue
      }
      if trimmed.hasPrefix("<!--") && trimmed.hasSuffix("-->") { continue }
      output.append(try convertLinks(in: line, chapter: name, place: place))
    }
    return output.joined(separator: "\n")
  }

  /// How many characters of code a line of a code block shows before it wraps: the site's text column
  /// holds about this many in its monospaced font, so no block scrolls sideways.
  static let codeColumns = 80

  /// A code block's opening line with DocC's `wrap` option added (and `text` as the language when it has
  /// none, since the options follow the language), so the block wraps long lines at the column's width.
  static func wrapping(_ line: String, opener: String) -> String {
    let indent = line.prefix { $0 == " " }
    let info = line.trimmingCharacters(in: .whitespaces).dropFirst(opener.count).trimmingCharacters(in: .whitespaces)
    guard !info.contains("wrap=") else { return line }
    return indent + opener + (info.isEmpty ? "text" : info) + ", wrap=\(codeColumns)"
  }

  /// The line with every Markdown link's destination rewritten for the site (code spans left alone).
  private func convertLinks(in line: String, chapter: String, place: String) throws(SiteError) -> String {
    var result = ""
    var rest = Substring(line)
    while let start = rest.firstIndex(where: { $0 == "`" || $0 == "]" }) {
      result += rest[..<start]
      if rest[start] == "`" {
        let afterTick = rest.index(after: start)
        guard let end = rest[afterTick...].firstIndex(of: "`") else {
          result += rest[start...]
          return result
        }
        result += rest[start...end]
        rest = rest[rest.index(after: end)...]
        continue
      }
      let afterBracket = rest.index(after: start)
      guard rest[afterBracket...].hasPrefix("("), let close = rest[afterBracket...].firstIndex(of: ")") else {
        result.append("]")
        rest = rest[afterBracket...]
        continue
      }
      let destination = String(rest[rest.index(after: afterBracket)..<close])
      result += "](\(try siteDestination(for: destination, in: chapter, place: place)))"
      rest = rest[rest.index(after: close)...]
    }
    return result + rest
  }

  /// Where a link's destination, in the chapter `chapter`, points on the site.
  func siteDestination(for destination: String, in chapter: String, place: String) throws(SiteError) -> String {
    if destination.contains("://") || destination.hasPrefix("mailto:") { return destination }
    if destination.hasPrefix("#") {
      let fragment = String(destination.dropFirst())
      guard let anchor = headings[chapter]?[fragment] else {
        throw SiteError(place, "the link \(destination) names no heading of this page")
      }
      return "<doc:\(chapter)#\(anchor)>"
    }
    let parts = destination.split(separator: "#", maxSplits: 1).map(String.init)
    let path = parts.first ?? ""
    let fragment = parts.count > 1 ? parts[1] : nil
    if path.hasSuffix(".md"), !path.contains("/") {
      let chapter = String(path.dropLast(3))
      if chapters.contains(chapter) {
        guard let fragment else { return "<doc:\(chapter)>" }
        guard let anchor = headings[chapter]?[fragment] else {
          throw SiteError(place, "the link \(destination) names no heading of \(path)")
        }
        return "<doc:\(chapter)#\(anchor)>"
      }
    }
    // Anything else is a file of the repository, relative to Docs/.
    var components = ["Docs"]
    for component in path.split(separator: "/", omittingEmptySubsequences: true) {
      switch component {
      case ".": continue
      case "..":
        guard !components.isEmpty else { throw SiteError(place, "the link \(destination) leaves the repository") }
        components.removeLast()
      default: components.append(String(component))
      }
    }
    let trailing = path.hasSuffix("/") ? "/" : ""
    return "/repository/" + components.joined(separator: "/") + trailing + (fragment.map { "#\($0)" } ?? "")
  }

  /// The diagram's `accTitle:` line.
  static func diagramTitle(_ lines: [String]) -> String? {
    for line in lines {
      let trimmed = line.trimmingCharacters(in: .whitespaces)
      if trimmed.hasPrefix("accTitle:") {
        return trimmed.dropFirst("accTitle:".count).trimmingCharacters(in: .whitespaces)
      }
    }
    return nil
  }

  /// A chapter's headings outside code blocks: GitHub's anchor → DocC's anchor.
  static func headingAnchors(_ markdown: String) -> [String: String] {
    var anchors: [String: String] = [:]
    var inFence = false
    for line in markdown.components(separatedBy: "\n") {
      let trimmed = line.trimmingCharacters(in: .whitespaces)
      if trimmed.hasPrefix("```") || trimmed.hasPrefix("~~~") { inFence.toggle() }
      guard !inFence, line.hasPrefix("#") else { continue }
      let text = line.drop(while: { $0 == "#" }).trimmingCharacters(in: .whitespaces)
      let plain = text.filter { $0 != "`" && $0 != "*" }
      anchors[githubAnchor(plain)] = doccAnchor(plain)
    }
    return anchors
  }

  /// GitHub's anchor for a heading: lowercased, punctuation dropped, spaces as hyphens.
  static func githubAnchor(_ text: String) -> String {
    String(
      text.lowercased().compactMap { character -> Character? in
        if character == " " { return "-" }
        return character.isLetter || character.isNumber || character == "-" || character == "_" ? character : nil
      })
  }

  /// DocC's anchor for a heading: words joined by hyphens, punctuation dropped, case kept.
  static func doccAnchor(_ text: String) -> String {
    let words = text.split(whereSeparator: \.isWhitespace).joined(separator: "-")
    return String(words.filter { $0.isLetter || $0.isNumber || $0 == "-" || $0 == "_" })
  }
}

/// A problem in the site's sources: where, and what to do.
struct SiteError: Error, CustomStringConvertible {
  let place: String
  let problem: String

  init(_ place: String, _ problem: String) {
    self.place = place
    self.problem = problem
  }

  var description: String { "\(place): \(problem)" }
}
