// A wrong attempt at exercise 03, kept so that .ci/check-exercises.sh proves its check names the mistake:
// hasChanges and save() are called on whatever thread the caller is on, not on the context's queue.
import ExerciseKit
import Foundation
import ObjectGraph

@discardableResult
public func saveIfNeeded(_ context: NSManagedObjectContext) throws -> Bool {
  guard context.hasChanges else { return false }
  try context.save()
  return true
}
