// A wrong attempt at exercise 01, kept so that .ci/check-exercises.sh proves its check names the mistake:
// the lookup is right, but the error names the bundle by its folder's name (bundleURL.lastPathComponent), not
// its path: whoever reads it learns which bundle, but not where it is.
import ExerciseKit
import Foundation
import ObjectGraph

/// Loads the data model called `name` from `bundle`, the way an app loads its model at launch.
///
/// The model is Xcode's `<name>.xcdatamodeld` folder, copied into the bundle as a resource.
///
/// - Returns: the model, with its entities.
/// - Throws: ``ModelNotFoundError`` when `bundle` has no model called `name`; ``ModelUnreadableError`` when the
///   model is there but cannot be read (`NSManagedObjectModel(contentsOf:)` returns `nil` and logs why).
public func loadModel(named name: String, in bundle: Bundle) throws -> NSManagedObjectModel {
  guard let url = bundle.url(forResource: name, withExtension: "xcdatamodeld") else {
    let models = bundle.paths(forResourcesOfType: "xcdatamodeld", inDirectory: nil)
    throw ModelNotFoundError(
      modelName: name, bundleName: bundle.bundleURL.lastPathComponent,
      modelsInBundle: models.map { URL(fileURLWithPath: $0).deletingPathExtension().lastPathComponent }.sorted())
  }
  guard let model = NSManagedObjectModel(contentsOf: url) else {
    throw ModelUnreadableError(modelURL: url)
  }
  return model
}

/// The model file is in the bundle, but `NSManagedObjectModel(contentsOf:)` could not read it.
public struct ModelUnreadableError: Error, Sendable, CustomStringConvertible {
  /// The model file that was found.
  public let modelURL: URL

  public var description: String {
    """
    The data model at \(modelURL.path) is there but cannot be read: NSManagedObjectModel(contentsOf:) returned \
    nil, and the reason is in the log just above (standard error here, the console on an iPhone). Restore the \
    file from version control, or open it in Xcode and fix what the log names.
    """
  }
}

/// The bundle has no data model of the requested name.
public struct ModelNotFoundError: Error, Sendable, CustomStringConvertible {
  /// The name asked for (the file name without `.xcdatamodeld`).
  public let modelName: String
  /// The name of the bundle that was searched: its folder's name.
  public let bundleName: String
  /// The names of the models the bundle does hold.
  public let modelsInBundle: [String]

  public var description: String {
    let holds =
      modelsInBundle.isEmpty
      ? "That bundle holds no model at all."
      : "That bundle holds: \(modelsInBundle.joined(separator: ", "))."
    return """
      No data model named '\(modelName)': there is no \(modelName).xcdatamodeld in the bundle \(bundleName). \
      \(holds) Check the name (the model's file name without .xcdatamodeld; case matters), that you searched the \
      bundle the model is copied into (a package's Bundle.module, not Bundle.main), and that the model is copied \
      as a resource (resources: [.copy("\(modelName).xcdatamodeld")] in Package.swift, or the model's target \
      membership in Xcode).
      """
  }
}
