import Foundation
import Testing

@testable import Workshop

#if canImport(FoundationNetworking)
  import FoundationNetworking
#endif

@Suite("The rendered site: chapters made into DocC articles, tutorial steps cut from the stages, the server")
struct SiteTests {
  static let repository = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
    .deletingLastPathComponent()

  // MARK: - Chapters

  static let chapterTwo = """
    # Chapter 2

    ## What this stage builds

    ### `saveChanges()`, in two halves

    Text.
    """

  static func converter() -> ChapterConverter {
    ChapterConverter(sources: ["02-private-parent": chapterTwo, "01-single-context": "# Chapter 1\n"])
  }

  @Test("a code block wraps at the site's column: DocC's wrap option, with a language for a block that has none")
  func codeBlocksWrap() {
    #expect(ChapterConverter.wrapping("```swift", opener: "```") == "```swift, wrap=80")
    #expect(ChapterConverter.wrapping("  ```", opener: "```") == "  ```text, wrap=80")
    #expect(ChapterConverter.wrapping("~~~sh", opener: "~~~") == "~~~sh, wrap=80")
    #expect(ChapterConverter.wrapping("```swift, wrap=60", opener: "```") == "```swift, wrap=60")
  }

  @Test("a chapter's long lines are wrapped before DocC sees them: indentation kept, a transcript's URL not taken for a comment")
  func chapterLinesWrapWithIndentation() throws {
    let transcript = "  inserted:                <x-coredata:///Note/tA6C568E3-F627-46EB-8953-7F47CA5F25DC-1> (isTemporaryID: true)"
    let code = "    let message = someFunction(firstArgument: value, secondArgument: otherValue, third: 3)"
    let markdown = "# T\n\n```text\n\(transcript)\n```\n\n```swift\n\(code)\n```\n"
    let converted = try Self.converter().convert(markdown, name: "02-private-parent").components(separatedBy: "\n")
    #expect(converted.contains("```text, wrap=80") && converted.contains("```swift, wrap=80"), "\(converted)")
    let body = converted.filter { !$0.hasPrefix("```") && !$0.hasPrefix("#") && !$0.isEmpty }
    #expect(body.allSatisfy { $0.count <= ChapterConverter.codeColumns }, "\(body)")
    let codeStart = try #require(body.firstIndex { $0.hasPrefix("    let message") }, "\(body)")
    let transcriptLines = body[..<codeStart]
    #expect(transcriptLines.count >= 2 && transcriptLines.dropFirst().allSatisfy { $0.hasPrefix("      ") }, "\(body)")
    #expect(transcriptLines.joined().contains("<x-coredata:///Note/"), "no break inside the URL: \(body)")
    #expect(!body.contains { $0.contains("// ") }, "a URL's // is not a comment in a transcript: \(body)")
    #expect(body.count > codeStart + 1 && body[(codeStart + 1)...].allSatisfy { $0.hasPrefix("        ") }, "\(body)")
  }

  @Test("a diagram becomes its image, with its accTitle as the text; the code blocks and their annotations do not")
  func diagramsAndAnnotations() throws {
    let chapter = """
      # Chapter 1

      <!-- excerpt: Stages/Stage1-SingleContext/CoreDataManager.swift -->
      ```swift
      let link = "[not a link](02-private-parent.md)"
      ```

      ~~~swift
      let other = "[nor this](02-private-parent.md)"
      ~~~

      ```mermaid
      flowchart LR
        accTitle: One context, one store
        a --> b
      ```

      ```mermaid
      sequenceDiagram
        accTitle: The second one
        a->>b: hello
      ```
      """
    let article = try Self.converter().convert(chapter, name: "01-single-context")
    #expect(
      article == """
        # Chapter 1

        ```swift, wrap=80
        let link = "[not a link](02-private-parent.md)"
        ```

        ~~~swift, wrap=80
        let other = "[nor this](02-private-parent.md)"
        ~~~

        ![One context, one store](01-single-context-1)

        ![The second one](01-single-context-2)
        """)
  }

  @Test("links: to a chapter (and its heading, found by GitHub's anchor), to a repository file, to the web")
  func links() throws {
    let converter = Self.converter()
    let line =
      "See [chapter 2](02-private-parent.md), [the two halves](02-private-parent.md#savechanges-in-two-halves), "
      + "[the code](../Stages/Stage2-PrivateParent/), [`a test`](../Tests/A.swift), [Apple](https://developer.apple.com/x) "
      + "and `[code](00.md)`; [above](#what-this-stage-builds)."
    let article = try converter.convert(line, name: "02-private-parent")
    #expect(
      article
        == "See [chapter 2](<doc:02-private-parent>), [the two halves](<doc:02-private-parent#saveChanges-in-two-halves>), "
        + "[the code](/repository/Stages/Stage2-PrivateParent/), [`a test`](/repository/Tests/A.swift), "
        + "[Apple](https://developer.apple.com/x) and `[code](00.md)`; [above](<doc:02-private-parent#What-this-stage-builds>).")
  }

  @Test("a link to a heading that is not there, or a diagram without accTitle, is an error naming the line")
  func brokenSources() {
    let converter = Self.converter()
    #expect(throws: SiteError.self) { try converter.convert("[x](02-private-parent.md#no-such-heading)", name: "a") }
    do {
      _ = try converter.convert("text\n```mermaid\nflowchart LR\n  a --> b\n```", name: "a")
      Issue.record("an untitled diagram was accepted")
    } catch {
      #expect(error.description.hasPrefix("Docs/a.md:5: the diagram has no 'accTitle:' line"))
    }
    #expect(throws: SiteError.self) { try converter.siteDestination(for: "../../../etc/passwd", in: "a", place: "a") }
  }

  @Test("DocC's anchor for a heading keeps the case and drops the punctuation")
  func anchors() {
    #expect(ChapterConverter.doccAnchor("Not implemented (yet): what’s left & why?") == "Not-implemented-yet-whats-left--why")
    #expect(ChapterConverter.githubAnchor("saveChanges(), in two halves") == "savechanges-in-two-halves")
  }

  // MARK: - Tutorial steps

  static let source = """
    import Foundation

    /// A manager.
    public final class Manager {
      public let url: URL
      private let name = "a } in a string"

      public init(url: URL) {
        self.url = url
      }

      public func save(
        completion: (() -> Void)? = nil
      ) throws {
        if true { completion?() }
      }
    }

    """

  @Test("a step shows the imports and the declarations added so far, in their scopes, without doc comments")
  func stepViews() throws {
    #expect(
      StepCode.view(of: Self.source, showing: ["public let url"])
        == """
        import Foundation

        public final class Manager {
          public let url: URL
        }

        """)
    let withSave = """
      import Foundation

      public final class Manager {
        public let url: URL

        public func save(
          completion: (() -> Void)? = nil
        ) throws {
          if true { completion?() }
        }
      }

      """
    #expect(StepCode.view(of: Self.source, showing: ["public let url", "public func save("]) == withSave)
    #expect(StepCode.view(of: Self.source, showing: ["public func save(", "public let url"]) == withSave, "file order")
    #expect(StepCode.view(of: Self.source, showing: ["func load("]) == nil)
  }

  @Test("a step's reference: a whole file, or the declarations it adds; anything else names the tutorial's line")
  func stepReferences() throws {
    #expect(try StepCode.Reference(parsing: "Stages/A.swift", place: "t:1") == .init(path: "Stages/A.swift", adds: []))
    #expect(
      try StepCode.Reference(parsing: "Stages/A.swift#adds: public init( | func save(", place: "t:1")
        == .init(path: "Stages/A.swift", adds: ["public init(", "func save("]))
    #expect(throws: SiteError.self) { try StepCode.Reference(parsing: "Stages/A.swift#through: init(", place: "t:1") }
    #expect(throws: SiteError.self) { try StepCode.Reference(parsing: "Stages/A.swift#adds: ", place: "t:1") }
  }

  @Test("each step of the stage 3 tutorial shows its own code: no doc comments, and just what it adds")
  func stage3Steps() throws {
    let tutorial = try String(
      contentsOf: Self.repository.appendingPathComponent("Docs/Tutorials/Stage3.tutorial"), encoding: .utf8)
    let (_, steps) = try SiteCatalog.resolveCode(in: tutorial, tutorial: "Stage3", root: Self.repository)
    let codes = steps.map(\.1)
    try #require(codes.count >= 4)
    for (index, code) in codes.enumerated() where index < codes.count - 1 {
      #expect(!code.contains("///"), "step \(index + 1) shows doc comments")
    }
    #expect(codes[0].components(separatedBy: "\n").count < 15, "step 1 is the class and its main context")
    // Step 4 (saving) adds saveChanges and nothing else: no other function, no MARK.
    let before = Set(codes[2].components(separatedBy: "\n"))
    let added = codes[3].components(separatedBy: "\n").filter { !before.contains($0) }
    #expect(added.contains { $0.contains("public func saveChanges(") })
    #expect(!added.contains { $0.contains("defaultStoreFolder()") || $0.contains("MARK") }, "\(added)")
  }

  @Test("the real site's catalog: every chapter, diagram and tutorial step of the repository resolves")
  func repositoryCatalog() throws {
    let folder = FileManager.default.temporaryDirectory.appendingPathComponent("site-\(UUID().uuidString)/Workshop.docc")
    defer { try? FileManager.default.removeItem(at: folder.deletingLastPathComponent()) }
    let contents = try SiteCatalog.build(root: Self.repository, into: folder)
    #expect(contents.articles.contains("00-the-pieces"))
    #expect(contents.articles.contains("04-workers-and-injection"))
    #expect(!contents.articles.contains("README"))
    #expect(contents.tutorials == ["Stage1", "Stage2", "Stage3", "Stage4", "Workshop"])
    #expect(contents.stepFiles.count >= 20)
    let front = try String(contentsOf: folder.appendingPathComponent("Workshop.md"), encoding: .utf8)
    #expect(front.contains("@TechnologyRoot"))
    #expect(front.contains("- <doc:03-async-loading>"))
    // Each diagram of each article has its image in the catalog.
    for article in contents.articles {
      let text = try String(contentsOf: folder.appendingPathComponent("\(article).md"), encoding: .utf8)
      #expect(!text.contains("```mermaid"))
      #expect(!text.contains("<!-- excerpt"))
      for match in text.matches(of: #/!\[[^\]]+\]\(([^)]+)\)/#) {
        #expect(contents.images.contains("\(match.1).svg"), "\(article) shows \(match.1), which has no image")
      }
    }
    // A step that names no declaration shows the whole file, without its doc comments, wrapped for the pane.
    let wholeFile = try String(contentsOf: folder.appendingPathComponent("Resources/stage1-08-CoreDataManagerError.swift"), encoding: .utf8)
    let real = try String(
      contentsOf: Self.repository.appendingPathComponent("Stages/Stage1-SingleContext/CoreDataManagerError.swift"), encoding: .utf8)
    #expect(wholeFile == CodeWrapping.wrapped(StepCode.withoutDocComments(real), columns: StepCode.columns))
    #expect(!wholeFile.contains("///") && wholeFile.contains("case modelNotFound"))
    // No step opens on a doc comment, and no line of any step is wider than the code pane.
    for name in contents.stepFiles {
      let code = try String(contentsOf: folder.appendingPathComponent("Resources/\(name)"), encoding: .utf8)
      #expect(!code.hasPrefix("///"), "\(name) opens on a doc comment")
      for line in code.components(separatedBy: "\n") where line.count > StepCode.columns {
        Issue.record("\(name): a line of \(line.count) characters is wider than the code pane (\(StepCode.columns)): \(line)")
      }
    }
  }

  @Test("each stage's tutorial is titled by its lesson under a chapter named for the stage, so no title repeats")
  func tutorialTitles() throws {
    let tutorials = Self.repository.appendingPathComponent("Docs/Tutorials")
    let overview = try String(contentsOf: tutorials.appendingPathComponent("Workshop.tutorial"), encoding: .utf8)
    let chapters = overview.matches(of: #/@Chapter\(name: "([^"]+)"\)/#).map { String($0.1) }
    #expect(chapters == ["Stage 1", "Stage 2", "Stage 3", "Stage 4"])
    for stage in 1...4 {
      let text = try String(contentsOf: tutorials.appendingPathComponent("Stage\(stage).tutorial"), encoding: .utf8)
      let title = try #require(text.firstMatch(of: #/@Intro\(title: "([^"]+)"\)/#)?.1)
      #expect(!title.contains("Stage"), "Stage\(stage).tutorial's title repeats its chapter's name: \(title)")
    }
  }

  @Test("the site's script goes before each page's </head> once; a page without one is an error naming it")
  func siteStyle() throws {
    let page = "<html><head><title>x</title></head><body></body></html>"
    let styled = try #require(SiteStyle.styled(page))
    #expect(styled.hasPrefix("<html><head><title>x</title><script id=\"\(SiteStyle.marker)\">"))
    #expect(styled.hasSuffix("</script></head><body></body></html>"))
    #expect(SiteStyle.styled(styled) == styled)
    #expect(SiteStyle.styled("<html><body></body></html>") == nil)
    // Only the breaks between two word characters are hidden; those after punctuation stay.
    #expect(SiteStyle.element.contains(#"/\w$/.test(before) && /^\w/.test(after)"#))

    let site = FileManager.default.temporaryDirectory.appendingPathComponent("site-style-\(UUID().uuidString)")
    defer { try? FileManager.default.removeItem(at: site) }
    let pages = ["index.html", "documentation/workshop/index.html", "tutorials/workshop/stage1/index.html"]
    for path in pages {
      let url = site.appendingPathComponent(path)
      try FileManager.default.createDirectory(at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
      try page.write(to: url, atomically: true, encoding: .utf8)
    }
    try "body { }".write(to: site.appendingPathComponent("documentation/workshop/index.css"), atomically: true, encoding: .utf8)
    #expect(try SiteStyle.apply(toPagesIn: site) == 3)
    #expect(try SiteStyle.apply(toPagesIn: site) == 0)
    for path in pages {
      #expect(try String(contentsOf: site.appendingPathComponent(path), encoding: .utf8) == styled)
    }
    #expect(try String(contentsOf: site.appendingPathComponent("documentation/workshop/index.css"), encoding: .utf8) == "body { }")
    try "<html></html>".write(to: site.appendingPathComponent("index.html"), atomically: true, encoding: .utf8)
    #expect {
      try SiteStyle.apply(toPagesIn: site)
    } throws: { error in
      "\(error)".contains("index.html") && "\(error)".contains("</head>")
    }
  }

  @Test("a line wider than the tutorial's code pane wraps: comments refilled under their //, code indented four more")
  func wrapping() {
    let comment = "    /// " + Array(repeating: "word", count: 30).joined(separator: " ")
    let refilled = CodeWrapping.wrapped(comment, columns: 40).components(separatedBy: "\n")
    #expect(refilled.count > 1 && refilled.allSatisfy { $0.hasPrefix("    /// ") && $0.count <= 40 }, "\(refilled)")
    #expect(refilled.joined(separator: " ").replacingOccurrences(of: "    /// ", with: "").split(separator: " ").count == 30)

    let code = #"  let message = "do not break this string, please", other = value + another + yetAnother"#
    let lines = CodeWrapping.wrapped(code, columns: 60).components(separatedBy: "\n")
    #expect(lines == [#"  let message = "do not break this string, please", other ="#, "      value + another + yetAnother"], "\(lines)")

    let trailing = "  call(x)  // a trailing comment that is long enough to need a second line here"
    let split = CodeWrapping.wrapped(trailing, columns: 50).components(separatedBy: "\n")
    #expect(split.count == 2 && split[1].hasPrefix("      // "), "\(split)")
    // A line with nowhere to break stays whole; short lines are untouched.
    let unbreakable = "  " + String(repeating: "x", count: 70)
    #expect(CodeWrapping.wrapped(unbreakable, columns: 40) == unbreakable)
    #expect(CodeWrapping.wrapped("short\nlines", columns: 40) == "short\nlines")
  }

  @Test("a tutorial step pointing at a line the stage no longer has is an error that names the tutorial's line")
  func driftedTutorial() throws {
    let tutorial = """
      @Tutorial(time: 5) {
        @Code(name: "A.swift", file: "Stages/Stage1-SingleContext/CoreDataManager.swift#adds: func gone(")
      }
      """
    do {
      _ = try SiteCatalog.resolveCode(in: tutorial, tutorial: "Stage9", root: Self.repository)
      Issue.record("the missing line was accepted")
    } catch {
      #expect(
        error.description.hasPrefix(
          "Docs/Tutorials/Stage9.tutorial:2: no line of code in Stages/Stage1-SingleContext/CoreDataManager.swift contains 'func gone('"))
    }
  }

  // MARK: - The command

  /// An environment where `swift` and `docc` are in /usr/bin and `runner` runs them.
  static func doccEnvironment(_ recorder: OutputRecorder, runner: FakeRunner) -> WorkshopEnvironment {
    var environment = testEnvironment(recorder, runner: runner)
    environment.isExecutableFile = { $0 == "/usr/bin/swift" || $0 == "/usr/bin/docc" }
    return environment
  }

  /// Runs `workshop docs --build-only` on a repository holding only Docs/README.md, expects it to fail,
  /// and returns what it printed.
  static func failingDocs(_ runner: FakeRunner) throws -> OutputRecorder {
    let recorder = OutputRecorder()
    try TempRepo.with { repo in
      try repo.write("Docs/README.md", "# The chapters\n")
      let status = try runWorkshop(["docs", "--build-only", "--root", repo.root.path], in: doccEnvironment(recorder, runner: runner))
      #expect(status == 1)
    }
    return recorder
  }

  /// A runner whose `swift package objectgraph-symbol-graph` names `folder` as SwiftPM's plugin does.
  static func symbolGraphRunner(
    folder: String = "/tmp/graphs", plugin: (output: String, status: Int32)? = nil, docc: (output: String, status: Int32) = ("", 0)
  ) -> FakeRunner {
    FakeRunner { arguments in
      guard arguments == SymbolReference.pluginArguments else { return docc }
      return plugin ?? ("Building for debugging...\nObjectGraph symbol graph: \(folder)\n", 0)
    }
  }

  @Test(
    "workshop docs --build-only renders the chapters (warnings as errors) and the engine's symbol graph, and merges them"
  )
  func docsCommand() throws {
    try TempRepo.with { repo in
      try repo.write("Docs/README.md", "# The chapters\n\nRead [chapter 1](01-one.md).\n\n## Notes\n")
      try repo.write("Docs/01-one.md", "# Chapter 1\n\nText.\n")
      let recorder = OutputRecorder()
      let runner = Self.symbolGraphRunner(folder: "/tmp/graphs")
      let environment = Self.doccEnvironment(recorder, runner: runner)
      let status = try runWorkshop(["docs", "--build-only", "--root", repo.root.path], in: environment)
      #expect(status == 0, "\(recorder.all)")
      let work = repo.root.appendingPathComponent(".build/workshop-site")
      let calls = runner.calls
      try #require(calls.count == 4, "\(calls)")
      // The symbol graph first: a failure there stops before anything is rendered.
      #expect(calls[0].executable == "/usr/bin/swift" && calls[0].arguments == ["package", "objectgraph-symbol-graph"])
      #expect(calls[0].directory == repo.root.path)
      // The chapters, warnings as errors.
      #expect(calls[1].executable == "/usr/bin/docc")
      #expect(calls[1].arguments.first == "convert" && calls[1].arguments.contains("--warnings-as-errors"))
      #expect(calls[1].arguments.contains(work.appendingPathComponent("Workshop.docc").path))
      // The reference: its own catalog, with the folder the plugin named.
      #expect(calls[2].executable == "/usr/bin/docc" && calls[2].arguments.first == "convert")
      #expect(calls[2].arguments.contains(work.appendingPathComponent("ObjectGraph.docc").path))
      let graphs = try #require(calls[2].arguments.firstIndex(of: "--additional-symbol-graph-dir"))
      #expect(calls[2].arguments[graphs + 1] == "/tmp/graphs")
      // Both archives merged into the site.
      #expect(
        calls[3].arguments == [
          "merge", work.appendingPathComponent("Workshop.doccarchive").path,
          work.appendingPathComponent("ObjectGraph.doccarchive").path,
          "--output-path", work.appendingPathComponent("site").path,
          "--synthesized-landing-page-name", "Core Data Stack Workshop", "--synthesized-landing-page-kind", "Site",
        ])
      #expect(try repo.read(".build/workshop-site/Workshop.docc/01-one.md") == "# Chapter 1\n\nText.\n")
      let front = try repo.read(".build/workshop-site/Workshop.docc/Workshop.md")
      #expect(front.contains("Read [chapter 1](<doc:01-one>)."))
      #expect(front.contains("[ObjectGraph](/documentation/objectgraph)"))
      #expect(try repo.read(".build/workshop-site/ObjectGraph.docc/ObjectGraph.md").hasPrefix("# ``ObjectGraph``\n"))
      #expect(recorder.standardOutput.contains("Made the catalog: 1 pages, 0 tutorial files"))
    }
  }

  @Test("the folder of the symbol graph is the plugin's last line that names it")
  func symbolGraphFolder() {
    #expect(SymbolReference.symbolGraphFolder(in: ["Building…", "ObjectGraph symbol graph: /a/b c", ""]) == "/a/b c")
    #expect(SymbolReference.symbolGraphFolder(in: ["ObjectGraph symbol graph: ", "nothing"]) == nil)
    #expect(SymbolReference.symbolGraphFolder(in: []) == nil)
  }

  @Test("a symbol graph that cannot be extracted stops workshop docs with a message that says where to look")
  func symbolGraphFails() throws {
    let runner = Self.symbolGraphRunner(plugin: ("error: no such module 'GRDB'", 1))
    let recorder = try Self.failingDocs(runner)
    #expect(recorder.standardError.contains("The engine's symbol graph, which the site's reference is made from, was not extracted"))
    #expect(recorder.standardError.contains("`swift package objectgraph-symbol-graph` failed (exit status 1)"))
    #expect(recorder.all.contains("error: no such module 'GRDB'"))
    #expect(runner.calls.count == 1, "docc ran after the extraction failed: \(runner.calls)")
  }

  @Test("a plugin that succeeds but names no folder is an error, not a site without its reference")
  func symbolGraphNotNamed() throws {
    let recorder = try Self.failingDocs(Self.symbolGraphRunner(plugin: ("Build complete!", 0)))
    #expect(recorder.standardError.contains("printed no line starting \"ObjectGraph symbol graph: \""))
  }

  @Test("the reference's DocC warnings are counted, not fatal; --output never replaces a folder of other files")
  func referenceWarningsAndOutputFolder() throws {
    try TempRepo.with { repo in
      try repo.write("Docs/README.md", "# The chapters\n")
      try repo.write("mine/notes.txt", "keep me\n")
      let recorder = OutputRecorder()
      let runner = Self.symbolGraphRunner(docc: ("warning: 'x()' doesn't exist\nwarning: 'y' is ambiguous", 0))
      let environment = Self.doccEnvironment(recorder, runner: runner)
      let output = repo.root.appendingPathComponent("mine").path
      #expect(try runWorkshop(["docs", "--build-only", "--root", repo.root.path, "--output", output], in: environment) == 1)
      #expect(recorder.standardOutput.contains("The reference has 2 DocC warnings about the engine's doc comments"))
      #expect(recorder.standardError.contains("\(output) holds files DocC did not write"))
      #expect(try repo.read("mine/notes.txt") == "keep me\n")
      #expect(!runner.calls.contains { $0.arguments.first == "merge" })
    }
  }

  @Test("without docc, workshop docs says where it looked and that the chapters are readable as they are")
  func docsWithoutDocc() throws {
    try TempRepo.with { repo in
      let recorder = OutputRecorder()
      let status = try runWorkshop(["docs", "--root", repo.root.path], in: testEnvironment(recorder))
      #expect(status == 1)
      #expect(recorder.standardError.contains("`docc` was not found on your PATH nor next to /usr/bin/swift"))
      #expect(recorder.standardError.contains("The chapters are plain Markdown in Docs/"))
    }
  }

  @Test("a docc failure is an error that says the chapters are unchanged")
  func doccFails() throws {
    let recorder = try Self.failingDocs(Self.symbolGraphRunner(docc: ("error: something", 1)))
    #expect(recorder.standardError.contains("`docc convert` failed (exit status 1)"))
  }

  // MARK: - The server

  @Test("the server answers a page's path with its index.html, serves repository files, and nothing hidden or outside")
  func server() async throws {
    let root = FileManager.default.temporaryDirectory.appendingPathComponent("site-server-\(UUID().uuidString)")
    defer { try? FileManager.default.removeItem(at: root) }
    let site = root.appendingPathComponent("site")
    let repository = root.appendingPathComponent("repo")
    for (path, text) in [
      ("site/documentation/workshop/index.html", "<p>front</p>"), ("site/css/a.css", "p {}"),
      ("repo/Stages/A.swift", "let a = 1"), ("repo/.git/config", "secret"), ("secret.txt", "outside"),
    ] {
      let url = root.appendingPathComponent(path)
      try FileManager.default.createDirectory(at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
      try Data(text.utf8).write(to: url)
    }
    let server = try StaticServer(site: site, repository: repository, port: 0)
    let thread = Thread { server.serve() }
    thread.start()
    defer { server.stop() }

    func get(_ path: String) async throws -> (status: Int, type: String, body: String) {
      let url = try #require(URL(string: "http://127.0.0.1:\(server.port)\(path)"))
      let (data, response) = try await URLSession.shared.data(from: url)
      let http = try #require(response as? HTTPURLResponse)
      return (http.statusCode, http.value(forHTTPHeaderField: "Content-Type") ?? "", String(decoding: data, as: UTF8.self))
    }
    let page = try await get("/documentation/workshop")
    #expect(page.status == 200 && page.body == "<p>front</p>" && page.type.hasPrefix("text/html"))
    #expect(try await get("/css/a.css").type.hasPrefix("text/css"))
    let file = try await get("/repository/Stages/A.swift")
    #expect(file.status == 200 && file.body == "let a = 1")
    let listing = try await get("/repository/Stages/")
    #expect(listing.status == 200 && listing.body.contains("A.swift"))
    #expect(try await get("/repository/.git/config").status == 404)
    #expect(try await get("/repository/%2e%2e/secret.txt").status == 404)
    #expect(try await get("/no/such/page").status == 404)
  }
}
