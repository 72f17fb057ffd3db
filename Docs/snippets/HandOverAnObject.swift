// Chapter 4: handing a managed object to a worker's queue. This file does not compile, on purpose:
// Tests/DocsTests/CompilerErrorTests.swift builds it and checks that Swift 6 refuses it with the error the
// chapter quotes.
import ObjectGraph

func rename(_ note: NSManagedObject, in worker: NSManagedObjectContext) {
  worker.perform {
    note.setValue("Renamed", forKey: "title")  // the main context's object, on the worker's queue
    try? worker.save()
  }
}
