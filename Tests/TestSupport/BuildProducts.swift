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

  /// The executable product `name` of this build.
  ///
  /// - Throws: ``NotBuilt``, saying how to build it, when it has not been built.
  public static func requireExecutable(_ name: String) throws -> URL {
    guard let url = executable(name) else { throw NotBuilt(name: name) }
    return url
  }

  /// What ``requireExecutable(_:)`` throws for a product that has not been built.
  public struct NotBuilt: Error, CustomStringConvertible {
    /// The product's name.
    public let name: String

    public var description: String {
      "No \(name) executable in \(BuildProducts.folder.path). Run `swift build` (or `swift test`, which builds it) first."
    }
  }
}
