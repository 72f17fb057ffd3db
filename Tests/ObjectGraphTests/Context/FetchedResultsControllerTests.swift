import Foundation
import TestSupport
import Testing

@testable import ObjectGraph

/// Writes down what a fetched results controller tells its delegate, one line per call.
private final class Recorder: NSFetchedResultsControllerDelegate {
  var lines: [String] = []

  func controllerWillChangeContent(_ controller: AnyFetchedResultsController) { lines.append("will") }

  func controller(
    _ controller: AnyFetchedResultsController, didChange object: NSManagedObject, at indexPath: IndexPath?,
    for type: NSFetchedResultsChangeType, newIndexPath: IndexPath?
  ) {
    let title = object.value(forKey: "title") as? String ?? "?"
    lines.append("\(type) \(title) \(Self.text(indexPath))>\(Self.text(newIndexPath))")
  }

  func controller(
    _ controller: AnyFetchedResultsController, didChange section: FetchedResultsSection, atSectionIndex sectionIndex: Int,
    for type: NSFetchedResultsChangeType
  ) {
    lines.append("section \(type) \(section.name) \(sectionIndex)")
  }

  func controllerDidChangeContent(_ controller: AnyFetchedResultsController) { lines.append("did") }

  /// Takes the lines recorded so far.
  func take() -> [String] {
    defer { lines = [] }
    return lines
  }

  private static func text(_ path: IndexPath?) -> String {
    path.map { "\($0.section).\($0.row)" } ?? "-"
  }
}

@Suite("Fetched results controller", .temporaryFolders)
struct FetchedResultsControllerTests {
  /// Notes a and c in Work, b in Home; a controller over notes, sectioned by notebook name.
  private func setUp(_ stack: Stack, limit: Int = 0) throws -> (NSFetchedResultsController<Note>, Recorder, [String: Notebook]) {
    try stack.context.performAndWait {
      var books: [String: Notebook] = [:]
      for name in ["Work", "Home"] {
        let book = Notebook(context: stack.context)
        book.name = name
        books[name] = book
      }
      for (title, book) in [("a", "Work"), ("b", "Home"), ("c", "Work")] {
        let note = Note(context: stack.context)
        note.title = title
        note.notebook = books[book]
      }
      try stack.context.save()
      let request = NSFetchRequest<Note>(entityName: "Note")
      request.sortDescriptors = [NSSortDescriptor(key: "notebook.name", ascending: true), NSSortDescriptor(key: "title", ascending: true)]
      request.fetchLimit = limit
      let controller = NSFetchedResultsController(
        fetchRequest: request, managedObjectContext: stack.context, sectionNameKeyPath: "notebook.name", cacheName: nil)
      let recorder = Recorder()
      controller.delegate = recorder
      try controller.performFetch()
      return (controller, recorder, books)
    }
  }

  private func layout(_ controller: AnyFetchedResultsController) -> [String] {
    (controller.sections ?? []).map { section in
      section.name + ":" + section.objects.map { $0.value(forKey: "title") as? String ?? "?" }.joined(separator: ",")
    }
  }

  @Test("Sections, index paths and lookups after performFetch")
  func initialResults() throws {
    let stack = try Stack()
    let (controller, recorder, _) = try setUp(stack)
    try stack.context.performAndWait {
      #expect(layout(controller) == ["Home:b", "Work:a,c"])
      #expect(controller.fetchedObjects?.map(\.title) == ["b", "a", "c"])
      let c = try controller.object(at: IndexPath(row: 1, section: 1))
      #expect(c.title == "c")
      #expect(controller.indexPath(forObject: c) == IndexPath(row: 1, section: 1))
      #expect(controller.sections?[1].numberOfObjects == 2 && controller.sections?[1].indexTitle == "W")
      #expect(controller.sectionIndexTitles == ["H", "W"])
      #expect(controller.section(forSectionIndexTitle: "W", at: 0) == 1)
      #expect(recorder.take().isEmpty)
    }
  }

  @Test("Inserts, deletes, moves and updates are reported with the index paths a list needs")
  func objectChanges() throws {
    let stack = try Stack()
    let (controller, recorder, books) = try setUp(stack)
    let context = stack.context
    try context.performAndWait {
      let d = Note(context: context)
      d.title = "d"
      d.notebook = books["Home"]
      context.processPendingChanges()
      #expect(recorder.take() == ["will", "insert d ->0.1", "did"])

      let a = try controller.object(at: IndexPath(row: 0, section: 1))
      context.delete(a)
      context.processPendingChanges()
      #expect(recorder.take() == ["will", "delete a 1.0>-", "did"])

      let c = try controller.object(at: IndexPath(row: 0, section: 1))
      c.title = "cc"
      context.processPendingChanges()
      #expect(recorder.take() == ["will", "update cc 1.0>-", "did"])

      // b moves to Work, after cc; Home keeps d.
      let b = try controller.object(at: IndexPath(row: 0, section: 0))
      b.notebook = books["Work"]
      b.title = "e"
      context.processPendingChanges()
      #expect(recorder.take() == ["will", "move e 0.0>1.1", "did"])
      #expect(layout(controller) == ["Home:d", "Work:cc,e"])

      // Emptying Home deletes its section; a new notebook's note makes one.
      d.notebook = books["Work"]
      context.processPendingChanges()
      #expect(recorder.take() == ["will", "section delete Home 0", "move d 0.0>0.1", "did"])
      let alpha = Notebook(context: context)
      alpha.name = "Alpha"
      let f = Note(context: context)
      f.title = "f"
      f.notebook = alpha
      context.processPendingChanges()
      #expect(recorder.take() == ["will", "section insert Alpha 0", "insert f ->0.0", "did"])
      #expect(layout(controller) == ["Alpha:f", "Work:cc,d,e"])

      // A change to another entity, or to nothing the request sees, reports nothing.
      books["Work"]?.name = "Work"
      alpha.name = "Alpha"
      context.processPendingChanges()
      #expect(recorder.take().isEmpty)

      // Saving changes nothing the controller shows.
      try context.save()
      #expect(recorder.take().isEmpty)
      #expect(controller.changeTrackingError == nil)
    }
  }

  @Test("A sibling's save, merged into the controller's context, is reported")
  func mergedChanges() throws {
    let stack = try Stack()
    let (controller, recorder, _) = try setUp(stack)
    stack.context.automaticallyMergesChangesFromParent = true
    let other = stack.freshContext()
    try other.performAndWait {
      let request = NSFetchRequest<Notebook>(entityName: "Notebook")
      request.predicate = NSPredicate(format: "name == 'Home'")
      let home = try #require(try other.fetch(request).first)
      let note = Note(context: other)
      note.title = "0"
      note.notebook = home
      try other.save()
    }
    let deadline = Date().addingTimeInterval(10)
    var lines: [String] = []
    while lines.isEmpty && Date() < deadline {
      lines = stack.context.performAndWait { recorder.take() }
      if lines.isEmpty { Thread.sleep(forTimeInterval: 0.01) }
    }
    #expect(lines == ["will", "insert 0 ->0.0", "did"])
    stack.context.performAndWait { #expect(layout(controller) == ["Home:0,b", "Work:a,c"]) }
  }

  @Test("With a limit, an object sorting first pushes the last one out")
  func limitedResults() throws {
    let stack = try Stack()
    let (controller, recorder, books) = try setUp(stack, limit: 2)
    let context = stack.context
    context.performAndWait {
      #expect(layout(controller) == ["Home:b", "Work:a"])
      let early = Note(context: context)
      early.title = "0"
      early.notebook = books["Home"]
      context.processPendingChanges()
      #expect(recorder.take() == ["will", "section delete Work 1", "delete a 1.0>-", "insert 0 ->0.0", "did"])
    }
  }

  @Test("After reset, the results are fetched again and every object is new")
  func afterReset() throws {
    let stack = try Stack()
    let (controller, recorder, _) = try setUp(stack)
    stack.context.performAndWait {
      stack.context.reset()
      let lines = recorder.take()
      #expect(lines.first == "will" && lines.last == "did")
      #expect(lines.filter { $0.hasPrefix("delete") }.count == 3 && lines.filter { $0.hasPrefix("insert") }.count == 3)
      #expect(layout(controller) == ["Home:b", "Work:a,c"])
    }
  }

  @Test("Misuse is refused with what to do: no sort, scattered sections, index paths outside the results")
  func misuse() throws {
    let stack = try Stack()
    _ = try setUp(stack)
    try stack.context.performAndWait {
      let unsorted = NSFetchedResultsController(
        fetchRequest: NSFetchRequest<Note>(entityName: "Note"), managedObjectContext: stack.context, sectionNameKeyPath: nil,
        cacheName: nil)
      _ = expectCode(.invalidValue) { _ = try unsorted.object(at: IndexPath(row: 0, section: 0)) }
      let noSort = expectCode(.invalidValue) { try unsorted.performFetch() }
      #expect(noSort?.message.contains("sort descriptors") == true)

      let request = NSFetchRequest<Note>(entityName: "Note")
      request.sortDescriptors = [NSSortDescriptor(key: "title", ascending: true)]
      let scattered = NSFetchedResultsController(
        fetchRequest: request, managedObjectContext: stack.context, sectionNameKeyPath: "notebook.name", cacheName: nil)
      let error = expectCode(.invalidValue) { try scattered.performFetch() }
      #expect(error?.message.contains("first sort descriptor") == true)

      let plain = NSFetchedResultsController(
        fetchRequest: request, managedObjectContext: stack.context, sectionNameKeyPath: nil, cacheName: "Notes")
      try plain.performFetch()
      #expect(plain.sections?.count == 1 && plain.sections?[0].name == "" && plain.cacheName == "Notes")
      let outside = expectCode(.invalidValue) { _ = try plain.object(at: IndexPath(row: 3, section: 0)) }
      #expect(outside?.message.contains("1 section(s) holding 3") == true)
    }
  }
}
