import Foundation

/// Finds the workspace: the nearest folder, from the current one upwards, that has both `Package.swift`
/// and a `Stages/` folder. (`Exercises/` and `Benchmarks/` have a Package.swift of their own but no
/// `Stages/`, so running the command from inside them finds the workspace above.)
enum RepoRoot {
  /// Whether `folder` is the workspace's root.
  static func isWorkspace(_ folder: URL) -> Bool {
    let manager = FileManager.default
    var isDirectory: ObjCBool = false
    let hasStages = manager.fileExists(atPath: folder.appendingPathComponent("Stages").path, isDirectory: &isDirectory)
    return hasStages && isDirectory.boolValue && manager.fileExists(atPath: folder.appendingPathComponent("Package.swift").path)
  }

  /// The nearest workspace root at or above `start`.
  static func find(from start: URL) throws -> URL {
    var folder = start.standardizedFileURL
    while true {
      if isWorkspace(folder) { return folder }
      let parent = folder.deletingLastPathComponent().standardizedFileURL
      if parent.path == folder.path || folder.path == "/" { break }
      folder = parent
    }
    throw WorkshopError.notInWorkspace(searchedFrom: start.standardizedFileURL.path)
  }

  /// `folder` itself, if it is a workspace root (for the hidden `--root` option).
  static func validate(_ folder: URL) throws -> URL {
    let folder = folder.standardizedFileURL
    guard isWorkspace(folder) else { throw WorkshopError.notAWorkspace(folder.path) }
    return folder
  }
}
