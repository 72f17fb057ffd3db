// A wrong attempt at exercise 01, kept so that .ci/check-exercises.sh proves its check names the mistake:
// the model is looked for in Bundle.main, as an app's code on a Mac does, whatever bundle it is given; code
// in a package finds nothing there.
import ExerciseKit
import Foundation
import ObjectGraph

public func loadModel(named name: String, in bundle: Bundle) throws -> NSManagedObjectModel {
  guard let url = Bundle.main.url(forResource: name, withExtension: "xcdatamodeld") else {
    throw ModelError(description: "No \(name).xcdatamodeld in the bundle at \(Bundle.main.bundleURL.path).")
  }
  guard let model = NSManagedObjectModel(contentsOf: url) else {
    throw ModelError(description: "The model at \(url.path) cannot be read; the log above says why.")
  }
  return model
}

struct ModelError: Error, CustomStringConvertible {
  let description: String
}
