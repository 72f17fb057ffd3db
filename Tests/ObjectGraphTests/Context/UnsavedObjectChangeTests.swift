import EngineTestSupport
import Foundation
import ObjectGraph
import TestSupport
import Testing

@Suite("Changes to a new, unsaved object in objects-did-change", .temporaryFolders)
struct UnsavedObjectChangeTests {
  @Test("Once announced as inserted, a new object's attribute and relationship changes are announced as updates")
  func announcedInsertChangesAreUpdates() throws {
    let stack = try StoreStack()
    let context = stack.context
    let rounds = Shared<[String]>([])
    let token = NotificationCenter.default.addObserver(
      forName: .NSManagedObjectContextObjectsDidChange, object: context, queue: nil
    ) { notification in
      func titles(_ key: String) -> String {
        let objects = notification.userInfo?[key] as? Set<NSManagedObject> ?? []
        return objects.compactMap { ($0 as? Note)?.title ?? ($0 as? Notebook)?.name }.sorted().joined(separator: ",")
      }
      rounds.withLock { $0.append("inserted [\(titles(NSInsertedObjectsKey))] updated [\(titles(NSUpdatedObjectsKey))]") }
    }
    defer { NotificationCenter.default.removeObserver(token) }
    context.performAndWait {
      let note = Note(context: context)
      note.title = "draft"
      note.rating = 1
      context.processPendingChanges()
      note.title = "edited"
      context.processPendingChanges()
      let book = Notebook(context: context)
      book.name = "Home"
      context.processPendingChanges()
      note.notebook = book
      context.processPendingChanges()
    }
    #expect(
      rounds.withLock { $0 } == [
        "inserted [draft] updated []", "inserted [] updated [edited]", "inserted [Home] updated []",
        "inserted [] updated [Home,edited]",
      ])
  }
}
