// The concurrency rules, rule 5: a managed object captured by perform's closure. This file does not compile, on
// purpose: the docs tests build it and check that Swift 6 refuses it with the error the page quotes.
import NotesModel
import ObjectGraph

// 1. An object captured by perform's closure.
func showTitle(of note: Note, on context: NSManagedObjectContext) {
  context.perform {
    print(note.title)
  }
}
