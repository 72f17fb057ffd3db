// A wrong attempt at exercise 13, kept so that CI proves the checks name the mistake: "store" read as the
// user's saved edit, the policy is made with NSMergePolicy(merge:) and the store-trump type, so where both
// changed a property, the row in the file wins: the user's new title is replaced by the worker's.
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
  // The store's version is what the writer stores: the user's edit, which the main context has just saved.
  writer.mergePolicy = NSMergePolicy(merge: .mergeByPropertyStoreTrumpMergePolicyType)
  return writer
}
