// A wrong attempt at exercise 01, kept so that .ci/check-exercises.sh proves its check names the mistake:
// the lookup is right, but the errors are bare enum cases, so the one for a missing model reads
// "notFound(name: \"NoSuchModel\")": no file, no bundle, nothing to check.
import ExerciseKit
import Foundation
import ObjectGraph

enum ModelError: Error {
  case notFound(name: String)
  case unreadable(URL)
}

public func loadModel(named name: String, in bundle: Bundle) throws -> NSManagedObjectModel {
  guard let url = bundle.url(forResource: name, withExtension: "xcdatamodeld") else {
    throw ModelError.notFound(name: name)
  }
  guard let model = NSManagedObjectModel(contentsOf: url) else {
    throw ModelError.unreadable(url)
  }
  return model
}
