// A wrong attempt at exercise 04, kept so that .ci/check-exercises.sh proves its check names the mistake:
// the main context gets the writer as its parent, then a coordinator, which replaces the parent.
import ExerciseKit
import Foundation
import ObjectGraph

public func makeMainContext(for coordinator: NSPersistentStoreCoordinator) throws -> NSManagedObjectContext {
  let writer = NSManagedObjectContext(concurrencyType: .privateQueueConcurrencyType)
  writer.persistentStoreCoordinator = coordinator
  let main = NSManagedObjectContext(concurrencyType: .mainQueueConcurrencyType)
  main.parent = writer
  main.persistentStoreCoordinator = coordinator
  return main
}
