// The concurrency rules, rule 5: a managed object returned from an async perform. This file does not compile, on
// purpose: the docs tests build it and check that Swift 6 refuses it with the error the page quotes.
import NotesModel
import ObjectGraph

// 2. An object returned from an async perform.
func firstNote(in context: NSManagedObjectContext) async throws -> Note? {
  try await context.perform {
    try context.fetch(NSFetchRequest<Note>(entityName: "Note")).first
  }
}
