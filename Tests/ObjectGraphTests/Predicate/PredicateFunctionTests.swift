import EngineTestSupport
import Foundation
import TestSupport
import Testing

@testable import ObjectGraph

/// `NSExpression`'s predefined functions in predicates (`sqrt:(x)`, `raise:toPower:`, `x ** y`,
/// `lowercase:(x)`, `now()`…), written in a format or built with `NSExpression(forFunction:arguments:)`:
/// each answered by SQLite and by the in-memory evaluator, which must agree; and the functions that cannot
/// be (`random`, `FUNCTION(…)`) refused, naming themselves.
@Suite("Predicate functions", .temporaryFolders)
struct PredicateFunctionTests {
  /// Ten notes rated 0–9 ("Alpha" … "kappa"); Work holds ratings 0–5, Home 6–8. A note rated n was made
  /// (n − 4.5) days from now: ratings 0–4 in the past, 5–9 in the future.
  private func populated(_ type: NSPersistentStore.StoreType) throws -> StoreStack {
    let stack = try StoreStack(type: type)
    try stack.context.performAndWait {
      let work = Notebook(context: stack.context)
      work.name = "Work"
      let home = Notebook(context: stack.context)
      home.name = "Home"
      let empty = Notebook(context: stack.context)
      empty.name = "Empty"
      let titles = ["Alpha", "beta", "Gamma", "delta", "Épée", "zeta", "Eta", "theta", "Iota", "kappa"]
      for (index, title) in titles.enumerated() {
        let note = Note(context: stack.context)
        note.title = title
        note.rating = Int64(index)
        note.createdAt = Date().addingTimeInterval((Double(index) - 4.5) * 86_400)
        note.notebook = index < 6 ? work : (index < 9 ? home : nil)
      }
      try stack.context.save()
    }
    return stack
  }

  private func notes(_ stack: StoreStack, _ format: String, _ arguments: Any?...) throws -> [String] {
    try stack.agreedMatches("Note", "title", NSPredicate(format: format, argumentArray: arguments.map { $0 as Any }))
  }

  private func notebooks(_ stack: StoreStack, _ format: String) throws -> [String] {
    try stack.agreedMatches("Notebook", "name", NSPredicate(format: format))
  }

  @Test("Number functions: sqrt, abs, floor, ceiling, trunc, ln, log, exp, modulus, in SQL and in memory alike", arguments: bothStoreTypes)
  func numberFunctions(type: NSPersistentStore.StoreType) throws {
    let stack = try populated(type)
    #expect(try notes(stack, "sqrt(rating) == 3") == ["kappa"])
    #expect(try notes(stack, "sqrt:(rating) == 2") == ["Épée"])
    #expect(try notes(stack, "abs(rating - 5) <= 1") == ["Eta", "zeta", "Épée"])
    #expect(try notes(stack, "floor(rating / 4) == 1") == ["Eta", "theta", "zeta", "Épée"])
    #expect(try notes(stack, "ceiling(rating / 4) == 1") == ["Gamma", "beta", "delta", "Épée"])
    #expect(try notes(stack, "trunc(-rating / 4) == -1") == ["Eta", "theta", "zeta", "Épée"])
    #expect(try notes(stack, "ln(rating) > 2") == ["Iota", "kappa"])
    #expect(try notes(stack, "log(rating) == 0") == ["beta"])
    #expect(try notes(stack, "exp(rating) > 1000") == ["Iota", "kappa", "theta"])
    #expect(try notes(stack, "modulus:by:(rating, 4) == 1") == ["beta", "kappa", "zeta"])
    // Functions nest, take arithmetic and collection operators, and take part in arithmetic.
    #expect(try notes(stack, "sqrt(abs(rating - 10)) + 1 == 4") == ["beta"])
    #expect(try notebooks(stack, "sqrt(notes.@count * 3) == 3") == ["Home"])
    #expect(try notes(stack, "sqrt(%@) == rating", 9) == ["delta"])
  }

  @Test("Powers: raise:toPower:, raise(…) and **, which binds tighter than * and groups from the right", arguments: bothStoreTypes)
  func powers(type: NSPersistentStore.StoreType) throws {
    let stack = try populated(type)
    #expect(try notes(stack, "raise(rating, 2) == 49") == ["theta"])
    #expect(try notes(stack, "raise:toPower:(2, rating) == 8") == ["delta"])
    #expect(try notes(stack, "rating ** 2 == 64") == ["Iota"])
    #expect(try notes(stack, "2 * rating ** 2 == 50") == ["zeta"])
    #expect(try notes(stack, "2 ** rating == 512") == ["kappa"])
    #expect(try notes(stack, "2 ** 3 ** 2 == 512").count == 10, "2 ** 9, not 8 ** 2")
    #expect(try notes(stack, "(rating - 1) ** 0.5 == 2") == ["zeta"])
  }

  @Test("nil in gives nil out, and a result that is not a number (sqrt of a negative) is nil", arguments: bothStoreTypes)
  func nilAndNotANumber(type: NSPersistentStore.StoreType) throws {
    let stack = try populated(type)
    #expect(try notes(stack, "sqrt(rating - 5) == nil") == ["Alpha", "Gamma", "beta", "delta", "Épée"])
    #expect(try notes(stack, "sqrt(%@) == nil", nil).count == 10)
    #expect(try notes(stack, "lowercase(body) == nil").count == 10)
    #expect(try notes(stack, "modulus:by:(rating, 0) == nil").count == 10)
    #expect(try notebooks(stack, "abs(notes.@max.rating) == nil") == ["Empty"])
  }

  @Test("lowercase and uppercase, on attributes, through to-ones and on values", arguments: bothStoreTypes)
  func stringFunctions(type: NSPersistentStore.StoreType) throws {
    let stack = try populated(type)
    #expect(try notes(stack, "lowercase(title) == 'alpha'") == ["Alpha"])
    #expect(try notes(stack, "uppercase:(title) == 'ÉPÉE'") == ["Épée"])
    #expect(try notes(stack, "lowercase(notebook.name) == 'home'") == ["Eta", "Iota", "theta"])
    #expect(try notes(stack, "title == uppercase(%@)", "eta").isEmpty)
    #expect(try notes(stack, "lowercase(title) BEGINSWITH 'e'") == ["Eta"])
  }

  @Test("now() is the current date, in SQL and in memory", arguments: bothStoreTypes)
  func now(type: NSPersistentStore.StoreType) throws {
    let stack = try populated(type)
    #expect(try notes(stack, "createdAt < now()") == ["Alpha", "Gamma", "beta", "delta", "Épée"])
    #expect(try notes(stack, "now() < createdAt").count == 5)
  }

  @Test("NSExpression(forFunction:arguments:) in an NSComparisonPredicate runs as the same format does", arguments: bothStoreTypes)
  func builtInCode(type: NSPersistentStore.StoreType) throws {
    let stack = try populated(type)
    let root = NSComparisonPredicate(
      leftExpression: NSExpression(forFunction: "sqrt:", arguments: [NSExpression(forKeyPath: "rating")]),
      rightExpression: NSExpression(forConstantValue: 3), modifier: .direct, type: .equalTo, options: [])
    #expect(try stack.agreedMatches("Note", "title", root) == ["kappa"])
    #expect(root.engineFormat == "sqrt:(rating) == 3")
    let power = NSComparisonPredicate(
      leftExpression: NSExpression(
        forFunction: "raise:toPower:", arguments: [NSExpression(forKeyPath: "rating"), NSExpression(forConstantValue: 2)]),
      rightExpression: NSExpression(forConstantValue: 36), modifier: .direct, type: .equalTo, options: [])
    #expect(try stack.agreedMatches("Note", "title", power) == ["Eta"])
    let lower = NSComparisonPredicate(
      leftExpression: NSExpression(forFunction: "lowercase:", arguments: [NSExpression(forKeyPath: "title")]),
      rightExpression: NSExpression(forConstantValue: "gamma"), modifier: .direct, type: .equalTo, options: [])
    #expect(try stack.agreedMatches("Note", "title", lower) == ["Gamma"])
    let past = NSComparisonPredicate(
      leftExpression: NSExpression(forKeyPath: "createdAt"), rightExpression: NSExpression(forFunction: "now", arguments: []),
      modifier: .direct, type: .lessThan, options: [])
    #expect(try stack.agreedMatches("Note", "title", past).count == 5)
    #expect(past.engineFormat == "createdAt < now()")
    let parsed = NSExpression(format: "sqrt:(rating) + 1")
    #expect(parsed.expressionType == .function)
  }

  @Test("Index access: [FIRST], [LAST], [n] on aggregates and array arguments, [SIZE] also on to-manys", arguments: bothStoreTypes)
  func indexAccess(type: NSPersistentStore.StoreType) throws {
    let stack = try populated(type)
    #expect(try notes(stack, "{1, 2, 3}[FIRST] == rating") == ["beta"])
    #expect(try notes(stack, "rating == {1, 2, 3}[LAST]") == ["delta"])
    #expect(try notes(stack, "rating == {1, 2, 3}[SIZE]") == ["delta"])
    #expect(try notes(stack, "rating == {1, 2, 3}[1]") == ["Gamma"])
    #expect(try notes(stack, "{1, 2, 3}[3] == nil").count == 10, "past the end is nil")
    #expect(try notes(stack, "{}[FIRST] == nil").count == 10)
    #expect(try notes(stack, "rating == %@[LAST]", [4, 5]) == ["zeta"])
    #expect(try notes(stack, "rating * 2 == {rating, 4}[SIZE] * 4") == ["Épée"])
    #expect(try notebooks(stack, "notes[SIZE] == 3") == ["Home"])
    #expect(try notebooks(stack, "notes[SIZE] == 0") == ["Empty"])
    #expect(try notebooks(stack, "SUBQUERY(notes, $n, $n.notebook.notes[SIZE] == 6).@count == 6") == ["Work"])
    #expect(try notes(stack, "notebook.notes[SIZE] == 3") == ["Eta", "Iota", "theta"])
  }

  @Test("predicateFormat prints functions as Apple names them, and the print parses back to the same predicate")
  func formatRoundTrip() throws {
    for format in [
      "sqrt(rating) == 3", "sqrt:(rating) == 3", "raise:toPower:(rating, 2) == 4", "rating ** 2 * 2 == 8", "2 ** 3 ** 2 == 512",
      "createdAt < now()", "lowercase(title) == 'a'", "modulus:by:(rating, 4) == 1", "abs(-rating + 1) > floor(2.5)",
      "sqrt(rating) > $limit", "notes[SIZE] == 3", "{1, 2, 3}[1] == rating", "{1, 2}[LAST] + 1 == rating", "(rating + 1)[FIRST] == 1",
    ] {
      let predicate = NSPredicate(format: format)
      let reparsed = NSPredicate(format: predicate.engineFormat)
      #expect(reparsed.node == predicate.node, "\(format) printed as \(predicate.engineFormat)")
    }
    #expect(NSPredicate(format: "sqrt(rating) == 3").engineFormat == "sqrt:(rating) == 3")
    #expect(NSPredicate(format: "2 ** rating > 4").engineFormat == "raise:toPower:(2, rating) > 4")
    #expect(NSPredicate(format: "uppercase(title) == 'A'").engineFormat == #"uppercase:(title) == "A""#)
    #expect(NSPredicate(format: "notes[size] == 3").engineFormat == "notes[SIZE] == 3")
    #expect(NSPredicate(format: "{1, 2}[0] == 1").engineFormat == "{1, 2}[0] == 1")
  }

  @Test("Misuse is refused, naming the function: wrong kinds, wrong counts, random, FUNCTION, unknown names", arguments: bothStoreTypes)
  func misuse(type: NSPersistentStore.StoreType) throws {
    let stack = try populated(type)
    let syntax: [(String, String)] = [
      ("random() > 1", "random"), ("random:({1, 2}) == 1", "random:"), ("FUNCTION(title, 'uppercaseString') == 'A'", "Objective-C"),
      ("distanceToLocation:fromLocation:(here, there) > 1", "distanceToLocation"), ("sqrt(rating, 2) > 1", "takes 1 argument"),
      ("now(rating) > 1", "takes 0 arguments"),
      ("sqrt(rating > 1", "')'"), ("rating ** > 1", "**"), ("tags[MIDDLE] == 1", "FIRST, LAST, SIZE"), ("tags[1.5] == 1", "whole number"),
      ("tags[0 == 1", "']'"),
    ]
    for (format, mentioned) in syntax {
      let error = expectCode(.predicateSyntax) { _ = try FetchPredicate(NSPredicate(format: format)) }
      #expect(error?.message.contains(mentioned) == true, "\(format): \(error?.message ?? "")")
    }
    let context = stack.freshContext()
    try context.performAndWait {
      let anyNote = try context.fetch(NSFetchRequest<Note>(entityName: "Note"))[0]
      /// Checks that the store and the evaluator refuse the predicate alike, each naming `mentioned`.
      func refused(_ predicate: NSPredicate, _ code: ObjectGraphError.Code, _ mentioned: String) {
        let request = NSFetchRequest<NSManagedObject>(entityName: "Note")
        request.predicate = predicate
        let inSQL = expectCode(code) { _ = try context.fetch(request) }
        let inMemory = expectCode(code) { _ = try FetchPredicate(predicate).evaluate(with: anyNote) }
        for error in [inSQL, inMemory] {
          #expect(error?.message.contains(mentioned) == true, "\(predicate): \(error?.message ?? "")")
        }
      }
      refused(NSPredicate(format: "sqrt(title) > 1"), .invalidValue, "'sqrt:' works on numbers")
      refused(NSPredicate(format: "sqrt(%@) > 1", "nine"), .invalidValue, "'sqrt:' works on numbers")
      refused(NSPredicate(format: "abs(createdAt) > 1"), .invalidValue, "'abs:' works on numbers")
      refused(NSPredicate(format: "lowercase(rating) == 'a'"), .invalidValue, "lowercase: takes a string")
      refused(NSPredicate(format: "uppercase(%@) == 'A'", 1), .invalidValue, "uppercase: takes a string")
      refused(NSPredicate(format: "sqrt(tags) > 1"), .predicateSyntax, "tags")
      refused(NSPredicate(format: "tags[FIRST] == nil"), .predicateSyntax, "by position")
      refused(NSPredicate(format: "tags[0] == nil"), .predicateSyntax, "have no order")
      refused(NSPredicate(format: "5[SIZE] == 1"), .predicateSyntax, "is not one")
      let random = NSComparisonPredicate(
        leftExpression: NSExpression(forFunction: "random", arguments: []), rightExpression: NSExpression(forConstantValue: 0.5),
        modifier: .direct, type: .lessThan, options: [])
      refused(random, .predicateSyntax, "random")
      let unknown = NSComparisonPredicate(
        leftExpression: NSExpression(
          forFunction: "distanceToLocation:fromLocation:", arguments: [NSExpression(forKeyPath: "title"), NSExpression(forKeyPath: "body")]),
        rightExpression: NSExpression(forConstantValue: 1), modifier: .direct, type: .equalTo, options: [])
      refused(unknown, .predicateSyntax, "distanceToLocation:fromLocation:")
    }
  }
}
