// The concurrency rules, rule 5: a managed object sent to a detached task. This file does not compile, on
// purpose: the docs tests build it and check that Swift 6 refuses it with the error the page quotes.
import NotesModel
import ObjectGraph

// 2. An object sent to a detached task.
func logLater(_ note: Note) {
  Task.detached {
    print(note.title)
  }
}
