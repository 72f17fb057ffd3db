// Exercise 03: save only when needed.
// The task is in Exercises/03-save-only-when-needed/README.md; hints in HINTS.md next to it.
import ExerciseKit
import Foundation
import ObjectGraph

/// Saves `context` if it has changes, on the context's own queue, and says whether it saved.
///
/// It may be called from any queue or thread, for a main-queue or a private-queue context.
///
/// - Returns: `true` when there were changes and they were saved; `false` when there was nothing to save.
/// - Throws: the save's error, unchanged. The context keeps its unsaved changes, so the caller can fix
///   them and save again.
@discardableResult
public func saveIfNeeded(_ context: NSManagedObjectContext) throws -> Bool {
  // Replace this line with your code.
  throw ExerciseNotDone("03-save-only-when-needed")
}
