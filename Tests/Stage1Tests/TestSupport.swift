import Foundation

/// A fresh folder under the system's temporary folder, one per test. Call ``remove()`` when done.
struct TemporaryFolder {
  let url: URL

  init() throws {
    url = FileManager.default.temporaryDirectory.appendingPathComponent("Stage1Tests-\(UUID().uuidString)", isDirectory: true)
    try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
  }

  /// A path inside the folder (nothing is created).
  func appending(_ path: String) -> URL { url.appendingPathComponent(path) }

  func remove() { try? FileManager.default.removeItem(at: url) }
}

/// Where SwiftPM put this build's products (the test bundle sits among them).
enum BuildProducts {
  /// A class of the test bundle, to ask Foundation which bundle that is.
  private final class Marker {}

  /// The products folder: on macOS the folder that holds the `.xctest` bundle; on Linux the test
  /// runner is itself a file named `…PackageTests.xctest` in that folder, and the bundle is the folder.
  static var folder: URL {
    let bundleURL = Bundle(for: Marker.self).bundleURL
    return bundleURL.pathExtension == "xctest" ? bundleURL.deletingLastPathComponent() : bundleURL
  }

  /// The executable product `name` of this build, or `nil` when it has not been built.
  static func executable(_ name: String) -> URL? {
    let url = folder.appendingPathComponent(name)
    return FileManager.default.isExecutableFile(atPath: url.path) ? url : nil
  }
}

/// What a finished process printed and how it ended.
struct ProcessOutput {
  let status: Int32
  let stdout: String
  let stderr: String

  /// Runs `executable` with `arguments`, waits for it, and collects what it printed.
  static func run(_ executable: URL, _ arguments: [String]) throws -> ProcessOutput {
    let process = Process()
    process.executableURL = executable
    process.arguments = arguments
    let out = Pipe()
    let err = Pipe()
    process.standardOutput = out
    process.standardError = err
    try process.run()
    // The demo prints a few hundred bytes, far below a pipe's buffer, so reading one pipe to its end
    // before the other cannot block the child.
    let stdout = out.fileHandleForReading.readDataToEndOfFile()
    let stderr = err.fileHandleForReading.readDataToEndOfFile()
    process.waitUntilExit()
    return ProcessOutput(
      status: process.terminationStatus, stdout: String(decoding: stdout, as: UTF8.self), stderr: String(decoding: stderr, as: UTF8.self))
  }
}
