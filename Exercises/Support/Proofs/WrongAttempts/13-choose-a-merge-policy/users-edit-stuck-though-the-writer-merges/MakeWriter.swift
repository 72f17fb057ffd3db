// A wrong attempt at exercise 13, kept so that CI proves the checks name the mistake: "merge" read as the
// context's automatic merging, which only follows a parent context's saves (the writer has none), and no
// policy set: the writer keeps the default, error, and refuses the user's save.
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
  // Merge what others changed into the writer, so the user's edit and the worker's meet there.
  writer.automaticallyMergesChangesFromParent = true
  return writer
}
