import Foundation

/// A fresh, empty folder in the system's temporary directory, one per check; `remove()` deletes it.
public struct TemporaryFolder: Sendable {
  /// The folder.
  public let url: URL

  /// Creates the folder.
  public init() throws {
    url = FileManager.default.temporaryDirectory.appendingPathComponent("WorkshopExercises-\(UUID().uuidString)")
    try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
  }

  /// A path inside the folder (nothing is created).
  public func appending(_ path: String) -> URL { url.appendingPathComponent(path) }

  /// Deletes the folder and everything in it.
  public func remove() { try? FileManager.default.removeItem(at: url) }
}
