// A wrong attempt at exercise 04, kept so that .ci/check-exercises.sh proves its check names the mistake:
// both contexts are built right, but the function returns the writer, so the screens would edit on a
// background queue and every save would go to the file.
import ExerciseKit
import Foundation
import ObjectGraph

public func makeMainContext(for coordinator: NSPersistentStoreCoordinator) throws -> NSManagedObjectContext {
  let writer = NSManagedObjectContext(concurrencyType: .privateQueueConcurrencyType)
  writer.name = "Writer"
  writer.persistentStoreCoordinator = coordinator
  let main = NSManagedObjectContext(concurrencyType: .mainQueueConcurrencyType)
  main.name = "Main"
  main.parent = writer
  // The writer is the one that holds the store, so it is the one to hand out.
  return writer
}
