// A wrong attempt at exercise 03, kept so that .ci/check-exercises.sh proves its check names the mistake:
// everything on the context's queue, but a failed save is printed and answered with false, which the caller
// reads as "there was nothing to save".
import ExerciseKit
import Foundation
import ObjectGraph

@discardableResult
public func saveIfNeeded(_ context: NSManagedObjectContext) throws -> Bool {
  context.performAndWait {
    guard context.hasChanges else { return false }
    do {
      try context.save()
      return true
    } catch {
      print("Could not save: \(error)")
      return false
    }
  }
}
