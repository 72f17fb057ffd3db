// A wrong attempt at exercise 01, kept so that .ci/check-exercises.sh proves its check names the mistake:
// the right bundle, the wrong extension ("xcdatamodel" is one version inside the .xcdatamodeld folder).
import ExerciseKit
import Foundation
import ObjectGraph

public func loadModel(named name: String, in bundle: Bundle) throws -> NSManagedObjectModel {
  guard let url = bundle.url(forResource: name, withExtension: "xcdatamodel") else {
    throw NoModel(description: "No model \(name) in the bundle at \(bundle.bundleURL.path).")
  }
  guard let model = NSManagedObjectModel(contentsOf: url) else {
    throw NoModel(description: "The model at \(url.path) cannot be read.")
  }
  return model
}

struct NoModel: Error, CustomStringConvertible {
  let description: String
}
