// Chapter 4: the same hand-over, done right: the object's ID crosses, and the worker looks the note up in
// its own context. Tests/DocsTests/CompilerErrorTests.swift checks that this file compiles.
import ObjectGraph

func rename(_ note: NSManagedObject, in worker: NSManagedObjectContext) {
  let noteID = note.objectID  // an ID is Sendable: it may cross to any queue
  worker.perform {
    guard let mine = try? worker.existingObject(with: noteID) else { return }  // gone meanwhile: nothing to do
    mine.setValue("Renamed", forKey: "title")
    try? worker.save()
  }
}
