// A wrong attempt at exercise 01, kept so that .ci/check-exercises.sh proves its check names the mistake:
// the missing model is handled, but the model that cannot be read is force-unwrapped, so it stops the app.
import ExerciseKit
import Foundation
import ObjectGraph

public func loadModel(named name: String, in bundle: Bundle) throws -> NSManagedObjectModel {
  guard let url = bundle.url(forResource: name, withExtension: "xcdatamodeld") else {
    throw NoModel(description: "No \(name).xcdatamodeld in the bundle at \(bundle.bundleURL.path).")
  }
  return NSManagedObjectModel(contentsOf: url)!
}

struct NoModel: Error, CustomStringConvertible {
  let description: String
}
