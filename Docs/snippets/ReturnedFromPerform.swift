// The concurrency rules, rule 5: a managed object returned from an async perform. This file compiles, as it does
// with Core Data: the docs tests check that it does, and the page says why the object is still off its queue.
import NotesModel
import ObjectGraph

// 3. An object returned from an async perform: this one compiles.
func firstNote(in context: NSManagedObjectContext) async throws -> Note? {
  try await context.perform {
    try context.fetch(NSFetchRequest<Note>(entityName: "Note")).first
  }
}
