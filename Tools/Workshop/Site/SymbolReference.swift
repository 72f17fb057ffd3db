import Foundation

/// The engine's symbol reference on the site: a DocC archive of its own, rendered from the symbol graph
/// that `swift package objectgraph-symbol-graph` (Tools/SymbolGraphPlugin) extracts, then merged with the
/// chapters' archive (`docc merge`), so that it lives at `/documentation/objectgraph` beside
/// `/documentation/workshop`.
///
/// It is an archive of its own because DocC gives a catalog one root: with the module in the chapters'
/// catalog, the module takes the root's place and the `ObjectGraph` article's name.
enum SymbolReference {
  /// The module, and the catalog's name.
  static let module = "ObjectGraph"
  static let bundleIdentifier = "org.coredata-stack-workshop.objectgraph"
  /// The SwiftPM command that writes the symbol graph, and the line of its output that names the folder.
  static let pluginArguments = ["package", "objectgraph-symbol-graph"]
  static let marker = "ObjectGraph symbol graph: "
  /// The reference's landing page on the site.
  static let path = "/documentation/objectgraph"

  /// Writes the reference's catalog (its landing page) into `catalog`, emptied first.
  static func writeCatalog(into catalog: URL) throws(SiteError) {
    let text = """
      # ``ObjectGraph``

      The engine's symbol reference: every public type and member, with its doc comment.

      ## Overview

      ObjectGraph is the workshop's Core Data work-alike on SQLite, with Core Data's names without `NS`. \
      The page [ObjectGraph: how the engine works](/documentation/workshop/objectgraph) lists the API by \
      area with Core Data's name beside each, and says where the engine differs from Core Data.

      """
    do {
      if FileManager.default.fileExists(atPath: catalog.path) { try FileManager.default.removeItem(at: catalog) }
      try FileManager.default.createDirectory(at: catalog, withIntermediateDirectories: true)
      try text.write(to: catalog.appendingPathComponent("\(module).md"), atomically: true, encoding: .utf8)
    } catch {
      throw SiteError(catalog.path, "cannot write the reference's catalog here: \(error.localizedDescription)")
    }
  }

  /// The folder the plugin named in its output, if it did.
  static func symbolGraphFolder(in output: [String]) -> String? {
    for line in output.reversed() {
      guard let range = line.range(of: marker) else { continue }
      let folder = line[range.upperBound...].trimmingCharacters(in: .whitespaces)
      if !folder.isEmpty { return folder }
    }
    return nil
  }

  /// Whether `folder` may be replaced by a freshly rendered site: it is missing, empty, or a site DocC
  /// rendered before (its `metadata.json` and `index.html`); any other folder is the user's, and stays.
  static func mayReplace(_ folder: URL) -> Bool {
    let fileManager = FileManager.default
    guard fileManager.fileExists(atPath: folder.path) else { return true }
    guard let entries = try? fileManager.contentsOfDirectory(atPath: folder.path) else { return false }
    return entries.isEmpty || (entries.contains("metadata.json") && entries.contains("index.html"))
  }
}
