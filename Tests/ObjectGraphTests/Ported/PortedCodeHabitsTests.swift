import Dispatch
import EngineTestSupport
import Foundation
import TestSupport
import Testing

@testable import ObjectGraph

/// Writes down what a fetched results controller tells its delegate, one line per call; a section's line
/// says how many objects its section info holds.
private final class SectionRecorder: NSObject, NSFetchedResultsControllerDelegate {
  var lines: [String] = []

  func controller(
    _ controller: NSFetchedResultsController<NSFetchRequestResult>, didChange anObject: Any, at indexPath: IndexPath?,
    for type: NSFetchedResultsChangeType, newIndexPath: IndexPath?
  ) {
    let title = (anObject as? NSManagedObject)?.value(forKey: "title") as? String ?? "?"
    lines.append("\(type) \(title) \(Self.text(indexPath))>\(Self.text(newIndexPath))")
  }

  func controller(
    _ controller: NSFetchedResultsController<NSFetchRequestResult>, didChange sectionInfo: NSFetchedResultsSectionInfo,
    atSectionIndex sectionIndex: Int, for type: NSFetchedResultsChangeType
  ) {
    lines.append("section \(type) \(sectionInfo.name) \(sectionIndex) holding \(sectionInfo.numberOfObjects)")
  }

  func take() -> [String] {
    defer { lines = [] }
    return lines
  }

  private static func text(_ path: IndexPath?) -> String {
    path.map { "\($0.section).\($0.row)" } ?? "-"
  }
}

/// A book with a computed property read by key, as Core Data's key-value coding reads one.
final class Book: NSManagedObject {
  @ObjectGraphManaged var title: String?
  @ObjectGraphManaged var shelf: Shelf?

  /// The first letter of the title, capitalized.
  var firstInitial: String { title?.first.map { String($0).uppercased() } ?? "" }
  /// The shelf, reached by another name: a computed key may lead on through a related object.
  var place: Shelf? { shelf }

  override func value(forUndefinedKey key: String) throws -> Any? {
    switch key {
    case "firstInitial": firstInitial
    case "place": place
    default: try super.value(forUndefinedKey: key)
    }
  }
}

final class Shelf: NSManagedObject {
  @ObjectGraphManaged var name: String?
}

/// What code written for Core Data relies on (issue 21): a parent announcing its child's saves, a fetched
/// results controller as UIKit code drives it, a context before its store is added.
@Suite("Ported code's habits", .temporaryFolders)
struct PortedCodeHabitsTests {
  /// A main-queue context over an in-memory store, and a private child of it.
  private func mainAndChild() throws -> (main: NSManagedObjectContext, child: NSManagedObjectContext) {
    let main = try StoreStack(model: try Models.notes(), at: nil, contextType: .mainQueue).context
    let child = NSManagedObjectContext(concurrencyType: .privateQueueConcurrencyType)
    child.parent = main
    return (main, child)
  }

  // MARK: - A parent announces what a child's save pushed into it

  @Test("A child's save makes its parent post objects-did-change during the save, on the parent's queue")
  func parentAnnouncesChildSave() async throws {
    let (main, child) = try mainAndChild()
    let key = NSManagedObjectContext.NotificationKey.self
    let log = NotificationLog(NSManagedObjectContext.didChangeObjectsNotification, object: main) { note in
      let info = note.userInfo ?? [:]
      let counts = [key.insertedObjects, key.updatedObjects, key.deletedObjects].map {
        (info[$0.rawValue] as? Set<NSManagedObject>)?.count ?? 0
      }
      // A deleted object the parent never saved leaves it at once (its context is nil by now).
      let objects = [key.insertedObjects, key.updatedObjects].flatMap {
        info[$0.rawValue] as? Set<NSManagedObject> ?? []
      }
      let ownObjects = objects.allSatisfy { $0.managedObjectContext === main }
      return "\(counts) main queue: \(MainQueueProbe.isOnMainQueue) own objects: \(ownObjects)"
    }
    try child.performAndWait {
      let note = Note(context: child)
      note.title = "from the child"
      try child.save()
    }
    // Posted inside the child's save: nothing else has happened since.
    #expect(log.entries == ["[1, 0, 0] main queue: true own objects: true"])

    // The parent's own save then has nothing new to announce.
    try await main.perform { try main.save() }
    try await drainMainQueue()
    #expect(log.entries.count == 1)

    // An update and a delete from a child reach the parent's observers the same way.
    log.removeAll()
    try child.performAndWait {
      let notes = try child.fetch(NSFetchRequest<Note>(entityName: "Note"))
      notes.first?.title = "renamed by the child"
      let other = Note(context: child)
      other.title = "to delete"
      try child.save()
      child.delete(other)
      try child.save()
    }
    #expect(
      log.entries == ["[1, 1, 0] main queue: true own objects: true", "[0, 0, 1] main queue: true own objects: true"])
  }

  @Test("A fetched results controller on the main context follows a worker's save at once")
  func controllerOnMainFollowsChildSave() throws {
    let (main, child) = try mainAndChild()
    let recorder = SectionRecorder()
    let controller = try main.performAndWait {
      let request = NSFetchRequest<Note>(entityName: "Note")
      request.sortDescriptors = [NSSortDescriptor(key: "title", ascending: true)]
      let controller = NSFetchedResultsController(
        fetchRequest: request, managedObjectContext: main, sectionNameKeyPath: nil, cacheName: nil)
      controller.delegate = recorder
      try controller.performFetch()
      return controller
    }
    try child.performAndWait {
      let note = Note(context: child)
      note.title = "imported"
      try child.save()
    }
    main.performAndWait {
      #expect(recorder.take() == ["insert imported ->0.0"])
      #expect(controller.fetchedObjects?.map(\.title) == ["imported"])
    }
  }

  // MARK: - The fetched results controller as UIKit code drives it

  /// Notes x and y in section A, z in section B (sectioned by `body`).
  private func sectionedByBody(_ stack: StoreStack) throws -> (NSFetchedResultsController<Note>, SectionRecorder, Note) {
    try stack.context.performAndWait {
      var z: Note?
      for (title, section) in [("x", "A"), ("y", "A"), ("z", "B")] {
        let note = Note(context: stack.context)
        note.title = title
        note.body = section
        if title == "z" { z = note }
      }
      try stack.context.save()
      let request = NSFetchRequest<Note>(entityName: "Note")
      request.sortDescriptors = [NSSortDescriptor(key: "body", ascending: true), NSSortDescriptor(key: "title", ascending: true)]
      let controller = NSFetchedResultsController(
        fetchRequest: request, managedObjectContext: stack.context, sectionNameKeyPath: "body", cacheName: nil)
      let recorder = SectionRecorder()
      controller.delegate = recorder
      try controller.performFetch()
      guard let z else { throw ObjectGraphError(.invalidValue, "no z") }
      return (controller, recorder, z)
    }
  }

  @Test("An object whose section changes is a move from its old index path to its new one")
  func sectionChangeIsAMove() throws {
    let stack = try StoreStack()
    let (controller, recorder, z) = try sectionedByBody(stack)
    stack.context.performAndWait {
      z.body = "C"
      stack.context.processPendingChanges()
      #expect(
        recorder.take() == [
          "section delete B 1 holding 0", "section insert C 1 holding 1", "move z 1.0>1.0",
        ])
      #expect(controller.sections?.map(\.name) == ["A", "C"])
    }
  }

  @Test("A deleted section's info holds no objects")
  func deletedSectionIsEmpty() throws {
    let stack = try StoreStack()
    let (controller, recorder, z) = try sectionedByBody(stack)
    stack.context.performAndWait {
      stack.context.delete(z)
      stack.context.processPendingChanges()
      #expect(controller.changeTrackingError == nil)
      #expect(recorder.take() == ["section delete B 1 holding 0", "delete z 1.0>-"])
    }
  }

  private func library() throws -> StoreStack {
    let book = NSEntityDescription(
      name: "Book", managedObjectClass: Book.self,
      properties: [
        .attribute(NSAttributeDescription(name: "title", type: .string)),
        .relationship(NSRelationshipDescription(name: "shelf", destination: "Shelf", inverse: "books")),
      ])
    let shelf = NSEntityDescription(
      name: "Shelf", managedObjectClass: Shelf.self,
      properties: [
        .attribute(NSAttributeDescription(name: "name", type: .string)),
        .relationship(NSRelationshipDescription(name: "books", destination: "Book", inverse: "shelf", toMany: true)),
      ])
    return try StoreStack(model: try NSManagedObjectModel(entities: [book, shelf]))
  }

  @Test("A section key path may name a computed property the subclass answers by key")
  func computedSectionKeyPath() throws {
    let stack = try library()
    try stack.context.performAndWait {
      let shelf = Shelf(context: stack.context)
      shelf.name = "Top"
      for title in ["anna karenina", "Adam Bede", "Beloved", "emma"] {
        let book = Book(context: stack.context)
        book.title = title
        book.shelf = shelf
      }
      try stack.context.save()
      let request = NSFetchRequest<Book>(entityName: "Book")
      request.sortDescriptors = [NSSortDescriptor(key: "title", ascending: true, selector: Selector("caseInsensitiveCompare:"))]
      let controller = NSFetchedResultsController(
        fetchRequest: request, managedObjectContext: stack.context, sectionNameKeyPath: "firstInitial", cacheName: nil)
      try controller.performFetch()
      #expect(controller.sections?.map(\.name) == ["A", "B", "E"])
      #expect(controller.sections?.map(\.numberOfObjects) == [2, 1, 1])

      // value(forKey:), in-memory predicates and key paths through a computed to-one ask the same hook.
      let book = controller.object(at: IndexPath(row: 0, section: 1))
      #expect(book.value(forKey: "firstInitial") as? String == "B")
      #expect(NSPredicate(format: "firstInitial == 'B'").evaluate(with: book))
      #expect(NSPredicate(format: "place.name == 'Top'").evaluate(with: book))

      // A key the class does not answer either is still error 900003, naming the hook.
      let unknown = NSFetchedResultsController(
        fetchRequest: request, managedObjectContext: stack.context, sectionNameKeyPath: "lastInitial", cacheName: nil)
      let error = expectCode(.unknownKey) { try unknown.performFetch() }
      #expect(error?.message.contains("value(forUndefinedKey:)") == true)
    }
  }

  // MARK: - Smaller things ported code asks for

  @Test("sortDescriptors may be set to nil: no order, read back as empty")
  func sortDescriptorsNil() throws {
    let stack = try StoreStack()
    let request = NSFetchRequest<Note>(entityName: "Note")
    request.sortDescriptors = [NSSortDescriptor(key: "title", ascending: true)]
    request.sortDescriptors = nil
    #expect(request.sortDescriptors == nil)
    try stack.context.performAndWait {
      let note = Note(context: stack.context)
      note.title = "n"
      try stack.context.save()
      #expect(try stack.context.fetch(request).count == 1)
    }
  }

  @Test("Coordinators and contexts are equal and hashed by identity, as NSObjects are")
  func identityEquality() throws {
    let stack = try StoreStack()
    let other = NSPersistentStoreCoordinator(managedObjectModel: stack.model)
    #expect(stack.coordinator == stack.coordinator)
    #expect(stack.coordinator != other)
    #expect(Set([stack.coordinator, stack.coordinator, other]).count == 2)
    let second = stack.freshContext()
    #expect(stack.context == stack.context)
    #expect(stack.context != second)
    #expect(Set([stack.context, second, stack.context]).count == 2)
    stack.context.performAndWait {
      let note = Note(context: stack.context)
      #expect(note.managedObjectContext == stack.context)
    }
  }

  @Test("Store types read as Core Data's strings beside the enum")
  func storeTypeStrings() throws {
    #expect(NSPersistentStore.StoreType.sqlite.rawValue == "SQLite")
    #expect(NSPersistentStore.StoreType.inMemory.rawValue == "InMemory")
    #expect(NSPersistentStore.StoreType(rawValue: "SQLite") == .sqlite)
    #expect(NSPersistentStore.StoreType(rawValue: "InMemory") == .inMemory)
    let stack = try StoreStack(type: .inMemory)
    #expect(stack.coordinator.persistentStores.first?.type == "InMemory")
  }

  // MARK: - A context before its store is added

  @Test("Before a store is added, a count is refused as a fetch is (900006), in a root and in a child")
  func noStoreYet() throws {
    let coordinator = NSPersistentStoreCoordinator(managedObjectModel: try Models.notes())
    let root = NSManagedObjectContext(concurrencyType: .privateQueueConcurrencyType)
    root.persistentStoreCoordinator = coordinator
    let child = NSManagedObjectContext(concurrencyType: .privateQueueConcurrencyType)
    child.parent = root
    for context in [root, child] {
      context.performAndWait {
        let request = NSFetchRequest<Note>(entityName: "Note")
        _ = expectCode(.noPersistentStore) { _ = try context.fetch(request) }
        _ = expectCode(.noPersistentStore) { _ = try context.count(for: request) }
        let ids = NSFetchRequest<NSManagedObjectID>(entityName: "Note")
        ids.resultType = .managedObjectIDResultType
        _ = expectCode(.noPersistentStore) { _ = try context.fetch(ids) }
      }
    }
    // Once the store is there, both answer.
    try coordinator.addPersistentStore(type: .inMemory, at: URL(fileURLWithPath: "/dev/null"))
    let answers = try root.performAndWait {
      (try root.count(for: NSFetchRequest<Note>(entityName: "Note")), try root.fetch(NSFetchRequest<Note>(entityName: "Note")).count)
    }
    #expect(answers == (0, 0))
  }
}
