// Reference solution of exercise 03: save only when needed.
import Foundation
import ObjectGraph

/// Saves `context` if it has changes, on the context's own queue, and says whether it saved.
///
/// It may be called from any queue or thread, for a main-queue or a private-queue context: everything,
/// `hasChanges` included, runs inside `performAndWait`. A failed save is not caught: its error (a
/// validation error names the object and the property) goes to the caller, and the context keeps its
/// changes.
///
/// - Returns: `true` when there were changes and they were saved; `false` when there was nothing to save.
/// - Throws: the save's error, unchanged.
@discardableResult
public func saveIfNeeded(_ context: NSManagedObjectContext) throws -> Bool {
  try context.performAndWait {
    guard context.hasChanges else { return false }
    try context.save()
    return true
  }
}
