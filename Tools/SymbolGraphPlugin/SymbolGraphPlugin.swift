import Foundation
import PackagePlugin

/// `swift package objectgraph-symbol-graph`: builds the engine and writes its symbol graph (public symbols,
/// with their doc comments), then prints the folder it is in, for `workshop docs` to hand to DocC.
///
/// SwiftPM does the work (`getSymbolGraph`): it knows the compiler's arguments for the target (its
/// dependencies' modules, GRDB's C module map), so nothing here depends on the platform or the build folder.
@main
struct SymbolGraphPlugin: CommandPlugin {
  /// The line that names the folder; `workshop docs` reads it.
  static let marker = "ObjectGraph symbol graph: "

  func performCommand(context: PluginContext, arguments: [String]) async throws {
    guard let target = context.package.targets.first(where: { $0.name == "ObjectGraph" }) else {
      Diagnostics.error("The package has no ObjectGraph target.")
      return
    }
    let options = PackageManager.SymbolGraphOptions(
      minimumAccessLevel: .public, includeSynthesized: false, includeSPI: false, emitExtensionBlocks: true)
    let result = try packageManager.getSymbolGraph(for: target, options: options)
    print(Self.marker + result.directoryURL.path)
  }
}
