// A wrong attempt at exercise 04, kept so that .ci/check-exercises.sh proves its check names the mistake:
// the shape is right, but both contexts are main-queue contexts, so the writer's save, the slow write to the
// file, still runs on the main queue.
import ExerciseKit
import Foundation
import ObjectGraph

public func makeMainContext(for coordinator: NSPersistentStoreCoordinator) throws -> NSManagedObjectContext {
  let writer = NSManagedObjectContext(concurrencyType: .mainQueueConcurrencyType)
  writer.name = "Writer"
  writer.persistentStoreCoordinator = coordinator
  let main = NSManagedObjectContext(concurrencyType: .mainQueueConcurrencyType)
  main.name = "Main"
  main.parent = writer
  return main
}
