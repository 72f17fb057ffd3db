import EngineTestSupport
import Foundation
import TestSupport
import Testing

@testable import ObjectGraph

/// Predicates deep without parentheses (issue 35, item 5): flat arithmetic chains, `NOT`s and `AND`s built
/// in code, and `||` folded thousands of times. Each ends in a result or a thrown `ObjectGraphError`, never
/// a stack overflow. The shapes that crashed the engine run in a child process, so that a regression fails
/// the test instead of killing the test runner.
@Suite("Predicates deep without parentheses end in a result or an ObjectGraphError", .timeLimit(.minutes(5)), .temporaryFolders)
struct PredicateDepthTests {
  /// `rating == 1 + 1 + …` with `terms` ones: a left-deep arithmetic tree `terms` levels deep, though it
  /// has no parentheses.
  static func chain(_ terms: Int) -> String {
    "rating == " + Array(repeating: "1", count: terms).joined(separator: " + ")
  }

  /// `rating == i` as a predicate.
  static func rating(_ value: Int) throws -> NSPredicate {
    NSPredicate(format: "rating == %d", value)
  }

  /// A store of `Note`s rated 0…19, and one rated 100,000.
  static func populated(_ folder: TemporaryFolder, type: NSPersistentStore.StoreType = .sqlite) throws -> StoreStack {
    let stack = try StoreStack(type: type, folder: folder)
    try stack.context.performAndWait {
      for rating in Array(0..<20) + [100_000] {
        let note = Note(context: stack.context)
        note.title = "note \(rating)"
        note.rating = Int64(rating)
      }
      try stack.context.save()
    }
    return stack
  }

  /// What using a predicate everywhere gave: the fetched ratings (from the store, then with a pending
  /// change, which the in-memory evaluator answers) or the error each step threw.
  struct Outcome {
    var format = ""
    var fetched: Result<[Int64], ObjectGraphError> = .success([])
    var pending: Result<[Int64], ObjectGraphError> = .success([])
  }

  /// Prints the predicate, fetches with it from the store, then with an unsaved change (evaluated in
  /// memory). A Swift error of another type than `ObjectGraphError` is rethrown.
  static func use(_ predicate: NSPredicate, on stack: StoreStack) throws -> Outcome {
    var outcome = Outcome()
    outcome.format = predicate.engineFormat
    outcome.fetched = try fetchRatings(predicate, stack.freshContext())
    let context = stack.freshContext()
    context.performAndWait {
      let note = Note(context: context)
      note.title = "pending"
      note.rating = 7
    }
    outcome.pending = try fetchRatings(predicate, context)
    return outcome
  }

  private static func fetchRatings(_ predicate: NSPredicate, _ context: NSManagedObjectContext) throws
    -> Result<[Int64], ObjectGraphError>
  {
    try context.performAndWait {
      let request = NSFetchRequest<Note>(entityName: "Note")
      request.predicate = predicate
      do {
        return .success(try context.fetch(request).map(\.rating).sorted())
      } catch let error as ObjectGraphError {
        return .failure(error)
      }
    }
  }

  /// A failure the child reports by throwing (its exit status is then not success).
  struct Unexpected: Error, CustomStringConvertible {
    let description: String
  }

  /// Throws ``Unexpected`` unless `result` is an error of `code` whose message contains `words`.
  static func requireError<T>(
    _ result: Result<T, ObjectGraphError>, _ code: ObjectGraphError.Code, mentioning words: String
  ) throws {
    guard case .failure(let error) = result, error.code == code, error.message.contains(words) else {
      throw Unexpected(description: "expected \(code) mentioning \"\(words)\", got \(result)")
    }
  }

  // MARK: - In a child process: the shapes that overflowed the stack

  @Test("A flat arithmetic chain of 3,000 or 10,000 terms is refused by the parser, naming the limit", arguments: [3_000, 10_000])
  func arithmeticChain(terms: Int) async throws {
    let folder = try TemporaryFolder()
    // Before: 3,000 terms parsed, then predicateFormat recursed until SIGSEGV; 10,000 crashed the SQL compiler.
    await #expect(processExitsWith: .success) { [terms = terms as Int, folder = folder as TemporaryFolder] in
      let format = PredicateDepthTests.chain(terms)
      // Making the predicate keeps the parser's message; every fetch with it throws that message.
      let predicate = NSPredicate(format: format)
      guard predicate.formatError?.contains("\(PredicateNode.maximumDepth) levels deep") == true else {
        throw Unexpected(description: "a chain of \(terms) terms parsed")
      }
      let outcome = try PredicateDepthTests.use(predicate, on: PredicateDepthTests.populated(folder))
      for result in [outcome.fetched, outcome.pending] {
        try PredicateDepthTests.requireError(result, .predicateSyntax, mentioning: "\(PredicateNode.maximumDepth) levels deep")
      }
    }
  }

  @Test("10,000 NOTs or NOT/AND levels built in code: fetching throws the depth error, evaluating answers", arguments: ["NOT", "AND"])
  func programmaticLevels(shape: String) async throws {
    let folder = try TemporaryFolder()
    // Before: the SQL compiler recursed 10,000 levels deep and overflowed the stack.
    await #expect(processExitsWith: .success) { [folder = folder as TemporaryFolder, shape = shape as String] in
      let stack = try PredicateDepthTests.populated(folder)
      let other = try PredicateDepthTests.rating(3)
      var predicate = try PredicateDepthTests.rating(1)
      for _ in 0..<10_000 {
        predicate =
          shape == "NOT"
          ? !predicate
          : NSCompoundPredicate(andPredicateWithSubpredicates: [NSCompoundPredicate(notPredicateWithSubpredicate: predicate), other])
      }
      let outcome = try PredicateDepthTests.use(predicate, on: stack)
      try PredicateDepthTests.requireError(
        outcome.fetched, .predicateSyntax, mentioning: "\(PredicateNode.maximumDepth) levels deep")
      try PredicateDepthTests.requireError(
        outcome.pending, .predicateSyntax, mentioning: "\(PredicateNode.maximumDepth) levels deep")
      let object = try stack.freshContext().performAndWait {
        try stack.freshContext().fetch(NSFetchRequest<Note>(entityName: "Note"))[0]
      }
      // Foundation's own NSCompoundPredicate evaluates itself in memory: it answers, without a crash.
      _ = predicate.evaluate(with: object)
    }
  }

  @Test("Folding || or && 10,000 times gives one flat compound that fetches the right rows", arguments: ["||", "&&"])
  func tenThousandFolds(fold: String) async throws {
    let folder = try TemporaryFolder()
    // Before: `||` nested 10,000 ORs, and compiling them overflowed the stack.
    await #expect(processExitsWith: .success) { [folder = folder as TemporaryFolder, fold = fold as String] in
      let stack = try PredicateDepthTests.populated(folder)
      var predicate = NSPredicate(format: fold == "||" ? "rating == 0" : "rating != 20000")
      for value in 1..<10_000 {
        predicate =
          fold == "||"
          ? predicate || (try PredicateDepthTests.rating(value))
          : predicate && (NSPredicate(format: "rating != %d", 20_000 + value))
      }
      let outcome = try PredicateDepthTests.use(predicate, on: stack)
      switch predicate.node {
      case .or(let terms) where fold == "||" && terms.count == 10_000: break
      case .and(let terms) where fold == "&&" && terms.count == 10_000: break
      default: throw Unexpected(description: "the fold is not one flat compound of 10,000 terms")
      }
      let stored = Array(0..<20).map(Int64.init) + (fold == "&&" ? [100_000] : [])
      guard case .success(let fetched) = outcome.fetched, fetched == stored else {
        throw Unexpected(description: "fetched \(outcome.fetched), expected \(stored)")
      }
      guard case .success(let pending) = outcome.pending, pending == (stored + [7]).sorted() else {
        throw Unexpected(description: "with a pending note, fetched \(outcome.pending)")
      }
      guard outcome.format.hasPrefix(fold == "||" ? "rating == 0 OR rating == 1 OR " : "rating != 20000 AND ") else {
        throw Unexpected(description: "printed \(outcome.format.prefix(80))")
      }
    }
  }

  // MARK: - In process

  @Test("100 || folds fetch the right rows from a real SQLite store (before: SQLite's parser stack overflow)")
  func hundredFolds() throws {
    let stack = try Self.populated(TemporaryFolder())
    var predicate = try Self.rating(0)
    for value in 1...100 where value % 2 == 0 { predicate = predicate || (try Self.rating(value)) }
    for value in 1...100 where value % 2 == 1 { predicate = predicate || (try Self.rating(value)) }
    let outcome = try Self.use(predicate, on: stack)
    #expect(try outcome.fetched.get() == Array(0..<20).map(Int64.init))
    #expect(try outcome.pending.get() == (Array(0..<20) + [7]).map(Int64.init).sorted())
    #expect(NSPredicate(format: outcome.format).node == predicate.node)
  }

  @Test("|| and && append to an existing OR / AND, as the compound initialisers do; NOT and mixed ones nest")
  func flattening() throws {
    let (a, b, c) = (try Self.rating(1), try Self.rating(2), try Self.rating(3))
    #expect(((a || b) || c).node == .or([a.node, b.node, c.node]))
    #expect((a || (b || c)).node == .or([a.node, b.node, c.node]))
    #expect(((a && b) && (b && c)).node == .and([a.node, b.node, b.node, c.node]))
    #expect(NSCompoundPredicate(orPredicateWithSubpredicates: [a || b, c]).node == .or([a.node, b.node, c.node]))
    #expect(((a && b) || c).node == .or([.and([a.node, b.node]), c.node]))
    #expect((!(a || b) || c).node == .or([.not(.or([a.node, b.node])), c.node]))
    #expect(((a || b) || c).engineFormat == "rating == 1 OR rating == 2 OR rating == 3")
  }

  @Test("The limit: a tree exactly maximumDepth deep parses, prints, evaluates and fetches; one level more is refused")
  func theLimit() throws {
    let stack = try Self.populated(TemporaryFolder())
    let limit = PredicateNode.maximumDepth
    // `rating == 1 + … + 1` is the comparison, its chain of n - 1 `+`, and the 1s at the bottom: n + 1 deep.
    let fits = NSPredicate(format: Self.chain(limit - 1))
    #expect(fits.node.depth == limit)
    #expect(try Self.use(fits, on: stack).fetched.get() == [])
    let error = expectCode(.predicateSyntax) { _ = try FetchPredicate(NSPredicate(format: Self.chain(limit))) }
    #expect(error?.message.contains("more than \(limit) levels deep") == true, "\(error?.message ?? "")")

    // NOT in code: the comparison is 2 deep, so limit - 2 NOTs fit.
    var nots = try Self.rating(5)
    for _ in 0..<(limit - 2) { nots = !nots }
    #expect(nots.node.depth == limit)
    let outcome = try Self.use(nots, on: stack)
    #expect(try outcome.fetched.get() == [5])
    let tooDeep = !nots
    let refused = try Self.use(tooDeep, on: stack)
    #expect(throws: ObjectGraphError.self) { try refused.fetched.get() }
    #expect(refused.format.contains("levels deep"))
    // Building on a refused predicate keeps it refused, and small.
    #expect((tooDeep || nots).node == .tooDeep)
    #expect((!tooDeep).node == .tooDeep)
    #expect(throws: ObjectGraphError.self) { try Self.use(tooDeep && nots, on: stack).fetched.get() }
  }

  @Test("Nesting up to the limit fetches in SQLite: NOTs, AND inside OR inside AND, arithmetic in parentheses")
  func sqliteTakesTheLimit() throws {
    let stack = try Self.populated(TemporaryFolder())
    let limit = PredicateNode.maximumDepth
    let nots = String(repeating: "NOT ", count: limit - 2) + "rating == 4"
    #expect(try Self.use(NSPredicate(format: nots), on: stack).fetched.get() == [4])
    // (rating == 0 OR (rating != 1 AND (rating == 1 OR (… rating == 2)))) nested limit - 2 groups deep.
    var nested = "rating == 2"
    for level in 0..<(limit - 2) { nested = level % 2 == 0 ? "rating != 1 AND (\(nested))" : "rating == 0 OR (\(nested))" }
    let alternating = NSPredicate(format: nested)
    #expect(alternating.node.depth <= limit)
    #expect(try Self.use(alternating, on: stack).fetched.get() == [0, 2])
    var arithmetic = "1"
    for _ in 0..<(limit - 3) { arithmetic = "(1 * \(arithmetic))" }
    #expect(try Self.use(NSPredicate(format: "rating == " + arithmetic), on: stack).fetched.get() == [1])
  }
}
