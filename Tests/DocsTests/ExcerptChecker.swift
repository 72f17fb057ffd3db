import Foundation

/// Something wrong in a chapter, with where it is.
struct DocsProblem: CustomStringConvertible {
  /// The chapter, relative to the repository root (`Docs/01-single-context.md`).
  let document: String
  /// The 1-based line in the chapter.
  let line: Int
  let message: String

  var description: String { "\(document):\(line): \(message)" }
}

/// Checks that every Swift block of a chapter is real code.
///
/// The rule (also in Docs/README.md): a ```` ```swift ```` block must follow an annotation on the nearest
/// non-blank line above it, either `<!-- excerpt: PATH -->` or `<!-- illustration -->`. An excerpt's
/// lines must appear in PATH as one run of consecutive lines, compared after
///
/// - dropping trailing whitespace from every line (so whitespace-only lines are empty lines), and
/// - removing the block's common leading indentation from the block, and the run's own common leading
///   indentation from the run (so a method can be shown flush left; indentation inside it must match).
///
/// An annotation that is not directly above a Swift block is a mistake too.
struct ExcerptChecker: Sendable {
  /// Reads a source file, by path relative to the repository root; `nil` when there is no such file.
  let readSource: @Sendable (String) -> [String]?

  func problems(in document: MarkdownDocument, named name: String) -> [DocsProblem] {
    var problems: [DocsProblem] = []
    func report(_ line: Int, _ message: String) {
      problems.append(DocsProblem(document: name, line: line, message: message))
    }
    for dangling in document.danglingAnnotations {
      report(dangling.line, "this annotation is not directly above a code block; move it there or remove it")
    }
    for block in document.codeBlocks {
      switch (block.language, block.annotation) {
      case ("swift", nil):
        report(
          block.fenceLine,
          "this ```swift block has no annotation. Put `<!-- excerpt: PATH -->` on the line above it (PATH relative to "
            + "the repository root) and copy the lines from that file, or `<!-- illustration -->` if it is not stage code")
      case ("swift", .illustration?), ("text", .transcript?):
        continue
      case ("swift", .transcript?):
        report(block.fenceLine, "a transcript is a ```text block of what a command printed, not Swift")
      case ("swift", .excerpt(let path)?):
        if let problem = excerptProblem(block, path: path) { report(block.fenceLine, problem) }
      case (let language, _?):
        report(
          block.fenceLine,
          "only ```swift blocks take an excerpt or illustration annotation, and ```text blocks a transcript one; this one is ```\(language.isEmpty ? "(no language)" : language)"
        )
      default:
        continue
      }
    }
    return problems
  }

  /// Why `block` is not a run of lines of the file at `path`, or `nil` when it is.
  func excerptProblem(_ block: MarkdownDocument.CodeBlock, path: String) -> String? {
    guard let source = readSource(path) else {
      return "the excerpt names \(path), which does not exist (paths are relative to the repository root)"
    }
    let excerpt = Self.normalized(block.lines[...])
    guard excerpt.contains(where: { !$0.isEmpty }) else { return "the excerpt from \(path) is empty" }
    if Self.firstLine(of: excerpt, in: source) != nil { return nil }
    return "the excerpt is not in \(path) as it stands: "
      + Self.closestDifference(of: excerpt, in: source, chapterLineOfFirst: block.fenceLine + 1)
  }

  // MARK: - Matching

  /// `lines` without trailing whitespace and without their common leading indentation.
  static func normalized(_ lines: ArraySlice<String>) -> [String] {
    let trimmed = lines.map { line -> Substring in
      var line = Substring(line)
      while let last = line.last, last == " " || last == "\t" { line.removeLast() }
      return line
    }
    let indents = trimmed.filter { !$0.isEmpty }.map { $0.prefix { $0 == " " || $0 == "\t" }.count }
    let common = indents.min() ?? 0
    return trimmed.map { $0.isEmpty ? "" : String($0.dropFirst(common)) }
  }

  /// The 1-based line of `source` where `excerpt` (already normalized) starts, if it is there.
  static func firstLine(of excerpt: [String], in source: [String]) -> Int? {
    guard excerpt.count <= source.count else { return nil }
    for start in 0...(source.count - excerpt.count)
    where normalized(source[start..<(start + excerpt.count)]) == excerpt {
      return start + 1
    }
    return nil
  }

  /// Says where the excerpt parts from the run of the file that agrees with it longest.
  ///
  /// - Parameter chapterLineOfFirst: the chapter's line number of the excerpt's first line.
  static func closestDifference(of excerpt: [String], in source: [String], chapterLineOfFirst: Int) -> String {
    func same(_ a: String, _ b: String) -> Bool {
      a.trimmingCharacters(in: .whitespaces) == b.trimmingCharacters(in: .whitespaces)
    }
    var best: (start: Int, agreeing: Int) = (0, 0)
    for start in source.indices {
      var agreeing = 0
      while agreeing < excerpt.count, start + agreeing < source.count, same(excerpt[agreeing], source[start + agreeing]) {
        agreeing += 1
      }
      if agreeing > best.agreeing { best = (start, agreeing) }
    }
    guard best.agreeing > 0 else {
      let first = excerpt.first { !$0.isEmpty } ?? ""
      return "no run of the file starts like the excerpt (its first line, `\(first)`, is not in the file)"
    }
    if best.agreeing == excerpt.count {
      return "its lines are at line \(best.start + 1) of the file, but indented differently; keep the file's indentation"
    }
    let chapterLine = chapterLineOfFirst + best.agreeing
    let sourceLine = best.start + best.agreeing + 1
    let found = sourceLine <= source.count ? "`\(source[sourceLine - 1].trimmingCharacters(in: .whitespaces))`" : "the end of the file"
    return "the closest run starts at line \(best.start + 1) of the file and parts at the chapter's line \(chapterLine), "
      + "`\(excerpt[best.agreeing].trimmingCharacters(in: .whitespaces))`, where the file's line \(sourceLine) has \(found)"
  }
}
