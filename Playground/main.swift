// The workshop's playground: the place to try what a chapter shows. Run it with `swift run playground`.
//
// It starts with the tutorial's model, a store in a temporary folder and one private-queue context, then
// saves a note and reads it back. Change anything below the line "Try things here": nothing checks this
// file, and `git checkout Playground/main.swift` brings it back. Playground/README.md has ideas.
import Foundation
import NotesModel
import ObjectGraph

/// Stops the playground with a message instead of a crash.
func stop(_ message: String) -> Never {
  FileHandle.standardError.write(Data("playground: \(message)\n".utf8))
  exit(1)
}

do {
  // The stack: the model, a coordinator, a store file, one context.
  guard let modelURL = NotesModel.bundle.url(forResource: NotesModel.name, withExtension: "xcdatamodeld") else {
    stop("the tutorial's model \(NotesModel.name).xcdatamodeld is not in NotesModel's bundle")
  }
  guard let model = NSManagedObjectModel(contentsOf: modelURL) else {
    stop("the tutorial's model at \(modelURL.path) cannot be read (the reason is logged above)")
  }
  let coordinator = NSPersistentStoreCoordinator(managedObjectModel: model)
  let folder = FileManager.default.temporaryDirectory.appendingPathComponent("playground-\(UUID().uuidString)")
  try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
  let storeURL = folder.appendingPathComponent("Playground.sqlite")
  _ = try coordinator.addPersistentStore(type: .sqlite, at: storeURL)
  let context = NSManagedObjectContext(concurrencyType: .privateQueueConcurrencyType)
  context.name = "Playground"
  context.persistentStoreCoordinator = coordinator

  // Try things here. A private-queue context is used inside its performAndWait { }.
  try context.performAndWait {
    let note = Note(context: context)
    note.title = "Hello from the playground"
    note.createdAt = Date()
    print("A new note has a temporary ID: \(note.objectID) (isTemporaryID: \(note.objectID.isTemporaryID))")
    try context.save()
    print("After the save, a permanent one: \(note.objectID)")

    let request = NSFetchRequest<Note>(entityName: "Note")
    request.sortDescriptors = [NSSortDescriptor(key: "title", ascending: true)]
    let titles = try context.fetch(request).map(\.title)
    print("The store holds \(titles.count) note\(titles.count == 1 ? "" : "s"): \(titles)")
  }
  print("The store is \(storeURL.path); open it with sqlite3 to look inside.")
} catch let error as NSError where error.domain == NSCocoaErrorDomain {
  stop(error.localizedDescription)
} catch {
  stop("\(error)")
}
