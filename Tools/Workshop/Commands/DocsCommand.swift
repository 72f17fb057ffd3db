import ArgumentParser
import Foundation

struct DocsCommand: ParsableCommand {
  static let configuration = CommandConfiguration(
    commandName: "docs",
    abstract: "Render the chapters and step-by-step tutorials as a site (DocC) and serve it on localhost.",
    discussion: """
      The site is made from the repository's own files each time: the chapters of Docs/, their diagrams \
      (Docs/Images/), and the tutorials of Docs/Tutorials/, whose code is cut from the stage sources. \
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

      let contents: SiteCatalog.Contents
      do throws(SiteError) {
        contents = try SiteCatalog.build(root: root, into: catalog)
      } catch {
        throw WorkshopError.siteNotBuilt(error.description)
      }
      environment.output.line(
        "Made the catalog: \(contents.articles.count) pages, \(contents.tutorials.count) tutorial files "
          + "(\(contents.stepFiles.count) steps of code), \(contents.images.count) diagrams.")

      let arguments = [
        "convert", catalog.path, "--output-path", site.path, "--transform-for-static-hosting",
        "--fallback-display-name", SiteCatalog.name, "--fallback-bundle-identifier", SiteCatalog.bundleIdentifier,
        "--warnings-as-errors",
        // For the `wrap` option of the chapters' code blocks (ChapterConverter.wrapping).
        "--enable-experimental-code-block-annotations",
      ]
      environment.output.line(environment.style.dim("▶ docc \(arguments.joined(separator: " "))"))
      let status = try environment.runner.run(docc, arguments: arguments, in: root) { line in
        environment.output.line(line)
      }
      guard status == 0 else { throw WorkshopError.doccFailed(status: status) }
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
