import DemoSupport
import EngineTestSupport
import Foundation
import TestSupport
import Testing

@testable import ObjectGraph

/// Fetches and counts through a chain of contexts (root, child, grandchild), each with random unsaved
/// inserts, updates and deletes, compared with a plain in-memory evaluation of the same request over a
/// model the test keeps itself: every note visible in the context, filtered, sorted, cut. Seeded: a
/// failure names its seed and replays.
@Suite("Child fetches against an in-memory model", .temporaryFolders)
struct ChildFetchPropertyTests {
  /// What the test knows of one note.
  struct Values: Equatable {
    var rating: Int64
    var body: String?
    var notebook: Int?
  }

  /// One context's unsaved changes, in the test's terms.
  struct Level {
    /// Values of the notes changed or inserted here.
    var values: [String: Values] = [:]
    var inserted: Set<String> = []
    var deleted: Set<String> = []
  }

  /// A request in both forms: the engine's, and the test's own evaluation of it.
  struct Query: CustomStringConvertible {
    var format: String?
    var arguments: [any Sendable] = []
    var matches: (String, Values) -> Bool = { _, _ in true }
    var sorts: [(key: String, ascending: Bool)] = []
    var offset = 0
    var limit = 0
    var batchSize = 0

    var description: String {
      "\(format ?? "all") sorted by \(sorts.map { "\($0.key) \($0.ascending ? "asc" : "desc")" }) offset \(offset) limit \(limit) batch \(batchSize)"
    }
  }

  static let notebookNames = ["Alpha", "Beta", "Gamma"]
  static let bodies: [String?] = [nil, "a", "b1", "b2", "c"]

  /// The state of the world: stored notes, each context's changes, IDs and the order notes were made.
  final class World {
    var stored: [String: Values] = [:]
    var primaryKeys: [String: Int64] = [:]
    /// For notes not yet saved: the order they were made in (their temporary IDs' order).
    var madeAt: [String: Int] = [:]
    var ids: [String: NSManagedObjectID] = [:]
    /// The root's IDs for notes it saved after a child had inserted or changed them (the child keeps the
    /// temporary ID in `ids`).
    var rootIDs: [String: NSManagedObjectID] = [:]
    var notebookIDs: [NSManagedObjectID] = []
    var levels: [Level] = []
    var made = 0

    /// Every note visible at `level` with its values there.
    func view(_ level: Int) -> [String: Values] {
      var view = stored
      for index in 0...level {
        for title in levels[index].deleted { view[title] = nil }
        view.merge(levels[index].values) { _, new in new }
      }
      return view
    }

    /// Orders saved notes by primary key, then new ones in the order they were made.
    func idOrder(_ a: String, _ b: String) -> Bool {
      switch (primaryKeys[a], primaryKeys[b]) {
      case let (x?, y?): x < y
      case (_?, nil): true
      case (nil, _?): false
      case (nil, nil): (madeAt[a] ?? 0) < (madeAt[b] ?? 0)
      }
    }

    /// The titles a fetch at `level` returns, before offset and limit: every note visible there that
    /// matches, by the sort, then (on equal keys) saved notes by primary key and new ones in the order
    /// they were made.
    func expected(_ query: Query, level: Int) -> [String] {
      func key(_ title: String, _ values: Values) -> [PredicateValue] {
        query.sorts.map { sort in
          switch sort.key {
          case "rating": .integer(values.rating)
          case "body": values.body.map { .string($0) } ?? .null
          case "title": .string(title)
          default: values.notebook.map { .string(World.notebookNamesValue[$0]) } ?? .null
          }
        }
      }
      let keyed = view(level).filter { query.matches($0.key, $0.value) }.map { ($0.key, key($0.key, $0.value)) }
      return keyed.sorted { lhs, rhs in
        for (index, sort) in query.sorts.enumerated() {
          let order = InMemorySort.compare(lhs.1[index], rhs.1[index])
          if order != 0 { return sort.ascending ? order < 0 : order > 0 }
        }
        return idOrder(lhs.0, rhs.0)
      }.map(\.0)
    }

    static let notebookNamesValue = ChildFetchPropertyTests.notebookNames
  }

  /// A random request over the notes visible at `level`.
  private func randomQuery(_ world: World, level: Int, _ random: inout SeededGenerator) -> Query {
    var query = Query()
    let visible = world.view(level).keys.sorted()
    switch Int.random(in: 0..<9, using: &random) {
    case 0:
      break
    case 1:
      let rating = Int64.random(in: 0...4, using: &random)
      query.format = "rating >= %d"
      query.arguments = [rating]
      query.matches = { _, values in values.rating >= rating }
    case 2:
      query.format = "body == nil"
      query.matches = { _, values in values.body == nil }
    case 3:
      query.format = "body BEGINSWITH %@"
      query.arguments = ["b"]
      query.matches = { _, values in values.body?.hasPrefix("b") ?? false }
    case 4:
      query.format = "rating == %d OR body != nil"
      query.arguments = [Int64(2)]
      query.matches = { _, values in values.rating == 2 || values.body != nil }
    case 5:
      let notebook = Int.random(in: 0..<3, using: &random)
      query.format = "notebook == %@"
      query.arguments = [world.notebookIDs[notebook]]
      query.matches = { _, values in values.notebook == notebook }
    case 6:
      let chosen = Set(visible.filter { _ in Bool.random(using: &random) })
      query.format = "SELF IN %@"
      query.arguments = [chosen.compactMap { level == 0 ? world.rootIDs[$0] ?? world.ids[$0] : world.ids[$0] }]
      query.matches = { title, _ in chosen.contains(title) }
    case 7:
      query.format = "notebook.name == %@"
      query.arguments = ["Beta"]
      query.matches = { _, values in values.notebook == 1 }
    default:
      let bound = String(format: "n%03d", Int.random(in: 0..<40, using: &random))
      query.format = "title < %@"
      query.arguments = [bound]
      query.matches = { title, _ in title < bound }
    }
    let keys = ["rating", "body", "title", "notebook.name"]
    for _ in 0..<Int.random(in: 0...2, using: &random) {
      query.sorts.append((keys.randomElement(using: &random) ?? "rating", Bool.random(using: &random)))
    }
    if Bool.random(using: &random) { query.offset = Int.random(in: 0...8, using: &random) }
    if Int.random(in: 0..<3, using: &random) > 0 { query.limit = Int.random(in: 1...12, using: &random) }
    if Int.random(in: 0..<4, using: &random) == 0 { query.batchSize = 4 }
    return query
  }

  private func randomValues(_ random: inout SeededGenerator) -> Values {
    Values(
      rating: Int64.random(in: 0...4, using: &random), body: Self.bodies.randomElement(using: &random) ?? nil,
      notebook: Int.random(in: 0..<4, using: &random) == 3 ? nil : Int.random(in: 0..<3, using: &random))
  }

  private func apply(_ values: Values, to note: Note, in context: NSManagedObjectContext, _ world: World) {
    note.rating = values.rating
    note.body = values.body
    note.notebook = values.notebook.map { context.object(with: world.notebookIDs[$0]) as? Notebook } ?? nil
  }

  /// Random inserts, updates and deletes in the context of `level`.
  private func randomChanges(
    _ world: World, level: Int, context: NSManagedObjectContext, _ random: inout SeededGenerator
  ) throws {
    try context.performAndWait {
      for _ in 0..<Int.random(in: 0...3, using: &random) {
        world.made += 1
        let title = "x\(world.made)"
        let values = randomValues(&random)
        let note = Note(context: context)
        note.title = title
        apply(values, to: note, in: context, world)
        world.ids[title] = note.objectID
        world.madeAt[title] = world.made
        world.levels[level].values[title] = values
        world.levels[level].inserted.insert(title)
      }
      for _ in 0..<Int.random(in: 0...4, using: &random) {
        guard let title = world.view(level).keys.sorted().randomElement(using: &random), let id = world.ids[title]
        else { continue }
        let note = try #require(try context.existingObject(with: id) as? Note)
        var values = world.view(level)[title] ?? randomValues(&random)
        switch Int.random(in: 0..<3, using: &random) {
        case 0: values.rating = Int64.random(in: 0...4, using: &random)
        case 1: values.body = Self.bodies.randomElement(using: &random) ?? nil
        default: values.notebook = Bool.random(using: &random) ? nil : Int.random(in: 0..<3, using: &random)
        }
        apply(values, to: note, in: context, world)
        world.levels[level].values[title] = values
      }
      for _ in 0..<Int.random(in: 0...2, using: &random) {
        guard let title = world.view(level).keys.sorted().randomElement(using: &random), let id = world.ids[title]
        else { continue }
        context.delete(try context.existingObject(with: id))
        world.levels[level].values[title] = nil
        if world.levels[level].inserted.remove(title) == nil { world.levels[level].deleted.insert(title) }
      }
      context.processPendingChanges()
    }
  }

  /// The changes of `level` saved into its parent, in the test's model.
  private func saveUp(_ world: World, level: Int) {
    let changes = world.levels[level]
    for title in changes.deleted {
      world.levels[level - 1].values[title] = nil
      if world.levels[level - 1].inserted.remove(title) == nil { world.levels[level - 1].deleted.insert(title) }
    }
    for (title, values) in changes.values {
      world.levels[level - 1].values[title] = values
      if changes.inserted.contains(title) { world.levels[level - 1].inserted.insert(title) }
    }
    world.levels[level] = Level()
  }

  /// The root's changes saved to the store, in the test's model: inserted notes take their primary keys.
  private func saveRoot(_ world: World, _ root: NSManagedObjectContext) throws {
    let changes = world.levels[0]
    for title in changes.deleted { world.stored[title] = nil }
    world.stored.merge(changes.values) { _, new in new }
    try root.performAndWait {
      try root.save()
      for title in changes.inserted {
        let saved = try #require(world.ids[title].flatMap { root.confined.aliases[$0] }, "\(title) has a permanent ID")
        world.rootIDs[title] = saved
        world.primaryKeys[title] = saved.primaryKey
      }
    }
    world.levels[0] = Level()
  }

  @Test(
    "Random pending changes in root, child and grandchild: fetch and count match the in-memory evaluation",
    arguments: 0..<64)
  func randomChains(seed: Int) throws {
    var random = SeededGenerator(seed: UInt64(seed) &* 0x9E37_79B9 &+ 17)
    let stack = try StoreStack(type: seed.isMultiple(of: 4) ? .inMemory : .sqlite)
    let world = World()
    // Saved notes, made in a context of their own so the root starts empty.
    let loader = stack.freshContext()
    try loader.performAndWait {
      var notebooks: [Notebook] = []
      for name in Self.notebookNames {
        let notebook = Notebook(context: loader)
        notebook.name = name
        notebooks.append(notebook)
      }
      var notes: [(String, Note)] = []
      for index in 0..<Int.random(in: 10...40, using: &random) {
        let title = String(format: "n%03d", index)
        let values = randomValues(&random)
        let note = Note(context: loader)
        note.title = title
        note.rating = values.rating
        note.body = values.body
        note.notebook = values.notebook.map { notebooks[$0] }
        world.stored[title] = values
        notes.append((title, note))
      }
      try loader.save()
      world.notebookIDs = notebooks.map(\.objectID)
      for (title, note) in notes {
        world.ids[title] = note.objectID
        world.primaryKeys[title] = note.objectID.primaryKey
      }
    }
    var contexts = [stack.context]
    for _ in 0..<Int.random(in: 1...2, using: &random) {
      let child = NSManagedObjectContext(concurrencyType: .privateQueueConcurrencyType)
      child.parent = contexts.last
      contexts.append(child)
    }
    world.levels = Array(repeating: Level(), count: contexts.count)
    for (level, context) in contexts.enumerated() {
      try randomChanges(world, level: level, context: context, &random)
      if level > 0 && Bool.random(using: &random) {
        try context.performAndWait { try context.save() }
        saveUp(world, level: level)
        if level == 1 && Bool.random(using: &random) {
          // The root saves to the store: the child keeps temporary IDs for rows that now exist.
          try saveRoot(world, stack.context)
        }
        try randomChanges(world, level: level, context: context, &random)
      }
    }
    for _ in 0..<12 {
      let level = Int.random(in: 0..<contexts.count, using: &random)
      let context = contexts[level]
      let query = randomQuery(world, level: level, &random)
      let request = NSFetchRequest<Note>(entityName: "Note")
      if let format = query.format {
        request.predicate = NSPredicate(format: format, argumentArray: query.arguments)
      }
      request.sortDescriptors = query.sorts.map { NSSortDescriptor(key: $0.key, ascending: $0.ascending) }
      request.fetchOffset = query.offset
      request.fetchLimit = query.limit
      request.fetchBatchSize = query.batchSize
      let all = world.expected(query, level: level)
      let tail = all.dropFirst(query.offset)
      let expected = Array(query.limit > 0 ? tail.prefix(query.limit) : tail)
      let (titles, count) = try context.performAndWait {
        (try context.fetch(request).map { $0.title ?? "?" }, try context.count(for: request))
      }
      #expect(titles == expected, "seed \(seed), level \(level): \(query)")
      #expect(count == expected.count, "seed \(seed), level \(level): \(query)")
    }
  }
}
