// Reference solution of exercise 01: a missing model is an error, not a crash.
import Foundation
import ObjectGraph

/// Loads the data model called `name` from `bundle`, the way an app loads its model at launch.
///
/// The model is Xcode's `<name>.xcdatamodeld` folder, copied into the bundle as a resource.
///
/// - Returns: the model, with its entities.
/// - Throws: ``ModelNotFoundError`` when `bundle` has no model called `name`. When the model is there but
///   cannot be read, ObjectGraph's own error, unchanged: it names the file and what is wrong with it.
public func loadModel(named name: String, in bundle: Bundle) throws -> NSManagedObjectModel {
  guard let url = bundle.url(forResource: name, withExtension: "xcdatamodeld") else {
    let models = bundle.paths(forResourcesOfType: "xcdatamodeld", inDirectory: nil)
    throw ModelNotFoundError(
      modelName: name, bundleURL: bundle.bundleURL,
      modelsInBundle: models.map { URL(fileURLWithPath: $0).deletingPathExtension().lastPathComponent }.sorted())
  }
  return try NSManagedObjectModel(contentsOf: url)
}

/// The bundle has no data model of the requested name.
public struct ModelNotFoundError: Error, Sendable, CustomStringConvertible {
  /// The name asked for (the file name without `.xcdatamodeld`).
  public let modelName: String
  /// The bundle that was searched.
  public let bundleURL: URL
  /// The names of the models the bundle does hold.
  public let modelsInBundle: [String]

  public var description: String {
    let holds =
      modelsInBundle.isEmpty
      ? "That bundle holds no model at all."
      : "That bundle holds: \(modelsInBundle.joined(separator: ", "))."
    return """
      No data model named '\(modelName)': there is no \(modelName).xcdatamodeld in the bundle at \(bundleURL.path). \
      \(holds) Check the name (the model's file name without .xcdatamodeld; case matters), that you searched the \
      bundle the model is copied into (a package's Bundle.module, not Bundle.main), and that the model is copied \
      as a resource (resources: [.copy("\(modelName).xcdatamodeld")] in Package.swift, or the model's target \
      membership in Xcode).
      """
  }
}
