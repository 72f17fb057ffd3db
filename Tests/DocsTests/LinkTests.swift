import Foundation
import Testing

/// Checks that every relative link of a chapter leads somewhere: an existing file or folder of the
/// checkout and, for a `#fragment` into a Markdown file, one of that file's headings.
struct LinkChecker: Sendable {
  /// The repository root; links may not leave it (GitHub could not follow them).
  let root: URL
  /// Reads a Markdown file by absolute path, for its headings; `nil` when it cannot be read.
  let readMarkdown: @Sendable (URL) -> MarkdownDocument?

  init(root: URL, readMarkdown: @escaping @Sendable (URL) -> MarkdownDocument? = LinkChecker.markdown(at:)) {
    self.root = root.standardizedFileURL
    self.readMarkdown = readMarkdown
  }

  static func markdown(at url: URL) -> MarkdownDocument? {
    (try? String(contentsOf: url, encoding: .utf8)).map(MarkdownDocument.init(text:))
  }

  func problems(in document: MarkdownDocument, named name: String) -> [DocsProblem] {
    let folder = root.appendingPathComponent(name).deletingLastPathComponent()
    var problems: [DocsProblem] = []
    for link in document.links {
      if let problem = problem(with: link.target, from: folder, in: document) {
        problems.append(DocsProblem(document: name, line: link.line, message: problem))
      }
    }
    return problems
  }

  private func problem(with target: String, from folder: URL, in document: MarkdownDocument) -> String? {
    // Absolute links (https:, mailto:, …) are not checked.
    if target.range(of: #"^[A-Za-z][A-Za-z0-9+.-]*:"#, options: .regularExpression) != nil { return nil }
    let parts = target.split(separator: "#", maxSplits: 1, omittingEmptySubsequences: false)
    let path = parts[0].removingPercentEncoding ?? String(parts[0])
    let fragment = parts.count > 1 ? String(parts[1]) : nil
    if path.isEmpty {
      guard let fragment else { return nil }
      return document.headingAnchors.contains(fragment) ? nil : "no heading of this chapter has the anchor #\(fragment)"
    }
    if path.hasPrefix("/") {
      return "\(target) is an absolute path; link relative to this chapter instead"
    }
    let url = URL(fileURLWithPath: path, relativeTo: folder).standardizedFileURL
    guard url.path == root.path || url.path.hasPrefix(root.path + "/") else {
      return "\(target) points outside the repository, where GitHub cannot follow it"
    }
    var isFolder: ObjCBool = false
    guard FileManager.default.fileExists(atPath: url.path, isDirectory: &isFolder) else {
      return "\(target) points to \(url.path.dropFirst(root.path.count + 1)), which does not exist"
    }
    guard let fragment, !fragment.isEmpty, url.pathExtension == "md", !isFolder.boolValue else { return nil }
    guard let linked = readMarkdown(url) else { return "cannot read \(path) to check its headings" }
    return linked.headingAnchors.contains(fragment) ? nil : "\(path) has no heading with the anchor #\(fragment)"
  }
}

@Suite("Docs: links")
struct LinkTests {
  @Test("every relative link in a chapter points to a file that exists", arguments: Repository.documents)
  func relativeLinksResolve(document path: String) throws {
    let document = try #require(Repository.document(path))
    Repository.record(LinkChecker(root: Repository.root).problems(in: document, named: path))
  }

  @Test("the index, Docs/README.md, links every chapter")
  func indexListsEveryChapter() throws {
    let index = try #require(Repository.document("Docs/README.md"))
    let linked = Set(index.links.map { $0.target.split(separator: "#").first.map(String.init) ?? "" })
    let chapters = Repository.documents.map { $0.dropFirst("Docs/".count) }.filter { $0.first?.isNumber == true }
    #expect(!chapters.isEmpty, "Docs/ has no numbered chapters")
    for chapter in chapters {
      #expect(linked.contains(String(chapter)), "Docs/README.md does not link \(chapter)")
    }
  }

  // MARK: - The checker itself

  @Test("a link to a missing file, a missing heading, or outside the repository is reported")
  func brokenLinksAreReported() throws {
    let root = URL(fileURLWithPath: NSTemporaryDirectory()).appendingPathComponent("DocsTests-\(UUID().uuidString)")
    try FileManager.default.createDirectory(at: root.appendingPathComponent("Docs"), withIntermediateDirectories: true)
    defer { try? FileManager.default.removeItem(at: root) }
    try Data("# Other\n\n## Real heading\n".utf8).write(to: root.appendingPathComponent("Docs/other.md"))
    let chapter = MarkdownDocument(
      text: """
        # Chapter

        ## A `code` heading, with punctuation!

        [fine](other.md) [fine](other.md#real-heading) [fine](#a-code-heading-with-punctuation) [web](https://example.com)
        [gone](missing.md)
        [no such heading](other.md#imaginary)
        [outside](../../elsewhere.md)
        `[not a link](nowhere.md)`

        ```sh
        [not a link either](nowhere.md)
        ```
        """)

    let problems = LinkChecker(root: root).problems(in: chapter, named: "Docs/chapter.md")

    #expect(problems.map(\.line) == [6, 7, 8])
    #expect(problems.first?.description.hasPrefix("Docs/chapter.md:6: missing.md points to Docs/missing.md") == true)
    #expect(problems.dropFirst().first?.message.contains("#imaginary") == true)
    #expect(problems.last?.message.contains("outside the repository") == true)
  }
}
