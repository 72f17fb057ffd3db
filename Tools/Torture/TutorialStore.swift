import Foundation
import NotesModel
import ObjectGraph

/// What every harness starts from: the tutorial's model, and this program to start children with.
enum TutorialStore {
  /// A private-queue context on a coordinator of its own, with the tutorial's model, over the SQLite store
  /// at `store` in `journalMode` (WAL or DELETE).
  static func context(store: URL, journalMode: String) throws -> NSManagedObjectContext {
    let coordinator = NSPersistentStoreCoordinator(managedObjectModel: try model())
    try coordinator.addPersistentStore(
      type: .sqlite, at: store,
      options: [
        NSMigratePersistentStoresAutomaticallyOption: true, NSInferMappingModelAutomaticallyOption: true,
        NSSQLitePragmasOption: ["journal_mode": journalMode],
      ])
    let context = NSManagedObjectContext(concurrencyType: .privateQueueConcurrencyType)
    context.persistentStoreCoordinator = coordinator
    return context
  }

  /// The tutorial's model, read from its bundle.
  static func model() throws -> NSManagedObjectModel {
    guard let modelURL = NotesModel.bundle.url(forResource: NotesModel.name, withExtension: "xcdatamodeld") else {
      throw CocoaError(.coreData, userInfo: [NSLocalizedDescriptionKey: "The tutorial's model is missing from its bundle."])
    }
    return try NSManagedObjectModel(loadingContentsOf: modelURL)
  }

  /// A child process of this program, running `arguments` (a subcommand and its options).
  static func child(_ arguments: [String]) -> Process {
    let child = Process()
    child.executableURL = URL(fileURLWithPath: CommandLine.arguments[0]).standardizedFileURL
    child.arguments = arguments
    return child
  }
}
