// Exercise 01: a missing model is an error, not a crash.
// The task is in Exercises/01-model-not-found/README.md; hints in HINTS.md next to it.
import ExerciseKit
import Foundation
import ObjectGraph

/// Loads the data model called `name` from `bundle`, the way an app loads its model at launch.
///
/// The model is Xcode's `<name>.xcdatamodeld` folder, copied into the bundle as a resource.
///
/// - Returns: the model, with its entities.
/// - Throws: when `bundle` has no model called `name`: an error whose description names the model,
///   the bundle, and what to check. When the model is there but cannot be read: an error whose
///   description names the file.
public func loadModel(named name: String, in bundle: Bundle) throws -> NSManagedObjectModel {
  // Replace this line with your code.
  throw ExerciseNotDone("01-model-not-found")
}
