// A wrong attempt at exercise 01, kept so that .ci/check-exercises.sh proves its check names the mistake:
// one guard for both questions, so a model that is there but damaged gets the error of a missing one, and
// whoever reads it looks for a file that is not missing.
import ExerciseKit
import Foundation
import ObjectGraph

public func loadModel(named name: String, in bundle: Bundle) throws -> NSManagedObjectModel {
  guard let url = bundle.url(forResource: name, withExtension: "xcdatamodeld"),
    let model = NSManagedObjectModel(contentsOf: url)
  else {
    throw ModelError(
      description: """
        No data model \(name).xcdatamodeld in the bundle at \(bundle.bundleURL.path). Check the name, the bundle, \
        and that the model is copied into the bundle as a resource.
        """)
  }
  return model
}

struct ModelError: Error, CustomStringConvertible {
  let description: String
}
