import EngineTestSupport
import Foundation
import ObjectGraph
import TestSupport
import Testing

/// Writes down what a fetched results controller tells its delegate, one line per call.
protocol LineRecorder: NSFetchedResultsControllerDelegate {
  var lines: [String] { get set }
}

extension LineRecorder {
  /// Takes the lines recorded so far.
  func take() -> [String] {
    defer { lines = [] }
    return lines
  }

  static func line(_ anObject: Any, _ type: NSFetchedResultsChangeType, _ from: IndexPath?, _ to: IndexPath?) -> String {
    func text(_ path: IndexPath?) -> String { path.map { "\($0.section).\($0.row)" } ?? "-" }
    return "\(type) \((anObject as? Note)?.title ?? "?") \(text(from))>\(text(to))"
  }
}

/// A delegate written as Apple's sample code and Xcode's templates write one:
/// `NSFetchedResultsController<NSFetchRequestResult>`, `NSFetchedResultsSectionInfo` without `any`.
private final class Recorder: NSObject, LineRecorder {
  var lines: [String] = []
  /// What the controller handed in each call, to check it is one and the same.
  var handed: [NSFetchedResultsController<NSFetchRequestResult>] = []

  func controllerWillChangeContent(_ controller: NSFetchedResultsController<NSFetchRequestResult>) {
    handed.append(controller)
    lines.append("will")
  }

  func controller(
    _ controller: NSFetchedResultsController<NSFetchRequestResult>, didChange anObject: Any, at indexPath: IndexPath?,
    for type: NSFetchedResultsChangeType, newIndexPath: IndexPath?
  ) {
    handed.append(controller)
    lines.append(Self.line(anObject, type, indexPath, newIndexPath))
  }

  func controller(
    _ controller: NSFetchedResultsController<NSFetchRequestResult>, didChange sectionInfo: NSFetchedResultsSectionInfo,
    atSectionIndex sectionIndex: Int, for type: NSFetchedResultsChangeType
  ) {
    handed.append(controller)
    lines.append("section \(type) \(sectionInfo.name) \(sectionIndex)")
  }

  func controllerDidChangeContent(_ controller: NSFetchedResultsController<NSFetchRequestResult>) {
    handed.append(controller)
    lines.append("did")
  }
}

/// The same delegate in today's spelling: `any NSFetchRequestResult`, `any NSFetchedResultsSectionInfo`.
private final class AnyRecorder: NSObject, LineRecorder {
  var lines: [String] = []

  func controllerWillChangeContent(_ controller: NSFetchedResultsController<any NSFetchRequestResult>) { lines.append("will") }

  func controller(
    _ controller: NSFetchedResultsController<any NSFetchRequestResult>, didChange anObject: Any, at indexPath: IndexPath?,
    for type: NSFetchedResultsChangeType, newIndexPath: IndexPath?
  ) {
    lines.append(Self.line(anObject, type, indexPath, newIndexPath))
  }

  func controller(
    _ controller: NSFetchedResultsController<any NSFetchRequestResult>, didChange sectionInfo: any NSFetchedResultsSectionInfo,
    atSectionIndex sectionIndex: Int, for type: NSFetchedResultsChangeType
  ) {
    lines.append("section \(type) \(sectionInfo.name) \(sectionIndex)")
  }

  func controllerDidChangeContent(_ controller: NSFetchedResultsController<any NSFetchRequestResult>) { lines.append("did") }
}

/// Which of the two spellings of the delegate a test runs with.
enum DelegateSpelling: String, CaseIterable, CustomTestStringConvertible {
  case plain = "NSFetchedResultsController<NSFetchRequestResult>"
  case any = "NSFetchedResultsController<any NSFetchRequestResult>"

  var testDescription: String { rawValue }

  func recorder() -> any LineRecorder {
    switch self {
    case .plain: Recorder()
    case .any: AnyRecorder()
    }
  }
}

@Suite("Fetched results controller", .temporaryFolders)
struct FetchedResultsControllerTests {
  /// Notes a and c in Work, b in Home; a controller over notes, sectioned by notebook name.
  private func setUp(_ stack: StoreStack, limit: Int = 0, recorder: any LineRecorder = Recorder()) throws -> (
    NSFetchedResultsController<Note>, any LineRecorder, [String: Notebook]
  ) {
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
      controller.delegate = recorder
      try controller.performFetch()
      return (controller, recorder, books)
    }
  }

  private func layout<Result>(_ controller: NSFetchedResultsController<Result>) -> [String] {
    (controller.sections ?? []).map { section in
      section.name + ":" + (section.objects as? [Note] ?? []).map { $0.title ?? "?" }.joined(separator: ",")
    }
  }

  @Test("Sections, index paths and lookups after performFetch, in Core Data's forms")
  func initialResults() throws {
    let stack = try StoreStack()
    let (controller, recorder, _) = try setUp(stack)
    stack.context.performAndWait {
      #expect(layout(controller) == ["Home:b", "Work:a,c"])
      let fetched: [Note]? = controller.fetchedObjects
      #expect(fetched?.map(\.title) == ["b", "a", "c"])
      let c = controller.object(at: IndexPath(row: 1, section: 1))
      #expect(c.title == "c")
      #expect(controller.indexPath(forObject: c) == IndexPath(row: 1, section: 1))
      #expect(controller.sections?[1].numberOfObjects == 2 && controller.sections?[1].indexTitle == "W")
      #expect((controller.sections?[0].objects as? [Note])?.map(\.title) == ["b"])
      #expect(controller.sectionIndexTitles == ["H", "W"])
      #expect(controller.section(forSectionIndexTitle: "W", at: 0) == 1)
      #expect(controller.sectionIndexTitle(forSectionName: "work") == "W")
      #expect(controller.fetchRequest.entityName == "Note" && controller.sectionNameKeyPath == "notebook.name")
      #expect(controller.managedObjectContext === stack.context && controller.cacheName == nil)
      #expect(recorder.take().isEmpty)
    }
  }

  @Test("Inserts, deletes, moves and updates are reported with the index paths a list needs", arguments: DelegateSpelling.allCases)
  func objectChanges(spelling: DelegateSpelling) throws {
    let stack = try StoreStack()
    let (controller, recorder, books) = try setUp(stack, recorder: spelling.recorder())
    let context = stack.context
    try context.performAndWait {
      let d = Note(context: context)
      d.title = "d"
      d.notebook = books["Home"]
      context.processPendingChanges()
      #expect(recorder.take() == ["will", "insert d ->0.1", "did"])

      let a = controller.object(at: IndexPath(row: 0, section: 1))
      context.delete(a)
      context.processPendingChanges()
      #expect(recorder.take() == ["will", "delete a 1.0>-", "did"])
      #expect(controller.indexPath(forObject: a) == nil)

      let c = controller.object(at: IndexPath(row: 0, section: 1))
      c.title = "cc"
      context.processPendingChanges()
      #expect(recorder.take() == ["will", "update cc 1.0>-", "did"])

      // b moves to Work, after cc; Home keeps d.
      let b = controller.object(at: IndexPath(row: 0, section: 0))
      b.notebook = books["Work"]
      b.title = "e"
      context.processPendingChanges()
      #expect(recorder.take() == ["will", "move e 0.0>1.1", "did"])
      #expect(controller.indexPath(forObject: b) == IndexPath(row: 1, section: 1))
      #expect(controller.indexPath(forObject: d) == IndexPath(row: 0, section: 0))
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

  @Test("The delegate is handed one controller over the same results, equal to the one made")
  func delegatesController() throws {
    let stack = try StoreStack()
    let recorder = Recorder()
    let (controller, _, books) = try setUp(stack, recorder: recorder)
    stack.context.performAndWait {
      let d = Note(context: stack.context)
      d.title = "d"
      d.notebook = books["Home"]
      stack.context.processPendingChanges()
      d.title = "dd"
      stack.context.processPendingChanges()
      #expect(recorder.handed.count == 6)
      guard let handed = recorder.handed.first else { return }
      #expect(recorder.handed.allSatisfy { $0 === handed })
      #expect(handed == controller && controller == handed && handed.hash == controller.hash)
      #expect(
        handed
          != NSFetchedResultsController(
            fetchRequest: controller.fetchRequest, managedObjectContext: stack.context, sectionNameKeyPath: nil, cacheName: nil))
      #expect(handed.sections?.map(\.numberOfObjects) == [2, 2])
      #expect((handed.fetchedObjects as? [Note])?.map(\.title) == ["b", "dd", "a", "c"])
      #expect((handed.object(at: IndexPath(row: 1, section: 0)) as? Note) === d)
      #expect(handed.indexPath(forObject: d) == IndexPath(row: 1, section: 0))
      #expect(handed.sectionIndexTitles == ["H", "W"] && handed.sectionNameKeyPath == "notebook.name")
      #expect(handed.delegate === recorder && handed.managedObjectContext === stack.context)
      // Clearing the delegate through the handed controller clears it for both.
      handed.delegate = nil
      #expect(controller.delegate == nil)
    }
  }

  /// A table as UIKit's `UITableView` applies a batch of updates: deletions at the old index paths first,
  /// then insertions at the new ones; a move is a deletion and an insertion. The rows are the objects.
  private final class TableModel {
    var rows: [[Note]] = []
    private var deletedSections: [Int] = []
    private var insertedSections: [Int] = []
    private var deletedRows: [IndexPath] = []
    private var insertedRows: [(IndexPath, Note)] = []
    private(set) var reloaded: [IndexPath] = []

    func beginUpdates() { (deletedSections, insertedSections, deletedRows, insertedRows, reloaded) = ([], [], [], [], []) }
    func insertSections(_ index: Int) { insertedSections.append(index) }
    func deleteSections(_ index: Int) { deletedSections.append(index) }
    func insertRows(at path: IndexPath, showing note: Note) { insertedRows.append((path, note)) }
    func deleteRows(at path: IndexPath) { deletedRows.append(path) }
    func reloadRows(at path: IndexPath) { reloaded.append(path) }

    func endUpdates() {
      for path in deletedRows.sorted(by: >) { rows[path.section].remove(at: path.row) }
      for index in deletedSections.sorted(by: >) { rows.remove(at: index) }
      for index in insertedSections.sorted() { rows.insert([], at: index) }
      for (path, note) in insertedRows.sorted(by: { $0.0 < $1.0 }) { rows[path.section].insert(note, at: path.row) }
    }
  }

  /// A list screen written as Xcode's Core Data template writes one.
  private final class NotesScreen: NSObject, NSFetchedResultsControllerDelegate {
    let tableView = TableModel()

    func controllerWillChangeContent(_ controller: NSFetchedResultsController<NSFetchRequestResult>) {
      tableView.beginUpdates()
    }

    func controller(
      _ controller: NSFetchedResultsController<NSFetchRequestResult>, didChange sectionInfo: NSFetchedResultsSectionInfo,
      atSectionIndex sectionIndex: Int, for type: NSFetchedResultsChangeType
    ) {
      switch type {
      case .insert: tableView.insertSections(sectionIndex)
      case .delete: tableView.deleteSections(sectionIndex)
      default: return
      }
    }

    func controller(
      _ controller: NSFetchedResultsController<NSFetchRequestResult>, didChange anObject: Any, at indexPath: IndexPath?,
      for type: NSFetchedResultsChangeType, newIndexPath: IndexPath?
    ) {
      guard let note = anObject as? Note else { return }
      switch type {
      case .insert:
        if let newIndexPath { tableView.insertRows(at: newIndexPath, showing: note) }
      case .delete:
        if let indexPath { tableView.deleteRows(at: indexPath) }
      case .update:
        if let indexPath { tableView.reloadRows(at: indexPath) }
      case .move:
        if let indexPath, let newIndexPath {
          tableView.deleteRows(at: indexPath)
          tableView.insertRows(at: newIndexPath, showing: note)
        }
      @unknown default:
        return
      }
    }

    func controllerDidChangeContent(_ controller: NSFetchedResultsController<NSFetchRequestResult>) {
      tableView.endUpdates()
    }
  }

  @Test("A table driven by the delegate as UIKit applies it ends up with the controller's sections")
  func tableFollowsController() throws {
    let stack = try StoreStack()
    let screen = NotesScreen()
    let (controller, _, books) = try setUp(stack, recorder: Recorder())
    let context = stack.context
    context.performAndWait {
      controller.delegate = screen
      screen.tableView.rows = (controller.sections ?? []).map { $0.objects as? [Note] ?? [] }
      func expectTableMatches(_ comment: Comment) {
        let table = screen.tableView.rows.map { $0.map(\.title) }
        let sections = (controller.sections ?? []).map { ($0.objects as? [Note] ?? []).map(\.title) }
        #expect(table == sections, comment)
      }
      var notes: [Note] = []
      for (title, book) in [("0", "Home"), ("m", "Work"), ("z", "Home")] {
        let note = Note(context: context)
        note.title = title
        note.notebook = books[book]
        notes.append(note)
      }
      context.processPendingChanges()
      expectTableMatches("three inserts in two sections")

      context.delete(controller.object(at: IndexPath(row: 0, section: 1)))
      notes[0].title = "y"
      notes[1].notebook = books["Home"]
      context.processPendingChanges()
      expectTableMatches("a delete, a move within a section, a move across sections")

      let fresh = Notebook(context: context)
      fresh.name = "Garden"
      for note in books["Home"]?.notes ?? [] { note.notebook = fresh }
      notes[2].title = "zz"
      context.processPendingChanges()
      expectTableMatches("a section emptied and one made, in one round")
      #expect(controller.sections?.map(\.name) == ["Garden", "Work"])

      notes[2].body = "edited"
      context.processPendingChanges()
      #expect(screen.tableView.reloaded == [controller.indexPath(forObject: notes[2])].compactMap { $0 })
      expectTableMatches("an update in place")
    }
  }

  /// Titles its sections' index with the whole section name.
  private final class WholeNameTitles: NSObject, NSFetchedResultsControllerDelegate {
    func controller(
      _ controller: NSFetchedResultsController<NSFetchRequestResult>, sectionIndexTitleForSectionName sectionName: String
    ) -> String? {
      sectionName.lowercased()
    }
  }

  /// A controller subclass that titles its index with the last letter, as Core Data lets one override it.
  private final class LastLetterController: NSFetchedResultsController<Note> {
    override func sectionIndexTitle(forSectionName sectionName: String) -> String? {
      sectionName.last.map { String($0) }
    }
  }

  @Test("Section index titles come from the delegate, else from the controller, which a subclass may override")
  func sectionIndexTitles() throws {
    let stack = try StoreStack()
    _ = try setUp(stack)
    try stack.context.performAndWait {
      let request = NSFetchRequest<Note>(entityName: "Note")
      request.sortDescriptors = [NSSortDescriptor(key: "notebook.name", ascending: true)]
      let titled = WholeNameTitles()
      let controller = NSFetchedResultsController(
        fetchRequest: request, managedObjectContext: stack.context, sectionNameKeyPath: "notebook.name", cacheName: nil)
      controller.delegate = titled
      try controller.performFetch()
      #expect(controller.sectionIndexTitles == ["home", "work"])
      #expect(controller.sections?.map(\.indexTitle) == ["home", "work"])
      #expect(controller.section(forSectionIndexTitle: "work", at: 0) == 1)

      let subclassed = LastLetterController(
        fetchRequest: request, managedObjectContext: stack.context, sectionNameKeyPath: "notebook.name", cacheName: nil)
      try subclassed.performFetch()
      #expect(subclassed.sectionIndexTitles == ["e", "k"])
      // With a delegate that does not answer, the delegate's default asks the subclass too.
      let recorder = Recorder()
      subclassed.delegate = recorder
      try subclassed.performFetch()
      #expect(subclassed.sectionIndexTitles == ["e", "k"])

      NSFetchedResultsController<NSFetchRequestResult>.deleteCache(withName: nil)
      NSFetchedResultsController<Note>.deleteCache(withName: "Notes")
    }
  }

  @Test("A controller goes when its last reference does: the delegate's controller holds nothing back")
  func controllerIsReleased() throws {
    let stack = try StoreStack()
    _ = try setUp(stack)
    weak var released: NSFetchedResultsController<NSManagedObject>?
    weak var handedReleased: NSFetchedResultsController<NSFetchRequestResult>?
    let recorder = Recorder()
    try stack.context.performAndWait {
      let request = NSFetchRequest<NSManagedObject>(entityName: "Note")
      request.sortDescriptors = [NSSortDescriptor(key: "title", ascending: true)]
      var controller: NSFetchedResultsController<NSManagedObject>? = NSFetchedResultsController(
        fetchRequest: request, managedObjectContext: stack.context, sectionNameKeyPath: nil, cacheName: nil)
      controller?.delegate = recorder
      try controller?.performFetch()
      #expect(controller?.fetchedObjects?.count == 3)
      Note(context: stack.context).title = "d"
      stack.context.processPendingChanges()
      #expect(recorder.take() == ["will", "insert d ->0.3", "did"])
      released = controller
      handedReleased = recorder.handed.first
      recorder.handed = []
      controller = nil
      #expect(released == nil && handedReleased == nil)
      Note(context: stack.context).title = "e"
      stack.context.processPendingChanges()
      #expect(recorder.take().isEmpty)
    }
  }

  @Test("A sibling's save, merged into the controller's context, is reported")
  func mergedChanges() throws {
    let stack = try StoreStack()
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
    let stack = try StoreStack()
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
    let stack = try StoreStack()
    let (controller, recorder, _) = try setUp(stack)
    stack.context.performAndWait {
      stack.context.reset()
      let lines = recorder.take()
      #expect(lines.first == "will" && lines.last == "did")
      #expect(lines.filter { $0.hasPrefix("delete") }.count == 3 && lines.filter { $0.hasPrefix("insert") }.count == 3)
      #expect(layout(controller) == ["Home:b", "Work:a,c"])
    }
  }

  /// The error `performFetch()` throws, as Core Data code catches it.
  private func fetchError(_ controller: NSFetchedResultsController<Note>) -> NSError? {
    do {
      try controller.performFetch()
      return nil
    } catch let error as NSError {
      return error
    }
  }

  @Test("Misuse is refused with what to do: no sort, scattered sections")
  func misuse() throws {
    let stack = try StoreStack()
    _ = try setUp(stack)
    try stack.context.performAndWait {
      let unsorted = NSFetchedResultsController(
        fetchRequest: NSFetchRequest<Note>(entityName: "Note"), managedObjectContext: stack.context, sectionNameKeyPath: nil,
        cacheName: nil)
      #expect(unsorted.sections == nil && unsorted.fetchedObjects == nil)
      let noSort = fetchError(unsorted)
      #expect(noSort?.code == ObjectGraphInvalidValueError)
      #expect(noSort?.localizedDescription.contains("sort descriptors") == true)

      let request = NSFetchRequest<Note>(entityName: "Note")
      request.sortDescriptors = [NSSortDescriptor(key: "title", ascending: true)]
      let scattered = NSFetchedResultsController(
        fetchRequest: request, managedObjectContext: stack.context, sectionNameKeyPath: "notebook.name", cacheName: nil)
      let error = fetchError(scattered)
      #expect(error?.code == ObjectGraphInvalidValueError)
      #expect(error?.localizedFailureReason?.contains("first sort descriptor") == true)

      let plain = NSFetchedResultsController(
        fetchRequest: request, managedObjectContext: stack.context, sectionNameKeyPath: nil, cacheName: "Notes")
      try plain.performFetch()
      #expect(plain.sections?.count == 1 && plain.sections?[0].name == "" && plain.cacheName == "Notes")
    }
  }

  @Test("object(at:) outside the results stops the program, naming the index path and what the results hold")
  func objectOutsideResultsStops() async throws {
    let folder = try TemporaryFolder()
    let stopped = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
      [folder = folder as TemporaryFolder] in
      let stack = try StoreStack(folder: folder)
      try stack.context.performAndWait {
        for title in ["a", "b", "c"] { Note(context: stack.context).title = title }
        let request = NSFetchRequest<Note>(entityName: "Note")
        request.sortDescriptors = [NSSortDescriptor(key: "title", ascending: true)]
        let controller = NSFetchedResultsController(
          fetchRequest: request, managedObjectContext: stack.context, sectionNameKeyPath: nil, cacheName: nil)
        try controller.performFetch()
        _ = controller.object(at: IndexPath(row: 3, section: 0))
      }
    }
    let said = String(decoding: stopped?.standardErrorContent ?? [], as: UTF8.self)
    #expect(said.contains("index path [0, 3] is out of range: the results have 1 section(s) holding [3] object(s)"), "it printed: \(said)")
  }
}
