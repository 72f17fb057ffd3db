import ArgumentParser
import Foundation

struct DocsCommand: ParsableCommand {
  static let configuration = CommandConfiguration(
    commandName: "docs",
    abstract: "Render the chapters and step-by-step tutorials as a site (DocC) and serve it on localhost.",
    discussion: """
      The site is made from the repository's own files each time: the chapters of Docs/, their diagrams \
      (Docs/Images/), the tutorials of Docs/Tutorials/, whose code is cut from the stage sources, and the \
      engine's symbol reference (its doc comments, through `swift package objectgraph-symbol-graph`). \
      It is written to .build/workshop-site/ and served at http://127.0.0.1:<port>/documentation/workshop \
      until you press Ctrl-C.
      """
  )

  @OptionGroup var common: CommonOptions

  @Option(help: "The port to serve on (0 for any free port).")
  var port: UInt16 = 8080

  @Flag(help: "Build the site, do not serve it.")
  var buildOnly = false

  @Option(help: "The folder to write the rendered site to (default: .build/workshop-site/site).")
  var output: String?

  func run() throws {
    try withWorkshopEnvironment { environment in
      let root = try common.workspaceRoot(environment)
      let work = root.appendingPathComponent(".build/workshop-site", isDirectory: true)
      let catalog = work.appendingPathComponent("\(SiteCatalog.name).docc", isDirectory: true)
      let site =
        output.map { URL(fileURLWithPath: $0, relativeTo: URL(fileURLWithPath: environment.currentDirectory)).standardizedFileURL }
        ?? work.appendingPathComponent("site", isDirectory: true)
      let docc = try Self.docc(in: environment)
      let swift = try ExecutableLocator.swift(in: environment)

      let contents: SiteCatalog.Contents
      let referenceCatalog = work.appendingPathComponent("\(SymbolReference.module).docc", isDirectory: true)
      do throws(SiteError) {
        contents = try SiteCatalog.build(root: root, into: catalog)
        try SymbolReference.writeCatalog(into: referenceCatalog)
      } catch {
        throw WorkshopError.siteNotBuilt(error.description)
      }
      environment.output.line(
        "Made the catalog: \(contents.articles.count) pages, \(contents.tutorials.count) tutorial files "
          + "(\(contents.stepFiles.count) steps of code), \(contents.images.count) diagrams.")

      let symbolGraphs = try Self.extractSymbolGraph(swift: swift, root: root, environment: environment)
      let chapters = work.appendingPathComponent("\(SiteCatalog.name).doccarchive", isDirectory: true)
      let reference = work.appendingPathComponent("\(SymbolReference.module).doccarchive", isDirectory: true)
      try Self.run(
        docc,
        [
          "convert", catalog.path, "--output-path", chapters.path, "--transform-for-static-hosting",
          "--fallback-display-name", SiteCatalog.name, "--fallback-bundle-identifier", SiteCatalog.bundleIdentifier,
          "--warnings-as-errors",
          // For the `wrap` option of the chapters' code blocks (ChapterConverter.wrapping).
          "--enable-experimental-code-block-annotations",
        ], in: root, environment: environment)
      // The engine's doc comments are checked by .ci/check-docs.py (each public symbol has one); DocC's
      // warnings about them (a link it cannot resolve) are shown, not fatal.
      let warnings = try Self.run(
        docc,
        [
          "convert", referenceCatalog.path, "--output-path", reference.path, "--transform-for-static-hosting",
          "--fallback-display-name", SymbolReference.module,
          "--fallback-bundle-identifier", SymbolReference.bundleIdentifier,
          "--additional-symbol-graph-dir", symbolGraphs,
        ], in: root, environment: environment)
      if warnings > 0 {
        environment.output.line(
          "The reference has \(warnings) DocC warning\(warnings == 1 ? "" : "s") about the engine's doc comments "
            + "(above, with their files and lines); they do not stop the site.")
      }

      guard SymbolReference.mayReplace(site) else { throw WorkshopError.siteFolderInUse(site.path) }
      do {
        if FileManager.default.fileExists(atPath: site.path) { try FileManager.default.removeItem(at: site) }
        try FileManager.default.createDirectory(at: site.deletingLastPathComponent(), withIntermediateDirectories: true)
      } catch {
        throw WorkshopError.siteNotBuilt("\(site.path): cannot replace the folder: \(error.localizedDescription)")
      }
      // The merged site's own landing page (`/documentation`) lists the two: the chapters and the reference.
      try Self.run(
        docc,
        [
          "merge", chapters.path, reference.path, "--output-path", site.path,
          "--synthesized-landing-page-name", "Core Data Stack Workshop", "--synthesized-landing-page-kind", "Site",
        ], in: root, environment: environment)
      do throws(SiteError) {
        try SiteStyle.apply(toPagesIn: site)
      } catch {
        throw WorkshopError.siteNotBuilt(error.description)
      }
      environment.output.line("Rendered the site into \(site.path).")
      if buildOnly { return }

      let server: StaticServer
      do throws(SiteError) {
        server = try StaticServer(site: site, repository: root, port: port)
      } catch {
        throw WorkshopError.siteNotBuilt(error.description)
      }
      environment.output.line("Serving the site at http://127.0.0.1:\(server.port)/documentation/workshop (Ctrl-C stops it).")
      server.serve()
    }
  }

  /// Runs `swift package objectgraph-symbol-graph` (Tools/SymbolGraphPlugin), which builds the engine and
  /// writes its symbol graph, and returns the folder it names.
  static func extractSymbolGraph(swift: String, root: URL, environment: WorkshopEnvironment) throws -> String {
    let arguments = SymbolReference.pluginArguments
    environment.output.line(environment.style.dim("▶ swift \(arguments.joined(separator: " "))"))
    var output: [String] = []
    let status = try environment.runner.run(swift, arguments: arguments, in: root) { line in
      output.append(line)
      environment.output.line(line)
    }
    guard status == 0 else { throw WorkshopError.symbolGraphNotExtracted(status: status) }
    guard let folder = SymbolReference.symbolGraphFolder(in: output) else {
      throw WorkshopError.symbolGraphNotNamed(marker: SymbolReference.marker)
    }
    return folder
  }

  /// Runs `docc` with `arguments`, showing the command and its output, and returns how many warnings it
  /// printed; a failure is an error.
  @discardableResult
  static func run(_ docc: String, _ arguments: [String], in root: URL, environment: WorkshopEnvironment) throws -> Int {
    environment.output.line(environment.style.dim("▶ docc \(arguments.joined(separator: " "))"))
    var warnings = 0
    let status = try environment.runner.run(docc, arguments: arguments, in: root) { line in
      if line.hasPrefix("warning:") { warnings += 1 }
      environment.output.line(line)
    }
    guard status == 0 else { throw WorkshopError.doccFailed(command: arguments.first ?? "", status: status) }
    return warnings
  }

  /// `docc` from PATH, else next to `swift` (where the toolchain keeps it).
  static func docc(in environment: WorkshopEnvironment) throws -> String {
    if let found = ExecutableLocator.find("docc", pathVariable: environment.pathVariable, isExecutable: environment.isExecutableFile) {
      return found
    }
    let swift = try ExecutableLocator.swift(in: environment)
    let resolved = URL(fileURLWithPath: swift).resolvingSymlinksInPath()
    let beside = resolved.deletingLastPathComponent().appendingPathComponent("docc").path
    guard environment.isExecutableFile(beside) else { throw WorkshopError.doccNotFound(swift: swift) }
    return beside
  }
}
