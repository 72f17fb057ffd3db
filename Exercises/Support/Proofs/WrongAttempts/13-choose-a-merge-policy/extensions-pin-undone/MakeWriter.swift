// Exercise 13: choose the writer's merge policy.
// The task is in Exercises/13-choose-a-merge-policy/README.md; hints in HINTS.md next to it.
import ExerciseKit
import Foundation
import ObjectGraph

/// Makes the stack's writer: the private-queue context that alone holds `coordinator` and writes to the
/// file whatever the main context saves into it.
///
/// The writer is not the only one writing to the file. A worker on the coordinator, or an app extension with
/// a stack of its own, may change a note's row after the user opened that note. When the writer then saves
/// the user's edit of it, its merge policy decides what the file keeps.
///
/// - Throws: nothing yet; the function throws so that a writer that cannot be made can say why.
public func makeWriter(for coordinator: NSPersistentStoreCoordinator) throws -> NSManagedObjectContext {
  let writer = NSManagedObjectContext(concurrencyType: .privateQueueConcurrencyType)
  writer.name = "Writer"
  writer.persistentStoreCoordinator = coordinator
  // The user's edit must win: write the user's note.
  writer.mergePolicy = NSMergePolicy.overwrite
  return writer
}
