import Dispatch
import EngineTestSupport
import Foundation
import NotesModel
import ObjectGraph
import Stage4
import TestSupport
import Testing

/// A stack of the test's own, made on the main queue, returned once its store has loaded. In memory
/// unless a folder is given: every test builds its stack, nothing is shared.
@MainActor
func makeStack(in folder: TemporaryFolder? = nil) async throws -> PersistenceController {
  let loaded = Signal<Result<Void, PersistenceControllerError>>()
  let controller = PersistenceController(storeFolder: folder?.url, storeType: folder == nil ? .inMemory : .sqlite) {
    loaded.fulfil($0)
  }
  try await loaded.wait("the store to load").get()
  return controller
}

/// A new note titled `title`, with the values the model requires, in `context`.
@discardableResult
func newNote(_ title: String, in context: NSManagedObjectContext) -> Note {
  let note = Note(context: context)
  note.title = title
  note.createdAt = Date(timeIntervalSinceReferenceDate: 800_000_000)
  return note
}

/// Drafts named "Note 1" to "Note `count`", a second apart.
func drafts(_ count: Int, from first: Int = 1) -> [NoteDraft] {
  (first..<first + count).map { number in
    NoteDraft(
      title: "Note \(number)", body: "Imported note \(number).",
      createdAt: Date(timeIntervalSinceReferenceDate: 800_000_000 + Double(number)))
  }
}

/// The titles of the notes in the store file in `folder`, read through a coordinator of their own (what
/// a relaunch of the app would find), sorted.
func titlesOnDisk(in folder: TemporaryFolder) throws -> [String] {
  try titlesOnDisk(at: folder.appending("\(NotesModel.name).sqlite"))
}

/// The titles of the notes in the store file at `storeURL`, sorted.
func titlesOnDisk(at storeURL: URL) throws -> [String] {
  let context = try contextOfItsOwn(.privateQueue, storeAt: storeURL)
  return try context.performAndWait {
    try context.fetch(NSFetchRequest<Note>(entityName: "Note")).map(\.title).sorted()
  }
}

/// A root context on a coordinator of its own over the tutorial's model, with the store file at
/// `storeURL` (another app on the same file, or a relaunch), or an in-memory store when it is `nil`.
func contextOfItsOwn(_ type: NSManagedObjectContext.ConcurrencyType, storeAt storeURL: URL?) throws -> NSManagedObjectContext {
  try StoreStack(model: try TutorialStack.model(), type: storeURL == nil ? .inMemory : .sqlite, at: storeURL, contextType: type).context
}

/// Waits, polling every 10 ms (the main queue runs meanwhile), until `condition` holds; throws naming
/// `what` after 60 s. It returns as soon as the condition holds: the long limit is for a loaded machine,
/// where other tests on the main actor can keep these polls from running for tens of seconds.
@MainActor
func eventually(_ what: String, _ condition: () throws -> Bool) async throws {
  let deadline = ContinuousClock.now + .seconds(60)
  while ContinuousClock.now < deadline {
    if try condition() { return }
    try await Task.sleep(for: .milliseconds(10))
  }
  throw StillWaiting(what: what)
}

/// What ``eventually(_:_:)`` throws when its condition never held.
struct StillWaiting: Error, CustomStringConvertible {
  let what: String
  var description: String { "Waited 60 s for \(what), in vain." }
}

/// Records each change of a ``NoteList``'s count, and on which queue it came.
@MainActor
final class CountLog {
  private(set) var counts: [Int] = []
  private(set) var allOnMainQueue = true

  init(_ list: NoteList) {
    list.onChange = { [weak self] list in
      self?.counts.append(list.count)
      if !MainQueueProbe.isOnMainQueue { self?.allOnMainQueue = false }
    }
  }
}
