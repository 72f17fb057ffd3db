import Foundation
import NotesModel
import ObjectGraph
import Stage4

/// The notes the stall and save benchmarks save, the same through every stage: stage 4's importer gets
/// them as drafts, stages 1 to 3 insert the same values in their main context.
enum NoteDrafts {
  /// Note `number`'s values (as stage4-demo's): a title, a text, a date.
  @Sendable
  static func draft(_ number: Int) -> NoteDraft {
    NoteDraft(
      title: "Imported note \(number)", body: "Text of imported note \(number).",
      createdAt: Date(timeIntervalSinceReferenceDate: 800_000_000 + Double(number)))
  }

  /// Inserts notes 1 to `count` in `context`, with the values `NoteImporter` gives a note.
  @MainActor
  static func insert(_ count: Int, into context: NSManagedObjectContext) {
    for number in 1...count { insertNote(number, into: context) }
  }

  /// The same, returning the notes in the order they were inserted (not for timed inserts: the array is
  /// work of its own).
  @MainActor
  static func insertKeeping(_ count: Int, into context: NSManagedObjectContext) -> [Note] {
    var notes: [Note] = []
    notes.reserveCapacity(count)
    for number in 1...count { notes.append(insertNote(number, into: context)) }
    return notes
  }

  @MainActor @discardableResult @inline(__always)
  private static func insertNote(_ number: Int, into context: NSManagedObjectContext) -> Note {
    let values = draft(number)
    let note = Note(context: context)
    note.title = values.title
    note.body = values.body
    note.createdAt = values.createdAt
    note.modifiedAt = values.createdAt
    return note
  }

  /// The notes in the store at `url`, counted by a coordinator of its own (not timed).
  static func count(at url: URL) throws -> Int {
    guard let modelURL = NotesModel.bundle.url(forResource: NotesModel.name, withExtension: "xcdatamodeld") else {
      throw BenchmarkError("the tutorial model \(NotesModel.name).xcdatamodeld is not in the NotesModel bundle")
    }
    guard let model = NSManagedObjectModel(contentsOf: modelURL) else {
      throw BenchmarkError("the tutorial model at \(modelURL.path) cannot be read")
    }
    let coordinator = NSPersistentStoreCoordinator(managedObjectModel: model)
    try coordinator.addPersistentStore(type: .sqlite, at: url)
    defer { for store in coordinator.persistentStores { try? coordinator.remove(store) } }
    let context = NSManagedObjectContext(concurrencyType: .privateQueueConcurrencyType)
    context.persistentStoreCoordinator = coordinator
    return try context.performAndWait { try context.count(for: NSFetchRequest<Note>(entityName: "Note")) }
  }
}
