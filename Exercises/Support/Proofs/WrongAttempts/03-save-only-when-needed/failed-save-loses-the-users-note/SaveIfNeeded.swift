// A wrong attempt at exercise 03, kept so that .ci/check-exercises.sh proves its check names the mistake:
// everything on the context's queue and the error thrown on, but the context is rolled back first "to leave it
// clean", which throws away the note the user was writing.
import ExerciseKit
import Foundation
import ObjectGraph

@discardableResult
public func saveIfNeeded(_ context: NSManagedObjectContext) throws -> Bool {
  try context.performAndWait {
    guard context.hasChanges else { return false }
    do {
      try context.save()
    } catch {
      context.rollback()
      throw error
    }
    return true
  }
}
