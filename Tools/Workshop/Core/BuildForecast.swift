import Foundation

/// What `swift run -c release <demo>` will have to build before the demo starts, read from the build folder
/// beforehand, so that `workshop demo` announces a long build only when one will happen.
///
/// SwiftPM prints a line as each compile step starts and nothing while it runs, and a first release build has
/// two steps of a minute or more each (GRDB, then the engine): without a word first, the terminal looks hung.
enum BuildForecast: Equatable {
  /// No release build has been made in this folder: GRDB and the engine are compiled with optimisations.
  case firstBuild
  /// The engine changed since the demo was last built in release: the engine is compiled again.
  case engineChanged
  /// Something else changed (the stage, the demo, their support), or the demo was never built though the
  /// engine was: a short build.
  case shortBuild
  /// The demo's release build is newer than every source it is made from: it starts at once.
  case upToDate

  /// The forecast for `demo`'s release build in the workspace at `root`.
  static func release(demo: String, root: URL) -> BuildForecast {
    let release = root.appendingPathComponent(".build/release")
    func exists(_ module: String) -> Bool {
      ["Modules/\(module).swiftmodule", "\(module).swiftmodule"].contains {
        FileManager.default.fileExists(atPath: release.appendingPathComponent($0).path)
      }
    }
    guard exists("GRDB") else { return .firstBuild }
    guard let built = modificationDate(release.appendingPathComponent(demo)) else {
      return exists("ObjectGraph") ? .shortBuild : .engineChanged
    }
    // The demo's sources: the engine, the stages, the demos' support and the package, listed as the
    // workshop lists an exercise's sources.
    let newer = SourceHasher.files(of: ["Stages", "Tools/DemoSupport", "Package.swift"], root: root).filter {
      modificationDate(root.appendingPathComponent($0)).map { $0 > built } ?? false
    }
    if newer.contains(where: { $0.hasPrefix("Stages/ObjectGraph/") }) { return .engineChanged }
    return newer.isEmpty ? .upToDate : .shortBuild
  }

  /// What to say before the build, one sentence per line; nothing when the demo is up to date.
  var announcement: [String] {
    switch self {
    case .firstBuild:
      return [
        "The first release build compiles the SQLite library (GRDB) and the engine with optimisations: a few minutes on a quiet "
          + "machine, more on a busy one; later runs start at once.",
        "SwiftPM's two long steps, \"Compiling GRDB\" and then \"Compiling ObjectGraph\", print nothing new for a minute or more "
          + "each: that is work, not a hang.",
      ]
    case .engineChanged:
      return [
        "The engine changed since the demo's last release build, so it is compiled again with optimisations: a minute or two, "
          + "during which \"Compiling ObjectGraph\" prints nothing new."
      ]
    case .shortBuild:
      return ["The demo's release build is out of date: SwiftPM rebuilds what changed, in seconds."]
    case .upToDate:
      return []
    }
  }

  private static func modificationDate(_ url: URL) -> Date? {
    (try? FileManager.default.attributesOfItem(atPath: url.path))?[.modificationDate] as? Date
  }
}
