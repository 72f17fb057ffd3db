import EngineTestSupport
import Foundation
import TestSupport
import Testing

@testable import ObjectGraph

/// The predicate constructs real Core Data code uses beyond comparisons: collection operators, SUBQUERY,
/// arithmetic, substitution variables, compound predicates built in code, and managed objects as
/// arguments. Each is answered by SQLite and by the in-memory evaluator, and the two must agree.
@Suite("Predicates for ported code", .temporaryFolders)
struct PredicatePortingTests {
  /// Two notebooks and ten notes with tags, as in the fetch tests: Work holds ratings 0–5, Home 6–8, and
  /// the note rated 9 has none; "Swift" tags the even ratings, "data" tags 0 and 5.
  private func populated(_ type: NSPersistentStore.StoreType) throws -> StoreStack {
    let stack = try StoreStack(type: type)
    try stack.context.performAndWait {
      let work = Notebook(context: stack.context)
      work.name = "Work"
      let home = Notebook(context: stack.context)
      home.name = "Home"
      let empty = Notebook(context: stack.context)
      empty.name = "Empty"
      let swift = Tag(context: stack.context)
      swift.name = "Swift"
      let data = Tag(context: stack.context)
      data.name = "data"
      let titles = ["Alpha", "beta", "Gamma", "delta", "Épée", "zeta", "Eta", "theta", "Iota", "kappa"]
      for (index, title) in titles.enumerated() {
        let note = Note(context: stack.context)
        note.title = title
        note.rating = Int64(index)
        note.notebook = index < 6 ? work : (index < 9 ? home : nil)
        if index.isMultiple(of: 2) { note.tags.insert(swift) }
        if index.isMultiple(of: 5) { note.tags.insert(data) }
      }
      try stack.context.save()
    }
    return stack
  }

  /// The `key` values of the `entity` objects a predicate matches, in SQL (a context with no pending
  /// changes) and in memory; checks that both agree.
  private func matches(
    _ stack: StoreStack, _ entity: String, _ key: String, _ predicate: NSPredicate,
    sourceLocation: SourceLocation = #_sourceLocation
  ) throws -> [String] {
    let (_, context) = try stack.reader()
    return try context.performAndWait {
      let request = NSFetchRequest<NSManagedObject>(entityName: entity)
      request.predicate = predicate
      request.sortDescriptors = [NSSortDescriptor(key: key, ascending: true)]
      let sql = try context.fetch(request).compactMap { $0.value(forKey: key) as? String }
      let all = NSFetchRequest<NSManagedObject>(entityName: entity)
      all.sortDescriptors = [NSSortDescriptor(key: key, ascending: true)]
      let memory = try context.fetch(all).filter { predicate.evaluate(with: $0) }.compactMap {
        $0.value(forKey: key) as? String
      }
      #expect(sql == memory, "SQL and memory disagree for \(predicate)", sourceLocation: sourceLocation)
      return sql
    }
  }

  private func notebooks(_ stack: StoreStack, _ format: String, _ arguments: Any?...) throws -> [String] {
    try matches(stack, "Notebook", "name", NSPredicate(format: format, argumentArray: arguments.map { $0 as Any }))
  }

  private func notes(_ stack: StoreStack, _ format: String, _ arguments: Any?...) throws -> [String] {
    try matches(stack, "Note", "title", NSPredicate(format: format, argumentArray: arguments.map { $0 as Any }))
  }

  @Test(
    "[l] compares canonically equivalent strings as equal and orders by the locale, the same in SQL and in memory",
    arguments: bothStoreTypes)
  func localeSensitiveComparisons(type: NSPersistentStore.StoreType) throws {
    let stack = try populated(type)
    let decomposed = "E\u{301}pe\u{301}e"  // "Épée" with combining accents: other bytes, the same text
    #expect(try notes(stack, "title == %@", decomposed) == [], "without [l], bytes are compared")
    #expect(try notes(stack, "title ==[l] %@", decomposed) == ["Épée"])
    #expect(try notes(stack, "title ==[cdl] %@", "EPEE") == ["Épée"])
    #expect(try notes(stack, "title BEGINSWITH[l] %@", "E\u{301}p") == ["Épée"])
    #expect(try notes(stack, "title IN[l] %@", [decomposed, "zeta"]) == ["zeta", "Épée"].sorted())
    // Bytes put every capital before "b"; the locale puts only "Alpha" there.
    #expect(try notes(stack, "title < %@", "b") == ["Alpha", "Eta", "Gamma", "Iota"])
    #expect(try notes(stack, "title <[l] %@", "b") == ["Alpha"])
    #expect(try notes(stack, "title >=[l] %@", "theta") == ["theta", "zeta"])
    #expect(try notes(stack, "rating <[l] 2").count == 2, "numbers keep their order")
    #expect(try notes(stack, "title BETWEEN[l] {'b', 'f'}") == ["beta", "delta", "Épée", "Eta"].sorted())
    #expect(try notes(stack, "title BETWEEN[c] {'b', 'e'}") == ["beta", "delta"], "options count in BETWEEN too")
    #expect(try PredicateParser.parse(format: "title ==[cl] 'x'", arguments: []).predicateFormat == "title ==[cl] \"x\"")
  }

  @Test("@sum, @avg, @min and @max reduce a to-many's values; empty sets give 0 for @sum and nil for the rest", arguments: bothStoreTypes)
  func collectionOperators(type: NSPersistentStore.StoreType) throws {
    let stack = try populated(type)
    #expect(try notebooks(stack, "notes.@sum.rating == 15") == ["Work"])
    #expect(try notebooks(stack, "notes.@sum.rating > 10") == ["Home", "Work"])
    #expect(try notebooks(stack, "notes.@sum.rating == 0") == ["Empty"])
    #expect(try notebooks(stack, "notes.@avg.rating == 7") == ["Home"])
    #expect(try notebooks(stack, "notes.@avg.rating == nil") == ["Empty"])
    #expect(try notebooks(stack, "notes.@min.rating == 0") == ["Work"])
    #expect(try notebooks(stack, "notes.@max.rating >= %d", 8) == ["Home"])
    #expect(try notebooks(stack, "notes.@max.title == 'Épée'") == ["Work"])
    #expect(try notebooks(stack, "notes.@min.rating == nil") == ["Empty"])
    #expect(try notebooks(stack, "%K > 3", "notes.@avg.rating") == ["Home"])
    // Reached through a to-one first, and on the right side.
    #expect(try notes(stack, "notebook.notes.@max.rating == 8") == ["Eta", "Iota", "theta"])
    #expect(try notes(stack, "rating > notebook.notes.@avg.rating") == ["Iota", "delta", "zeta", "Épée"])
  }

  @Test("SUBQUERY(...).@count counts the members that match, with $x and bare keys naming the member", arguments: bothStoreTypes)
  func subqueries(type: NSPersistentStore.StoreType) throws {
    let stack = try populated(type)
    #expect(try notes(stack, "SUBQUERY(tags, $t, $t.name == 'Swift').@count > 0") == ["Alpha", "Eta", "Gamma", "Iota", "Épée"])
    #expect(try notes(stack, "SUBQUERY(tags, $t, name BEGINSWITH[c] %@).@count == 1", "D") == ["Alpha", "zeta"])
    #expect(try notes(stack, "SUBQUERY(tags, $t, TRUEPREDICATE).@count == 2") == ["Alpha"])
    #expect(
      try notebooks(stack, "SUBQUERY(notes, $n, $n.rating > 4 AND ANY $n.tags.name == 'Swift').@count >= 1") == ["Home"])
    #expect(try notebooks(stack, "SUBQUERY(notes, $n, $n.rating > %d).@count == 0", 4) == ["Empty"])
    // Nested, with the inner one ranging over the outer one's member.
    #expect(
      try notebooks(stack, "SUBQUERY(notes, $n, SUBQUERY($n.tags, $t, $t.name == 'data').@count > 0).@count == 2") == ["Work"])
    // An outer variable used inside an inner subquery.
    #expect(
      try notebooks(stack, "SUBQUERY(notes, $n, SUBQUERY($n.tags, $t, $n.rating > 6).@count > 0).@count > 0") == ["Home"])
    // $x alone is the member itself.
    #expect(try notebooks(stack, "SUBQUERY(notes, $n, $n == %@).@count == 1", try noteID(stack, "Gamma")) == ["Work"])
  }

  @Test("Arithmetic: + - * /, precedence, parentheses, unary minus; / divides as doubles, by zero is nil", arguments: bothStoreTypes)
  func arithmetic(type: NSPersistentStore.StoreType) throws {
    let stack = try populated(type)
    #expect(try notes(stack, "rating * 2 > 14") == ["Iota", "kappa"])
    #expect(try notes(stack, "rating + 1 == 4") == ["delta"])
    #expect(try notes(stack, "1 + rating * 2 == 7") == ["delta"])
    #expect(try notes(stack, "(1 + rating) * 2 == 8") == ["delta"])
    #expect(try notes(stack, "rating / 2 == 1.5") == ["delta"])
    #expect(try notes(stack, "rating - 10 < -7") == ["Alpha", "Gamma", "beta"])
    #expect(try notes(stack, "-rating < -8") == ["kappa"])
    #expect(try notes(stack, "rating / 0 == nil").count == 10)
    #expect(try notes(stack, "rating * %d == %@", 3, 27) == ["kappa"])
    #expect(try notes(stack, "rating * 2 == notebook.notes.@count") == ["delta"])
    #expect(try notebooks(stack, "notes.@sum.rating / notes.@count == 2.5") == ["Work"])
    // Overflow turns into a double in SQLite and in memory alike, instead of wrapping round.
    #expect(try notes(stack, "rating + %@ < 0", Int64.max).isEmpty)
    #expect(try notes(stack, "rating * %@ > 1e19", Int64.max / 2).count == 7)
  }

  @Test("$VARIABLES are filled in by withSubstitutionVariables, every one required, the template unchanged", arguments: bothStoreTypes)
  func substitutionVariables(type: NSPersistentStore.StoreType) throws {
    let stack = try populated(type)
    let template = NSPredicate(format: "rating > $minimum AND notebook.name == $book")
    #expect(template.substitutionVariableNames == ["minimum", "book"])
    let filled = template.withSubstitutionVariables(["minimum": 3, "book": "Work"])
    #expect(try matches(stack, "Note", "title", filled) == ["zeta", "Épée"])
    #expect(filled.substitutionVariableNames.isEmpty)
    #expect(template.engineFormat == "rating > $minimum AND notebook.name == $book")
    let again = template.withSubstitutionVariables(["minimum": 7, "book": "Home"])
    #expect(try matches(stack, "Note", "title", again) == ["Iota"])
    // A collection for IN; a subquery's own variable is not a substitution variable.
    let names = NSPredicate(format: "title IN $titles").withSubstitutionVariables(["titles": ["beta", "Eta"]])
    #expect(try matches(stack, "Note", "title", names) == ["Eta", "beta"])
    let counted = NSPredicate(format: "SUBQUERY(notes, $n, $n.rating > $floor).@count == $count")
    #expect(counted.substitutionVariableNames == ["floor", "count"])
    let filledCount = counted.withSubstitutionVariables(["floor": 6, "count": 2])
    #expect(try matches(stack, "Notebook", "name", filledCount) == ["Home"])

    // A missing variable or a value predicates cannot hold makes a predicate that carries the message
    // (Core Data raises an exception); a fetch with it throws it.
    _ = expectCode(.predicateSyntax) { _ = try FetchPredicate(template.withSubstitutionVariables(["minimum": 3])) }
    _ = expectCode(.invalidValue) {
      _ = try FetchPredicate(template.withSubstitutionVariables(["minimum": 3, "book": NSObject()]))
    }
    _ = expectCode(.predicateSyntax) {
      _ = try FetchPredicate(NSPredicate(format: "title == $note.title").withSubstitutionVariables(["note": "x"]))
    }
    #expect(template.withSubstitutionVariables(["minimum": 3]).formatError?.contains("$book") == true)
    // Used without its values, in SQL and in memory.
    try stack.context.performAndWait {
      let request = NSFetchRequest<Note>(entityName: "Note")
      request.predicate = template
      _ = expectCode(.predicateSyntax) { _ = try stack.context.fetch(request) }
      let any = try stack.context.fetch(NSFetchRequest<Note>(entityName: "Note"))[0]
      // In memory, a variable without a value makes the predicate false (Core Data raises an exception).
      #expect(template.evaluate(with: any) == false)
      #expect(template.evaluate(with: any, substitutionVariables: ["minimum": -1, "book": any.notebook?.name as Any]))
    }
  }

  @Test("Compound predicates built in code, NSPredicate(value:) and NSCompoundPredicate", arguments: bothStoreTypes)
  func compoundPredicates(type: NSPersistentStore.StoreType) throws {
    let stack = try populated(type)
    let work = NSPredicate(format: "notebook.name == 'Work'")
    let high = NSPredicate(format: "rating >= 4")
    let tagged = NSPredicate(format: "ANY tags.name == 'data'")
    let both = NSCompoundPredicate(andPredicateWithSubpredicates: [work, high])
    #expect(try matches(stack, "Note", "title", both) == ["zeta", "Épée"])
    let either = NSCompoundPredicate(orPredicateWithSubpredicates: [both, tagged])
    #expect(try matches(stack, "Note", "title", either) == ["Alpha", "zeta", "Épée"])
    let not = NSCompoundPredicate(notPredicateWithSubpredicate: either)
    #expect(try matches(stack, "Note", "title", not).count == 7)
    #expect(try matches(stack, "Note", "title", !work && !high) == [])
    #expect(try matches(stack, "Note", "title", work || tagged).count == 6)
    #expect(try matches(stack, "Note", "title", NSPredicate(value: true)).count == 10)
    #expect(try matches(stack, "Note", "title", NSPredicate(value: false)).isEmpty)
    #expect(try matches(stack, "Note", "title", NSCompoundPredicate(andPredicateWithSubpredicates: [])).count == 10)
    #expect(try matches(stack, "Note", "title", NSCompoundPredicate(orPredicateWithSubpredicates: [])).isEmpty)
    #expect(either.engineFormat == #"(notebook.name == "Work" AND rating >= 4) OR ANY tags.name == "data""#)
    #expect(NSPredicate(value: false).engineFormat == "FALSEPREDICATE")
  }

  @Test("A managed object as an argument: read at the call, and still the same object after it is saved", arguments: bothStoreTypes)
  func managedObjectArguments(type: NSPersistentStore.StoreType) throws {
    let stack = try populated(type)
    let context = stack.context
    let (predicate, sets): (NSPredicate, NSPredicate) = try context.performAndWait {
      let work = try context.fetch(NSFetchRequest<Notebook>(entityName: "Notebook")).first { $0.name == "Work" }
      let tags = try context.fetch(NSFetchRequest<Tag>(entityName: "Tag"))
      let predicate = NSPredicate(format: "notebook == %@", work)
      let sets = NSPredicate(format: "ANY tags IN %@", Set(tags.filter { $0.name == "data" }))
      return (predicate, sets)
    }
    // The predicates are Sendable: made on one queue, used on another.
    #expect(try matches(stack, "Note", "title", predicate).count == 6)
    #expect(try matches(stack, "Note", "title", sets) == ["Alpha", "zeta"])

    // An unsaved notebook: matched in memory before the save, and by its permanent ID after it.
    let (fresh, beforeSave, afterSave, inOtherContext): (NSPredicate, [String], [String], [String]) =
      try context.performAndWait {
        let drafts = Notebook(context: context)
        drafts.name = "Drafts"
        let note = Note(context: context)
        note.title = "draft"
        note.notebook = drafts
        let fresh = NSPredicate(format: "notebook == %@ OR notebook IN %@", drafts, [drafts])
        let request = NSFetchRequest<Note>(entityName: "Note")
        request.predicate = fresh
        let beforeSave = try context.fetch(request).compactMap(\.title)
        #expect(drafts.objectID.isTemporaryID)
        try context.save()
        #expect(!drafts.objectID.isTemporaryID)
        #expect(fresh.engineFormat.contains(drafts.objectID.description))
        let afterSave = try context.fetch(request).compactMap(\.title)
        let other = stack.freshContext()
        let inOtherContext = try other.performAndWait { try other.fetch(request).compactMap(\.title) }
        return (fresh, beforeSave, afterSave, inOtherContext)
      }
    #expect(beforeSave == ["draft"])
    #expect(afterSave == ["draft"])
    #expect(inOtherContext == ["draft"])
    #expect(try matches(stack, "Note", "title", fresh) == ["draft"])
  }

  @Test("Pending changes are evaluated in memory with the new constructs, as the store would", arguments: bothStoreTypes)
  func pendingChanges(type: NSPersistentStore.StoreType) throws {
    let stack = try populated(type)
    let context = stack.context
    try context.performAndWait {
      let books = try context.fetch(NSFetchRequest<Notebook>(entityName: "Notebook"))
      let work = try #require(books.first { $0.name == "Work" })
      let empty = try #require(books.first { $0.name == "Empty" })
      let note = Note(context: context)
      note.title = "new"
      note.rating = 12
      note.notebook = empty
      let request = NSFetchRequest<Notebook>(entityName: "Notebook")
      request.sortDescriptors = [NSSortDescriptor(key: "name", ascending: true)]
      request.predicate = NSPredicate(format: "notes.@sum.rating >= 12 AND SUBQUERY(notes, $n, $n.rating * 2 > 20).@count == 1")
      #expect(try context.fetch(request).compactMap(\.name) == ["Empty"])
      note.notebook = work
      #expect(try context.fetch(request).compactMap(\.name) == ["Work"])
      #expect(try context.count(for: request) == 1)
      try context.save()
      let reader = stack.freshContext()
      #expect(try reader.performAndWait { try reader.fetch(request).compactMap(\.name) } == ["Work"])
    }
  }

  @Test("Misuse is refused, naming the construct: arithmetic on non-numbers, bad operators, bad subqueries", arguments: bothStoreTypes)
  func misuse(type: NSPersistentStore.StoreType) throws {
    let stack = try populated(type)
    for format in [
      "notes.@sum > 1", "notes.@count.rating > 1", "notes.@sum.rating.@avg.rating > 1", "notes.@median.rating > 1",
      "SUBQUERY(notes, $n, $n.rating > 1) > 0", "SUBQUERY(notes, n, rating > 1).@count > 0", "SUBQUERY(notes, $n).@count > 0",
      "SUBQUERY(5, $n, TRUEPREDICATE).@count > 0", "rating * > 1", "(rating + 1 > 2", "FUNCTION(rating, 'abs') > 1",
    ] {
      _ = expectCode(.predicateSyntax) { _ = try FetchPredicate(NSPredicate(format: format)) }
    }
    let context = stack.freshContext()
    try context.performAndWait {
      let anyNote = try context.fetch(NSFetchRequest<Note>(entityName: "Note"))[0]
      let anyBook = try context.fetch(NSFetchRequest<Notebook>(entityName: "Notebook"))[0]
      /// Checks that the store and the evaluator refuse the predicate alike, each naming `mentioned`.
      func refused(
        _ entity: String, _ format: String, _ code: ObjectGraphError.Code, _ mentioned: String, _ arguments: Any?...
      ) throws {
        let request = NSFetchRequest<NSManagedObject>(entityName: entity)
        request.predicate = NSPredicate(format: format, argumentArray: arguments.map { $0 as Any })
        let inSQL = expectCode(code) { _ = try context.fetch(request) }
        let object: NSManagedObject = entity == "Note" ? anyNote : anyBook
        let inMemory = expectCode(code) { _ = try request.predicate.map { try FetchPredicate($0).evaluate(with: object) } }
        for error in [inSQL, inMemory] {
          #expect(error?.message.contains(mentioned) == true, "\(format): \(error?.message ?? "")")
        }
      }
      try refused("Note", "title + 1 > 2", .invalidValue, "'+' works on numbers")
      try refused("Note", "rating + %@ > 2", .invalidValue, "\"one\" is not one", "one")
      try refused("Note", "rating * title > 2", .invalidValue, "'*' works on numbers")
      try refused("Notebook", "notes.@sum.title > 1", .invalidValue, "'@sum' works on numbers")
      try refused("Notebook", "notes.@avg.nothing > 1", .unknownKey, "'nothing'")
      try refused("Notebook", "notes + 1 > 1", .predicateSyntax, "@count, @sum")
      try refused("Notebook", "SUBQUERY(name, $n, TRUEPREDICATE).@count > 0", .predicateSyntax, "to-many")
      try refused("Notebook", "SUBQUERY(notes, $n, $n.nothing == 1).@count > 0", .unknownKey, "'nothing'")
      try refused("Notebook", "SUBQUERY(notes, $n, $m.rating == 1).@count > 0", .predicateSyntax, "$m")
    }
  }

  @Test("predicateFormat prints every new construct so that it parses back to the same predicate")
  func formatRoundTrip() throws {
    for format in [
      "notes.@sum.rating > 10", "notes.@avg.rating == nil", "notebook.notes.@max.createdAt < CAST(10.0, \"NSDate\")",
      "SUBQUERY(notes, $n, $n.rating > 4 AND ANY $n.tags.name == \"Swift\").@count >= 1",
      "SUBQUERY(notes, $n, SUBQUERY($n.tags, $t, $t.name == \"data\").@count > 0).@count == 2",
      "(1 + rating) * 2 == 8", "1 + rating * 2 == 7", "rating / (2 - 1) == 3", "-1 * rating < -8", "rating > $minimum",
      "title IN $titles AND rating BETWEEN {1, 2}",
    ] {
      let predicate = NSPredicate(format: format)
      let reparsed = NSPredicate(format: predicate.engineFormat)
      #expect(reparsed.node == predicate.node, "\(format) printed as \(predicate.engineFormat)")
    }
    #expect(NSPredicate(format: "(1 + rating) * 2 == 8").engineFormat == "(1 + rating) * 2 == 8")
    #expect(NSPredicate(format: "1 + (rating * 2) == 7").engineFormat == "1 + (rating * 2) == 7")
  }

  private func noteID(_ stack: StoreStack, _ title: String) throws -> NSManagedObjectID {
    let context = stack.freshContext()
    return try context.performAndWait {
      let request = NSFetchRequest<Note>(entityName: "Note")
      request.predicate = NSPredicate(format: "title == %@", title)
      return try #require(try context.fetch(request).first).objectID
    }
  }
}
