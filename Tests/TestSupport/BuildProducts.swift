import Foundation

/// Where SwiftPM put this build's products, to run an executable product (a demo) from a test.
public enum BuildProducts {
  /// A class of the test bundle, to ask Foundation which bundle that is.
  private final class Marker {}

  /// The products folder. On macOS the test bundle is a `.xctest` folder among the products; on Linux
  /// the `.xctest` file is itself the test runner, and `Bundle(for:)` answers with the products folder.
  public static var folder: URL {
    let bundleURL = Bundle(for: Marker.self).bundleURL
    return bundleURL.pathExtension == "xctest" ? bundleURL.deletingLastPathComponent() : bundleURL
  }

  /// The executable product `name` of this build, or `nil` when it has not been built.
  public static func executable(_ name: String) -> URL? {
    let url = folder.appendingPathComponent(name)
    return FileManager.default.isExecutableFile(atPath: url.path) ? url : nil
  }
}
