import Foundation

/// The DocC catalog of the workshop's site, made from the repository's own files each time:
/// - the chapters and reference pages of `Docs/` (`*.md` but its README), as articles
///   (``ChapterConverter``);
/// - their diagrams, from `Docs/Images/`;
/// - a front page: `Docs/README.md`'s introduction and table of chapters, a link to the engine's symbol
///   reference (``SymbolReference``), and the list of pages;
/// - the step-by-step tutorials of `Docs/Tutorials/`, each step's code cut from the stage sources
///   (``StepCode``).
enum SiteCatalog {
  /// The site's name and the path of its front page (`/documentation/workshop`).
  static let name = "Workshop"
  static let bundleIdentifier = "org.coredata-stack-workshop.site"
  /// The pages the front page lists as reference, after the chapters.
  static let referencePages = ["concurrency-rules", "ObjectGraph"]

  /// What was written: the articles and tutorials, by name.
  struct Contents: Equatable {
    var articles: [String] = []
    var tutorials: [String] = []
    var images: [String] = []
    var stepFiles: [String] = []
  }

  /// Writes the catalog for the repository at `root` into `catalog` (emptied first).
  @discardableResult
  static func build(root: URL, into catalog: URL) throws(SiteError) -> Contents {
    let fileManager = FileManager.default
    let docs = root.appendingPathComponent("Docs")
    let resources = catalog.appendingPathComponent("Resources")
    do {
      if fileManager.fileExists(atPath: catalog.path) { try fileManager.removeItem(at: catalog) }
      try fileManager.createDirectory(at: resources, withIntermediateDirectories: true)
    } catch {
      throw SiteError(catalog.path, "cannot write the site's catalog here: \(error.localizedDescription)")
    }
    var contents = Contents()

    let pageFiles = try files(in: docs, withExtension: "md").filter { $0 != "README.md" }
    var sources: [String: String] = [:]
    for file in pageFiles { sources[String(file.dropLast(3))] = try read(docs.appendingPathComponent(file)) }
    let converter = ChapterConverter(sources: sources)
    for name in sources.keys.sorted() {
      let article = try converter.convert(sources[name] ?? "", name: name)
      try write(article, to: catalog.appendingPathComponent("\(name).md"))
      contents.articles.append(name)
    }

    for image in try files(in: docs.appendingPathComponent("Images"), withExtension: "svg") {
      try copy(docs.appendingPathComponent("Images/\(image)"), to: resources.appendingPathComponent(image))
      contents.images.append(image)
    }

    let tutorialsFolder = docs.appendingPathComponent("Tutorials")
    for file in try files(in: tutorialsFolder, withExtension: "tutorial") {
      let name = String(file.dropLast(".tutorial".count))
      let text = try read(tutorialsFolder.appendingPathComponent(file))
      let (tutorial, steps) = try resolveCode(in: text, tutorial: name, root: root)
      try write(tutorial, to: catalog.appendingPathComponent(file))
      for (fileName, code) in steps {
        try write(code, to: resources.appendingPathComponent(fileName))
        contents.stepFiles.append(fileName)
      }
      contents.tutorials.append(name)
    }

    // DocC's pages ask the server for their theme; without this file every page logs a 404.
    try write(#"{ "meta": {}, "theme": {}, "features": {} }"# + "\n", to: catalog.appendingPathComponent("theme-settings.json"))

    let readme = try read(docs.appendingPathComponent("README.md"))
    try write(
      try frontPage(readme: readme, converter: converter, articles: contents.articles, tutorials: contents.tutorials),
      to: catalog.appendingPathComponent("\(name).md"))
    return contents
  }

  /// The front page: the README's introduction and table (up to its second heading), then the topics.
  static func frontPage(readme: String, converter: ChapterConverter, articles: [String], tutorials: [String])
    throws(SiteError) -> String
  {
    var introduction: [String] = []
    for line in readme.components(separatedBy: "\n").dropFirst() {
      if line.hasPrefix("## ") { break }
      introduction.append(line)
    }
    let body = try converter.convert(introduction.joined(separator: "\n"), name: "README")
    let chapters = articles.filter { $0.first?.isNumber == true }
    let reference = referencePages.filter(articles.contains)
    var page = [
      "# Core Data Stack Workshop", "",
      "Build a Core Data stack, stage by stage, on ObjectGraph: a Core Data work-alike in Swift on Linux.", "",
      "@Metadata {", "  @TechnologyRoot", "}", "",
      "## Overview", body.trimmingCharacters(in: .newlines), "",
      "The engine's symbol reference, every public type and member with its doc comment, is "
        + "[ObjectGraph](\(SymbolReference.path)).", "",
      "## Topics", "", "### Chapters", "",
    ]
    page += chapters.map { "- <doc:\($0)>" }
    page += ["", "### Reference", ""] + reference.map { "- <doc:\($0)>" }
    if tutorials.contains("Workshop") {
      page += ["", "### Step by step", "", "- <doc:tutorials/Workshop>"]
    }
    return page.joined(separator: "\n") + "\n"
  }

  /// The tutorial with each `@Code(… file: "Stages/…")` pointing at a generated step file, and those files
  /// (``StepCode``: each step's code is the last step's for that file and the declarations it adds).
  static func resolveCode(in tutorial: String, tutorial name: String, root: URL) throws(SiteError)
    -> (String, [(String, String)])
  {
    var steps: [(String, String)] = []
    var lines: [String] = []
    // The declarations the tutorial's steps have added so far, by file.
    var shown: [String: [String]] = [:]
    for (index, line) in tutorial.components(separatedBy: "\n").enumerated() {
      guard line.contains("@Code("), let range = line.range(of: #"file: "([^"]+)""#, options: .regularExpression)
      else {
        lines.append(line)
        continue
      }
      let reference = String(line[range].dropFirst("file: \"".count).dropLast())
      guard reference.contains("/") else {
        lines.append(line)
        continue
      }
      let place = "Docs/Tutorials/\(name).tutorial:\(index + 1)"
      let step = try StepCode.Reference(parsing: reference, place: place)
      let path = step.path
      let code = try StepCode.code(for: step, shown: shown[path, default: []], root: root, place: place)
      shown[path, default: []] += step.adds
      let fileName = "\(name.lowercased())-\(String(format: "%02d", steps.count + 1))-\((path as NSString).lastPathComponent)"
      steps.append((fileName, code))
      lines.append(line.replacingCharacters(in: range, with: "file: \"\(fileName)\""))
    }
    return (lines.joined(separator: "\n"), steps)
  }

  // MARK: - Files

  private static func files(in folder: URL, withExtension ending: String) throws(SiteError) -> [String] {
    guard FileManager.default.fileExists(atPath: folder.path) else { return [] }
    do {
      return try FileManager.default.contentsOfDirectory(atPath: folder.path).filter { $0.hasSuffix(".\(ending)") }.sorted()
    } catch {
      throw SiteError(folder.path, "cannot list the folder: \(error.localizedDescription)")
    }
  }

  private static func read(_ url: URL) throws(SiteError) -> String {
    do {
      return try String(contentsOf: url, encoding: .utf8)
    } catch {
      throw SiteError(url.path, "cannot read the file: \(error.localizedDescription)")
    }
  }

  private static func write(_ text: String, to url: URL) throws(SiteError) {
    do {
      try text.write(to: url, atomically: true, encoding: .utf8)
    } catch {
      throw SiteError(url.path, "cannot write the file: \(error.localizedDescription)")
    }
  }

  private static func copy(_ source: URL, to target: URL) throws(SiteError) {
    do {
      try FileManager.default.copyItem(at: source, to: target)
    } catch {
      throw SiteError(source.path, "cannot copy the file into the site: \(error.localizedDescription)")
    }
  }
}
