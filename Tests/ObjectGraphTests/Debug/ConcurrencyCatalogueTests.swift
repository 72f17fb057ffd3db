import Dispatch
import EngineTestSupport
import Foundation
import TestSupport
import Testing

@testable import ObjectGraph

/// The catalogue of Docs/concurrency-rules.md: every way of breaking a rule that the page lists, each
/// broken here on purpose, and each reported with the rule the page gives (the debug switch's watch
/// records what it would stop the program with). Rule 1's rows are the reads that must never be reported.
/// The page's table and these cases must list the same rows, so neither can grow without the other.
@Suite("Concurrency debugging: every break the rules page catalogues is caught, naming its rule", .timeLimit(.minutes(1)))
struct ConcurrencyCatalogueTests {
  /// A break: its row in the page's table, the rule it is reported as (nil: never reported), and the act.
  struct Case: Sendable {
    let id: String
    let rule: Int?
    let act: @Sendable (Scene) throws -> Void
  }

  /// What the cases touch: a main-queue context and a private one on one store, each with a saved note in a
  /// notebook (turned into a fault), and a private context beside them with a notebook of its own.
  final class Scene: @unchecked Sendable {
    // @unchecked: built once before the cases run; the cases break the rules on purpose, which is the point.
    let coordinator: NSPersistentStoreCoordinator
    let main: NSManagedObjectContext
    let background: NSManagedObjectContext
    let other: NSManagedObjectContext
    let mainNote: Note
    let mainFault: Note
    let backgroundNote: Note
    let backgroundFault: Note
    let otherNotebook: Notebook

    init() throws {
      let stack = try StoreStack(model: try Models.notes(), at: nil, contextType: .mainQueue)
      coordinator = stack.coordinator
      main = stack.context
      main.name = "catalogue.main"
      background = stack.freshContext()
      background.name = "catalogue.background"
      other = stack.freshContext()
      other.name = "catalogue.other"
      func notes(in context: NSManagedObjectContext) throws -> (Note, Note) {
        try context.performAndWait {
          let notebook = Notebook(context: context)
          notebook.name = "book"
          let note = Note(context: context)
          note.title = "note"
          note.notebook = notebook
          let fault = Note(context: context)
          fault.title = "fault"
          try context.save()
          context.refresh(fault, mergeChanges: false)
          return (note, fault)
        }
      }
      (mainNote, mainFault) = try notes(in: main)
      (backgroundNote, backgroundFault) = try notes(in: background)
      let other = other
      otherNotebook = other.performAndWait {
        let notebook = Notebook(context: other)
        notebook.name = "other"
        return notebook
      }
    }
  }

  static var request: NSFetchRequest<Note> { NSFetchRequest<Note>(entityName: "Note") }

  /// The acts done to one context's objects off its queue, for rule 2 (the main context) or 3 (a private one).
  static func offQueueCases(rule: Int, prefix: String) -> [Case] {
    let context: @Sendable (Scene) -> NSManagedObjectContext = { rule == 2 ? $0.main : $0.background }
    let note: @Sendable (Scene) -> Note = { rule == 2 ? $0.mainNote : $0.backgroundNote }
    let fault: @Sendable (Scene) -> Note = { rule == 2 ? $0.mainFault : $0.backgroundFault }
    return [
      Case(id: "\(prefix)-read", rule: rule) { _ = note($0).title },
      Case(id: "\(prefix)-write", rule: rule) { note($0).body = "written" },
      Case(id: "\(prefix)-fault", rule: rule) { _ = fault($0).title },
      Case(id: "\(prefix)-flag", rule: rule) { _ = note($0).isUpdated },
      Case(id: "\(prefix)-to-one", rule: rule) { _ = note($0).notebook },
      Case(id: "\(prefix)-to-many", rule: rule) { _ = note($0).tags },
      Case(id: "\(prefix)-relate", rule: rule) { note($0).notebook = nil },
      Case(id: "\(prefix)-fetch", rule: rule) { _ = try context($0).fetch(request) },
      Case(id: "\(prefix)-count", rule: rule) { _ = try context($0).count(for: request) },
      Case(id: "\(prefix)-insert", rule: rule) { _ = Note(context: context($0)) },
      Case(id: "\(prefix)-delete", rule: rule) { scene in context(scene).delete(fault(scene)) },
      Case(id: "\(prefix)-lookup", rule: rule) { scene in _ = try context(scene).existingObject(with: note(scene).objectID) },
      Case(id: "\(prefix)-has-changes", rule: rule) { _ = context($0).hasChanges },
      Case(id: "\(prefix)-save", rule: rule) { try context($0).save() },
      Case(id: "\(prefix)-rollback", rule: rule) { context($0).rollback() },
    ]
  }

  static let cases: [Case] =
    [
      Case(id: "r1-object-id", rule: nil) { _ = $0.backgroundNote.objectID },
      Case(id: "r1-context", rule: nil) { _ = $0.backgroundNote.managedObjectContext },
      Case(id: "r1-entity", rule: nil) { _ = $0.mainNote.entity },
    ] + offQueueCases(rule: 2, prefix: "r2") + offQueueCases(rule: 3, prefix: "r3")
    + [
      // An object taken out of its context's performAndWait and read after it.
      Case(id: "r3-escaped", rule: 3) { scene in
        let note = scene.background.performAndWait { scene.backgroundNote }
        _ = note.title
      },
      // An object read inside another context's perform: that context's queue is not the object's.
      Case(id: "r3-other-perform", rule: 3) { scene in scene.other.performAndWait { _ = scene.backgroundNote.title } },
      // Objects of two contexts linked, with both queues held so that only rule 5 is broken.
      Case(id: "r5-to-one", rule: 5) { scene in
        scene.background.performAndWait { scene.other.performAndWait { scene.backgroundNote.notebook = scene.otherNotebook } }
      },
      Case(id: "r5-to-many", rule: 5) { scene in
        scene.background.performAndWait {
          scene.other.performAndWait { _ = scene.otherNotebook.notes.insert(scene.backgroundNote) }
        }
      },
      Case(id: "r5-insert", rule: 5) { scene in
        scene.background.performAndWait { scene.other.performAndWait { scene.other.insert(scene.backgroundNote) } }
      },
    ]

  @Test("each catalogued break is reported with its rule, and rule 1's reads are not reported")
  func everyBreakIsCaught() throws {
    var caught = 0
    var listed = 0
    for item in Self.cases {
      let scene = try Scene()
      let watch = WatchedViolations(ConcurrencyDebug.Watch(scene.main, scene.background, scene.other))
      try item.act(scene)
      let rules = Set(watch.violations.map(\.rule))
      if let rule = item.rule {
        listed += 1
        #expect(rules.contains(rule), "\(item.id): expected a rule \(rule) report, got \(watch.violations.map(\.message))")
        if rules.contains(rule) { caught += 1 }
        #expect(
          watch.violations.allSatisfy { $0.message.contains("(rule \($0.rule))") && $0.message.contains("Rule \($0.rule):") },
          "\(item.id): every report names its rule and says what it means")
      } else {
        #expect(rules.isEmpty, "\(item.id) must not be reported: \(watch.violations.map(\.message))")
      }
    }
    print("ConcurrencyCatalogueTests: \(caught) of \(listed) catalogued breaks caught")
  }

  @Test("the rules page's catalogue lists exactly these cases, each with its rule")
  func pageListsTheCases() throws {
    let page = TestFolders.repository.appendingPathComponent("Docs/concurrency-rules.md")
    let text = try String(contentsOf: page, encoding: .utf8)
    var rows: [String: String] = [:]
    for line in text.split(separator: "\n") where line.hasPrefix("| `r") {
      let cells = line.split(separator: "|").map { $0.trimmingCharacters(in: .whitespaces) }
      guard cells.count >= 3 else { continue }
      rows[cells[0].trimmingCharacters(in: CharacterSet(charactersIn: "`"))] = cells[1]
    }
    let cases = Dictionary(uniqueKeysWithValues: Self.cases.map { ($0.id, $0.rule.map(String.init) ?? "never") })
    #expect(
      Set(rows.keys) == Set(cases.keys),
      "in the page only: \(Set(rows.keys).subtracting(cases.keys).sorted()); in the tests only: \(Set(cases.keys).subtracting(rows.keys).sorted())"
    )
    for (id, rule) in rows where cases[id] != nil {
      #expect(cases[id] == rule, "\(id): the page says \(rule), the test \(cases[id] ?? "")")
    }
  }
}
