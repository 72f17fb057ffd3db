// Chapter 0: a note handed to another queue, and its ID handed instead. This file does not compile, on
// purpose: the docs tests build it and check that Swift 6 refuses the first function with the error the
// chapter quotes.
import NotesModel
import ObjectGraph

// Does not compile: a Note belongs to its context's queue.
func showTitle(of note: Note, on background: NSManagedObjectContext) {
  background.perform {
    print(note.title)
  }
}

// Compiles: hand over the ID, and look the note up on the other side.
func showTitle(ofNoteWith id: NSManagedObjectID, on background: NSManagedObjectContext) {
  background.perform {
    if let note = try? background.existingObject(with: id) as? Note {
      print(note.title)
    }
  }
}
