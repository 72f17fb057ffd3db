import EngineTestSupport
import Foundation
import ObjectGraph
import Testing

// A module whose files import Foundation names the engine's NSExpression and NSComparisonPredicate as types
// through these two lines (Docs/ObjectGraph.md, "Core Data as written"); making one needs nothing.
typealias NSExpression = ObjectGraph.NSExpression
typealias NSComparisonPredicate = ObjectGraph.NSComparisonPredicate

/// Predicates, expressions and sort descriptors written as Core Data code writes them, with Foundation's
/// types, in a file that imports Foundation and the engine (and not the engine's internals): each is run
/// by a SQLite fetch and by `evaluate(with:)`, or by Foundation's own `filtered(using:)` and
/// `sortedArray(using:)`.
@Suite("Foundation's NSPredicate, NSCompoundPredicate, NSComparisonPredicate, NSExpression, NSSortDescriptor", .temporaryFolders)
struct FoundationPredicateTests {
  /// Notes rated 0…9 titled Alpha…kappa; 0–5 in Work, 6–8 in Home, 9 in none.
  private func populated() throws -> StoreStack {
    let stack = try StoreStack()
    try stack.context.performAndWait {
      let work = Notebook(context: stack.context)
      work.name = "Work"
      let home = Notebook(context: stack.context)
      home.name = "Home"
      let titles = ["Alpha", "beta", "Gamma", "delta", "Épée", "zeta", "Eta", "theta", "Iota", "kappa"]
      for (index, title) in titles.enumerated() {
        let note = Note(context: stack.context)
        note.title = title
        note.rating = Int64(index)
        note.notebook = index < 6 ? work : (index < 9 ? home : nil)
      }
      try stack.context.save()
    }
    return stack
  }

  /// The titles a predicate fetches (sorted by rating), checked against `evaluate(with:)` on every note.
  private func titles(_ stack: StoreStack, _ predicate: NSPredicate, sourceLocation: SourceLocation = #_sourceLocation) throws
    -> [String]
  {
    let context = stack.freshContext()
    return try context.performAndWait {
      let request = NSFetchRequest<Note>(entityName: "Note")
      request.predicate = predicate
      request.sortDescriptors = [NSSortDescriptor(key: "rating", ascending: true)]
      let fetched = try context.fetch(request).compactMap(\.title)
      let all = NSFetchRequest<Note>(entityName: "Note")
      all.sortDescriptors = [NSSortDescriptor(key: "rating", ascending: true)]
      let evaluated = try context.fetch(all).filter { predicate.evaluate(with: $0) }.compactMap(\.title)
      #expect(fetched == evaluated, "the store and evaluate(with:) disagree on \(predicate)", sourceLocation: sourceLocation)
      return fetched
    }
  }

  @Test("NSPredicate(format:) with arguments, and with an argument array, runs in the store and in memory")
  func formats() throws {
    let stack = try populated()
    #expect(try titles(stack, NSPredicate(format: "rating > %d AND notebook.name == %@", 4, "Work")) == ["zeta"])
    #expect(try titles(stack, NSPredicate(format: "title BEGINSWITH[c] %@", argumentArray: ["e"])) == ["Eta"])
    #expect(try titles(stack, NSPredicate(format: "rating IN %@", [1, 3])) == ["beta", "delta"])
    #expect(try titles(stack, NSPredicate(value: false)).isEmpty)
    #expect(try titles(stack, NSPredicate(value: true)).count == 10)
    let template = NSPredicate(format: "rating >= $low AND rating <= $high")
    #expect(try titles(stack, template.withSubstitutionVariables(["low": 7, "high": 8])) == ["theta", "Iota"])
    #expect("\(NSPredicate(format: "title == %@", "a"))" == #"title == "a""#)
  }

  @Test("Foundation's NSCompoundPredicate of the engine's predicates, nested and flat")
  func compounds() throws {
    let stack = try populated()
    let work = NSPredicate(format: "notebook.name == 'Work'")
    let high = NSPredicate(format: "rating >= 4")
    #expect(try titles(stack, NSCompoundPredicate(andPredicateWithSubpredicates: [work, high])) == ["Épée", "zeta"])
    #expect(
      try titles(
        stack, NSCompoundPredicate(orPredicateWithSubpredicates: [NSPredicate(format: "rating == 0"), NSPredicate(format: "rating == 9")]))
        == ["Alpha", "kappa"])
    let notWork = NSCompoundPredicate(notPredicateWithSubpredicate: work)
    #expect(try titles(stack, NSCompoundPredicate(andPredicateWithSubpredicates: [notWork, high])) == ["Eta", "theta", "Iota", "kappa"])
    #expect(try titles(stack, NSCompoundPredicate(type: .and, subpredicates: [])).count == 10)
    #expect(try titles(stack, NSCompoundPredicate(type: .or, subpredicates: [])).isEmpty)
  }

  @Test("Folding a compound 5,000 times (all = OR [all, next]) reads as one flat OR and fetches the right rows")
  func longFold() throws {
    let stack = try populated()
    var all: NSPredicate = NSPredicate(format: "rating == 0")
    for rating in 1..<5_000 {
      all = NSCompoundPredicate(orPredicateWithSubpredicates: [
        all, NSPredicate(format: "rating == %d", rating % 3 == 0 ? rating : -rating),
      ])
    }
    #expect(try titles(stack, all) == ["Alpha", "delta", "Eta", "kappa"])
  }

  @Test("NSComparisonPredicate with NSExpressions runs as the same format does")
  func comparisons() throws {
    let stack = try populated()
    let titled = NSComparisonPredicate(
      leftExpression: NSExpression(forKeyPath: "title"), rightExpression: NSExpression(forConstantValue: "E"),
      modifier: .direct, type: .beginsWith, options: [.caseInsensitive, .diacriticInsensitive])
    #expect(try titles(stack, titled) == ["Épée", "Eta"])
    #expect("\(titled)" == #"title BEGINSWITH[cd] "E""#)
    let inWork = NSComparisonPredicate(
      leftExpression: NSExpression(forKeyPath: "notebook.name"), rightExpression: NSExpression(forConstantValue: "Work"),
      modifier: .direct, type: .equalTo, options: [])
    let above = NSComparisonPredicate(
      leftExpression: NSExpression(forKeyPath: "rating"), rightExpression: NSExpression(format: "2 + 2"),
      modifier: .direct, type: .greaterThan, options: [])
    #expect(try titles(stack, NSCompoundPredicate(andPredicateWithSubpredicates: [inWork, above])) == ["zeta"])
    let among = NSComparisonPredicate(
      leftExpression: NSExpression(forKeyPath: "rating"), rightExpression: NSExpression(forConstantValue: [2, 8]),
      modifier: .direct, type: .between, options: [])
    #expect(try titles(stack, among).count == 7)
    let reader = stack.freshContext()
    let books = try reader.performAndWait {
      let crowded = NSComparisonPredicate(
        leftExpression: NSExpression(forFunction: "count:", arguments: [NSExpression(forKeyPath: "notes")]),
        rightExpression: NSExpression(forConstantValue: 3), modifier: .direct, type: .greaterThan, options: [])
      let request = NSFetchRequest<Notebook>(entityName: "Notebook")
      request.predicate = crowded
      return try reader.fetch(request).compactMap(\.name)
    }
    #expect(books == ["Work"])
    let expression: NSExpression = NSExpression(forKeyPath: "notebook.name")
    #expect(expression.expressionType == .keyPath && expression.keyPath == "notebook.name")
  }

  @Test("A malformed format never stops the program: the fetch throws the parser's message, evaluate(with:) is false")
  func malformed() throws {
    let stack = try populated()
    let broken = NSPredicate(format: "title == ")
    #expect(broken.formatError?.contains("position") == true)
    try stack.context.performAndWait {
      let request = NSFetchRequest<Note>(entityName: "Note")
      request.predicate = broken
      do {
        _ = try stack.context.fetch(request)
        Issue.record("a malformed predicate fetched")
      } catch let error as NSError {
        #expect(error.domain == "ObjectGraphErrorDomain" && error.localizedDescription.contains("position"))
      }
      let note = try stack.context.fetch(NSFetchRequest<Note>(entityName: "Note"))[0]
      #expect(broken.evaluate(with: note) == false)
    }
    #expect(NSPredicate(format: "rating > $low").withSubstitutionVariables([:]).formatError?.contains("$low") == true)
  }

  @Test("A block predicate evaluates in memory and is refused by a fetch, as Core Data's SQLite store refuses it")
  func blockPredicate() throws {
    let stack = try populated()
    let even = NSPredicate { object, _ in ((object as? Note)?.rating ?? 1) % 2 == 0 }
    try stack.context.performAndWait {
      let request = NSFetchRequest<Note>(entityName: "Note")
      let all = try stack.context.fetch(request)
      #expect(all.filter { even.evaluate(with: $0) }.count == 5)
      request.predicate = even
      #expect(throws: NSError.self) { _ = try stack.context.fetch(request) }
    }
  }

  @Test("NSSortDescriptor(key:ascending:) and (key:ascending:selector:) order fetches; an unknown selector is refused then")
  func sortDescriptors() throws {
    let stack = try populated()
    try stack.context.performAndWait { () throws in
      let request = NSFetchRequest<Note>(entityName: "Note")
      request.sortDescriptors = [NSSortDescriptor(key: "title", ascending: true)]
      #expect(try stack.context.fetch(request).compactMap(\.title).prefix(3) == ["Alpha", "Eta", "Gamma"])
      request.sortDescriptors = [
        NSSortDescriptor(key: "title", ascending: false, selector: Selector("localizedCaseInsensitiveCompare:"))
      ]
      #expect(try stack.context.fetch(request).compactMap(\.title).prefix(2) == ["zeta", "theta"])
      request.sortDescriptors = [
        NSSortDescriptor(key: "notebook.name", ascending: true), NSSortDescriptor(key: "rating", ascending: false),
      ]
      #expect(try stack.context.fetch(request).compactMap(\.title).prefix(3) == ["kappa", "Iota", "theta"])
      request.sortDescriptors = [NSSortDescriptor(key: "title", ascending: true, selector: "compareByLength:")]
      #expect(throws: NSError.self) { _ = try stack.context.fetch(request) }
      request.sortDescriptors = [NSSortDescriptor(keyPath: \Note.rating, ascending: true)]
      #expect(throws: NSError.self) { _ = try stack.context.fetch(request) }
    }
    let descriptor = NSSortDescriptor(key: "title", ascending: true)
    #expect(descriptor.key == "title" && descriptor.ascending)
    #expect((descriptor.reversedSortDescriptor as? NSSortDescriptor)?.ascending == false)
  }

  @Test("Foundation's filtered(using:) and sortedArray(using:) run the engine's predicates and sort descriptors")
  func foundationCollections() throws {
    let names: NSArray = ["banana", "apple", "avocado", "cherry"]
    #expect(names.filtered(using: NSPredicate(format: "SELF BEGINSWITH %@", "a")) as? [String] == ["apple", "avocado"])
    let set = NSSet(array: ["x1", "y2", "x3"])
    #expect(set.filtered(using: NSPredicate(format: "SELF CONTAINS 'x'")).count == 2)
    let people: NSArray = [["name": "Bo", "age": 40], ["name": "Al", "age": 30], ["name": "Cy", "age": 35]]
    let older = people.filtered(using: NSPredicate(format: "age > 32")) as? [[String: Any]]
    #expect(older?.count == 2)
    let byAge = people.sortedArray(using: [NSSortDescriptor(key: "age", ascending: true)]) as? [[String: Any]]
    #expect(byAge?.compactMap { $0["name"] as? String } == ["Al", "Cy", "Bo"])
  }

  @Test("A dictionary fetch computes NSExpression(forFunction:arguments:) through an NSExpressionDescription")
  func expressionDescriptions() throws {
    let stack = try populated()
    let total = NSExpressionDescription()
    total.name = "total"
    total.expression = NSExpression(forFunction: "sum:", arguments: [NSExpression(forKeyPath: "rating")])
    total.expressionResultType = .integer64AttributeType
    let rows = try stack.context.performAndWait {
      let request = NSFetchRequest<NSDictionary>(entityName: "Note")
      request.propertiesToFetch = ["notebook.name", total]
      request.propertiesToGroupBy = ["notebook.name"]
      request.predicate = NSPredicate(format: "notebook != nil")
      request.sortDescriptors = [NSSortDescriptor(key: "notebook.name", ascending: true)]
      return try stack.context.fetch(request)
    }
    #expect(rows.map { "\($0["notebook.name"] ?? "") \($0["total"] ?? "")" } == ["Home 21", "Work 15"])
  }
}
