import Foundation
import Testing

@testable import ObjectGraph

/// Foundation also has a `PredicateExpression` (for `#Predicate`), so the tests name ObjectGraph's.
private typealias PredicateExpression = ObjectGraph.PredicateExpression

/// Tests of the format-string parser: the tree it builds, its errors, and printing trees back.
@Suite("Predicate parser")
struct PredicateParserTests {
  // MARK: - Helpers

  private func parse(_ format: String, _ arguments: any Sendable...) throws -> PredicateNode {
    try PredicateParser.parse(format: format, arguments: arguments)
  }

  private func key(_ path: String) -> PredicateExpression {
    .keyPath(path.isEmpty ? [] : path.split(separator: ".").map(String.init))
  }

  private func comparison(
    _ lhs: PredicateExpression, _ op: PredicateComparison.Operator, _ rhs: PredicateExpression,
    modifier: PredicateComparison.Modifier = .direct, options: PredicateComparison.Options = []
  ) -> PredicateNode {
    .comparison(PredicateComparison(modifier: modifier, lhs: lhs, op: op, rhs: rhs, options: options))
  }

  private func int(_ value: Int64) -> PredicateExpression { .constant(.integer(value)) }
  private func str(_ value: String) -> PredicateExpression { .constant(.string(value)) }

  /// `name == value` with `value` an integer.
  private func equals(_ name: String, _ value: Int64) -> PredicateNode {
    comparison(key(name), .equal, int(value))
  }

  /// The error `body` throws (failing the test when it does not throw an ObjectGraphError).
  private func error(_ body: () throws -> Void) -> ObjectGraphError? {
    do {
      try body()
      Issue.record("expected an error")
      return nil
    } catch let error as ObjectGraphError {
      return error
    } catch {
      Issue.record("unexpected error \(error)")
      return nil
    }
  }

  // MARK: - Operators

  @Test(
    "Each comparison operator",
    arguments: [
      ("a == 1", PredicateComparison.Operator.equal),
      ("a = 1", .equal),
      ("a != 1", .notEqual),
      ("a <> 1", .notEqual),
      ("a < 1", .less),
      ("a <= 1", .lessOrEqual),
      ("a =< 1", .lessOrEqual),
      ("a > 1", .greater),
      ("a >= 1", .greaterOrEqual),
      ("a => 1", .greaterOrEqual),
      ("a CONTAINS 1", .contains),
      ("a BEGINSWITH 1", .beginsWith),
      ("a ENDSWITH 1", .endsWith),
      ("a LIKE 1", .like),
      ("a MATCHES 1", .matches),
      ("a contains 1", .contains),
      ("a BeginsWith 1", .beginsWith),
      ("a like 1", .like),
    ])
  func comparisonOperators(format: String, op: PredicateComparison.Operator) throws {
    #expect(try parse(format) == comparison(key("a"), op, int(1)))
  }

  @Test func noSpacesAroundSymbols() throws {
    #expect(try parse("a==1") == equals("a", 1))
    #expect(try parse("a>=-2") == comparison(key("a"), .greaterOrEqual, int(-2)))
    #expect(try parse("a<>'x'") == comparison(key("a"), .notEqual, str("x")))
  }

  @Test func between() throws {
    #expect(try parse("a BETWEEN {1, 5}") == comparison(key("a"), .between, .aggregate([int(1), int(5)])))
    #expect(try parse("a between %@", [1, 5]) == comparison(key("a"), .between, .aggregate([int(1), int(5)])))
    #expect(try parse("a BETWEEN bounds") == comparison(key("a"), .between, key("bounds")))
  }

  @Test func betweenNeedsTwoBounds() throws {
    let literal = error { _ = try parse("a BETWEEN {1, 2, 3}") }
    #expect(literal?.code == .predicateSyntax)
    #expect(literal?.message.contains("position 10") == true)
    #expect(error { _ = try parse("a BETWEEN 4") }?.code == .predicateSyntax)
    let argument = error { _ = try parse("a BETWEEN %@", [1]) }
    #expect(argument?.code == .invalidValue)
    #expect(error { _ = try parse("a BETWEEN %@", 3) }?.code == .invalidValue)
  }

  @Test func inOperator() throws {
    #expect(try parse("a IN {1, 2}") == comparison(key("a"), .in, .aggregate([int(1), int(2)])))
    #expect(try parse("a IN %@", ["x", "y"]) == comparison(key("a"), .in, .aggregate([str("x"), str("y")])))
    #expect(try parse("a IN %@", Set([7])) == comparison(key("a"), .in, .aggregate([int(7)])))
    #expect(try parse("a IN {}") == comparison(key("a"), .in, .aggregate([])))
    #expect(try parse("a in[c] {'x'}") == comparison(key("a"), .in, .aggregate([str("x")]), options: .caseInsensitive))
  }

  @Test func inKeyPathBecomesAnyEqual() throws {
    #expect(try parse("%@ IN tags.name", "x") == comparison(key("tags.name"), .equal, str("x"), modifier: .any))
    #expect(
      try parse("'x' IN[c] tags.name")
        == comparison(key("tags.name"), .equal, str("x"), modifier: .any, options: .caseInsensitive))
  }

  @Test func inNeedsACollection() throws {
    let argument = error { _ = try parse("a IN %@", "x") }
    #expect(argument?.code == .invalidValue)
    let literal = error { _ = try parse("a IN 3") }
    #expect(literal?.code == .predicateSyntax)
    #expect(literal?.message.contains("position 5") == true)
  }

  // MARK: - Options

  private static let optionCases: [(String, PredicateComparison.Options)] = [
    ("[c]", .caseInsensitive),
    ("[d]", .diacriticInsensitive),
    ("[cd]", [.caseInsensitive, .diacriticInsensitive]),
    ("[dc]", [.caseInsensitive, .diacriticInsensitive]),
    ("[C]", .caseInsensitive),
    ("[n]", []),
    ("[cdn]", [.caseInsensitive, .diacriticInsensitive]),
  ]

  @Test("String options", arguments: optionCases)
  func stringOptions(text: String, options: PredicateComparison.Options) throws {
    for op in ["==", "!=", "CONTAINS", "BEGINSWITH", "ENDSWITH", "LIKE", "MATCHES"] {
      let node = try parse("name \(op)\(text) 'x'")
      guard case .comparison(let comparison) = node else {
        Issue.record("not a comparison: \(node)")
        continue
      }
      #expect(comparison.options == options)
      #expect(comparison.rhs == str("x"))
    }
  }

  @Test func unknownOption() throws {
    let failure = error { _ = try parse("name ==[x] 'a'") }
    #expect(failure?.code == .predicateSyntax)
    #expect(failure?.message.contains("position 8") == true)
    #expect(failure?.message.contains("'x'") == true)
    #expect(error { _ = try parse("name ==[c 'a'") }?.code == .predicateSyntax)
  }

  // MARK: - Logic

  @Test func andOrNotPrecedence() throws {
    #expect(
      try parse("a == 1 OR b == 2 AND c == 3")
        == .or([equals("a", 1), .and([equals("b", 2), equals("c", 3)])]))
    #expect(try parse("NOT a == 1 AND b == 2") == .and([.not(equals("a", 1)), equals("b", 2)]))
    #expect(
      try parse("a == 1 AND b == 2 OR c == 3")
        == .or([.and([equals("a", 1), equals("b", 2)]), equals("c", 3)]))
  }

  @Test func chainsFlatten() throws {
    #expect(try parse("a == 1 AND b == 2 AND c == 3") == .and([equals("a", 1), equals("b", 2), equals("c", 3)]))
    #expect(try parse("a == 1 OR b == 2 OR c == 3") == .or([equals("a", 1), equals("b", 2), equals("c", 3)]))
  }

  @Test func parentheses() throws {
    #expect(
      try parse("(a == 1 OR b == 2) AND c == 3")
        == .and([.or([equals("a", 1), equals("b", 2)]), equals("c", 3)]))
    #expect(try parse("NOT (a == 1 AND b == 2)") == .not(.and([equals("a", 1), equals("b", 2)])))
    #expect(try parse("((a == 1))") == equals("a", 1))
    #expect(try parse("NOT NOT a == 1") == .not(.not(equals("a", 1))))
  }

  @Test func symbolSynonyms() throws {
    #expect(
      try parse("a == 1 || b == 2 && !c == 3")
        == .or([equals("a", 1), .and([equals("b", 2), .not(equals("c", 3))])]))
    #expect(try parse("!(a == 1)") == .not(equals("a", 1)))
  }

  @Test func keywordsAnyCase() throws {
    #expect(
      try parse("a == 1 and b == 2 Or not c == 3")
        == .or([.and([equals("a", 1), equals("b", 2)]), .not(equals("c", 3))]))
    #expect(try parse("any tags.name == nil") == comparison(key("tags.name"), .equal, .constant(.null), modifier: .any))
  }

  @Test func constantPredicates() throws {
    #expect(try parse("TRUEPREDICATE") == .constant(true))
    #expect(try parse("falsepredicate") == .constant(false))
    #expect(try parse("TRUEPREDICATE AND a == 1") == .and([.constant(true), equals("a", 1)]))
  }

  // MARK: - Literals

  @Test func nullLiterals() throws {
    #expect(try parse("a == nil") == comparison(key("a"), .equal, .constant(.null)))
    #expect(try parse("a != NULL") == comparison(key("a"), .notEqual, .constant(.null)))
    #expect(try parse("nil == a") == comparison(.constant(.null), .equal, key("a")))
  }

  @Test func booleanLiterals() throws {
    for (text, value) in [
      ("TRUE", true), ("YES", true), ("FALSE", false), ("NO", false), ("yes", true), ("false", false),
    ] {
      #expect(try parse("done == \(text)") == comparison(key("done"), .equal, .constant(.bool(value))))
    }
  }

  @Test func numbers() throws {
    #expect(try parse("a == 42") == equals("a", 42))
    #expect(try parse("a == -42") == equals("a", -42))
    #expect(try parse("a == 1.5") == comparison(key("a"), .equal, .constant(.double(1.5))))
    #expect(try parse("a == -0.25") == comparison(key("a"), .equal, .constant(.double(-0.25))))
    #expect(try parse("a == 2e3") == comparison(key("a"), .equal, .constant(.double(2000))))
    #expect(try parse("a == 1.5E-2") == comparison(key("a"), .equal, .constant(.double(0.015))))
    #expect(try parse("a == 0x1F") == equals("a", 31))
    #expect(try parse("a == -0xff") == equals("a", -255))
    #expect(try parse("a == 0o17") == equals("a", 15))
    #expect(try parse("a == 0b101") == equals("a", 5))
    #expect(try parse("a == 9223372036854775807") == equals("a", Int64.max))
    #expect(try parse("a == -9223372036854775808") == equals("a", Int64.min))
    #expect(try parse("a == 1.0") == comparison(key("a"), .equal, .constant(.double(1))))
  }

  @Test func badNumbers() throws {
    let overflow = error { _ = try parse("a == 9223372036854775808") }
    #expect(overflow?.code == .predicateSyntax)
    #expect(overflow?.message.contains("position 5") == true)
    #expect(error { _ = try parse("a == 12abc") }?.code == .predicateSyntax)
    #expect(error { _ = try parse("a == 0x") }?.code == .predicateSyntax)
    #expect(error { _ = try parse("a == 1e") }?.code == .predicateSyntax)
    #expect(error { _ = try parse("a == - ") }?.code == .predicateSyntax)
    // A minus before anything but a number negates it.
    #expect(try parse("a == - b") == comparison(key("a"), .equal, .arithmetic(.multiply, .constant(.integer(-1)), key("b"))))
  }

  @Test func strings() throws {
    #expect(try parse("a == 'x y'") == comparison(key("a"), .equal, str("x y")))
    #expect(try parse("a == \"x y\"") == comparison(key("a"), .equal, str("x y")))
    #expect(try parse(#"a == 'it\'s'"#) == comparison(key("a"), .equal, str("it's")))
    #expect(try parse(#"a == "say \"hi\"""#) == comparison(key("a"), .equal, str("say \"hi\"")))
    #expect(try parse(#"a == 'a\nb\tc\\d'"#) == comparison(key("a"), .equal, str("a\nb\tc\\d")))
    #expect(try parse(#"a == '\u00e9\u{1F600}'"#) == comparison(key("a"), .equal, str("é😀")))
    #expect(try parse(#"a == "it's""#) == comparison(key("a"), .equal, str("it's")))
    #expect(try parse("a == ''") == comparison(key("a"), .equal, str("")))
    #expect(try parse("a == 'émoji 😀'") == comparison(key("a"), .equal, str("émoji 😀")))
    // An unknown escape keeps its backslash, so LIKE patterns can escape wildcards.
    #expect(try parse(#"a LIKE '\*'"#) == comparison(key("a"), .like, str("\\*")))
  }

  @Test func specifiersInsideStringsAreLiteral() throws {
    #expect(try parse("a == '%@'") == comparison(key("a"), .equal, str("%@")))
    #expect(try parse("a == '100%%'") == comparison(key("a"), .equal, str("100%")))
    #expect(try parse("a == '5%'") == comparison(key("a"), .equal, str("5%")))
  }

  @Test func castDate() throws {
    #expect(
      try parse("d > CAST(100.5, \"NSDate\")")
        == comparison(key("d"), .greater, .constant(.date(Date(timeIntervalSinceReferenceDate: 100.5)))))
    #expect(error { _ = try parse("d > CAST(1, 'NSNumber')") }?.code == .predicateSyntax)
  }

  // MARK: - Format specifiers

  @Test func objectSpecifier() throws {
    let date = Date(timeIntervalSince1970: 1000)
    let uuid = UUID()
    #expect(try parse("a == %@", "x") == comparison(key("a"), .equal, str("x")))
    #expect(try parse("a == %@", 3) == equals("a", 3))
    #expect(try parse("a == %@", 2.5) == comparison(key("a"), .equal, .constant(.double(2.5))))
    #expect(try parse("a == %@", true) == comparison(key("a"), .equal, .constant(.bool(true))))
    #expect(try parse("a == %@", date) == comparison(key("a"), .equal, .constant(.date(date))))
    #expect(try parse("a == %@", uuid) == comparison(key("a"), .equal, .constant(.uuid(uuid))))
    #expect(try parse("a == %@", Data([1, 2])) == comparison(key("a"), .equal, .constant(.data(Data([1, 2])))))
    let entity = NSEntityDescription(name: "Tag", properties: [])
    let id = NSManagedObjectID.temporary(for: entity)
    #expect(try parse("SELF == %@", id) == comparison(key(""), .equal, .constant(.objectID(id))))
  }

  @Test("Foundation objects convert as the values they bridge to, and objects as what they name")
  func objectArguments() throws {
    func parseObjects(_ format: String, _ arguments: Any?...) throws -> PredicateNode {
      try PredicateParser.parse(format: format, arguments: arguments)
    }
    #expect(try parseObjects("a == %@", NSNumber(value: 7)) == equals("a", 7))
    #expect(try parseObjects("a == %@", NSNumber(value: 2.5)) == comparison(key("a"), .equal, .constant(.double(2.5))))
    #expect(try parseObjects("a == %@", NSNumber(value: true)) == comparison(key("a"), .equal, .constant(.bool(true))))
    #expect(try parseObjects("a == %@", NSString(string: "x")) == comparison(key("a"), .equal, str("x")))
    let date = Date(timeIntervalSinceReferenceDate: 10)
    #expect(try parseObjects("a == %@", NSDate(timeIntervalSinceReferenceDate: 10)) == comparison(key("a"), .equal, .constant(.date(date))))
    let entity = NSEntityDescription(name: "Tag", properties: [])
    #expect(try parseObjects("entity == %@", entity) == comparison(key("entity"), .equal, .constant(.entity("Tag"))))
    let id: NSManagedObjectID? = NSManagedObjectID.temporary(for: entity)
    #expect(try parseObjects("SELF == %@", id) == comparison(key(""), .equal, .constant(.objectID(try #require(id)))))
    #expect(throws: ObjectGraphError.self) { try parseObjects("a == %@", DispatchQueue.main) }
  }

  @Test func nilArguments() throws {
    let missing: String? = nil
    #expect(try parse("a == %@", missing) == comparison(key("a"), .equal, .constant(.null)))
    let nested: String?? = .some(nil)
    #expect(try parse("a == %@", nested) == comparison(key("a"), .equal, .constant(.null)))
    let present: String? = "x"
    #expect(try parse("a == %@", present) == comparison(key("a"), .equal, str("x")))
    let list: [Int?] = [1, nil]
    #expect(try parse("a IN %@", list) == comparison(key("a"), .in, .aggregate([int(1), .constant(.null)])))
  }

  @Test(
    "Integer specifiers",
    arguments: ["%d", "%i", "%ld", "%lld", "%u", "%lu", "%llu", "%hd", "%qd", "%zd", "%x"])
  func integerSpecifiers(specifier: String) throws {
    #expect(try parse("a == \(specifier)", 7) == equals("a", 7))
    #expect(try parse("a == \(specifier)", Int64(-3)) == equals("a", -3))
    #expect(try parse("a == \(specifier)", UInt8(9)) == equals("a", 9))
    #expect(try parse("a == \(specifier)", 4.0) == equals("a", 4))
  }

  @Test("Double specifiers", arguments: ["%f", "%lf", "%e", "%g", "%Lf"])
  func doubleSpecifiers(specifier: String) throws {
    #expect(try parse("a == \(specifier)", 1.25) == comparison(key("a"), .equal, .constant(.double(1.25))))
    #expect(try parse("a == \(specifier)", 2) == comparison(key("a"), .equal, .constant(.double(2))))
    #expect(try parse("a == \(specifier)", Float(0.5)) == comparison(key("a"), .equal, .constant(.double(0.5))))
  }

  @Test func stringSpecifier() throws {
    #expect(try parse("a == %s", "x") == comparison(key("a"), .equal, str("x")))
    #expect(error { _ = try parse("a == %s", 3) }?.code == .invalidValue)
  }

  @Test func specifierTypeMismatch() throws {
    let failure = error { _ = try parse("a == %d", "seven") }
    #expect(failure?.code == .invalidValue)
    #expect(failure?.message.contains("argument 1") == true)
    #expect(error { _ = try parse("a == %d", 2.5) }?.code == .invalidValue)
    #expect(error { _ = try parse("a == %f", "x") }?.code == .invalidValue)
  }

  @Test func unsupportedArgumentType() throws {
    struct Opaque: Sendable {}
    #expect(error { _ = try parse("a == %@", Opaque()) }?.code == .invalidValue)
  }

  @Test func keyPathSpecifier() throws {
    #expect(try parse("%K == 1", "rating") == equals("rating", 1))
    #expect(try parse("%K == %@", "category.name", "x") == comparison(key("category.name"), .equal, str("x")))
    #expect(try parse("%K.name == 'x'", "category") == comparison(key("category.name"), .equal, str("x")))
    #expect(try parse("%K == 1", "in") == comparison(.keyPath(["in"]), .equal, int(1)))
    #expect(
      try parse("%K > 2", "tags.@count") == comparison(.keyPath(["tags", "@count"]), .greater, int(2)))
  }

  @Test func keyPathSpecifierNeedsAString() throws {
    let failure = error { _ = try parse("%K == 1", 5) }
    #expect(failure?.code == .invalidValue)
    #expect(failure?.message.contains("String") == true)
    #expect(error { _ = try parse("%K == 1", "") }?.code == .invalidValue)
    #expect(error { _ = try parse("%K == 1", "a..b") }?.code == .invalidValue)
    #expect(error { _ = try parse("%K == 1", "tags.@sum") }?.code == .invalidValue)
  }

  @Test func positionalSpecifiers() throws {
    #expect(
      try parse("a == %2$@ AND b == %1$@", "one", "two")
        == .and([comparison(key("a"), .equal, str("two")), comparison(key("b"), .equal, str("one"))]))
    #expect(
      try parse("%1$K == %2$d OR %1$K == %2$d", "n", 4) == .or([equals("n", 4), equals("n", 4)]))
  }

  @Test func tooFewArguments() throws {
    let failure = error { _ = try parse("a == %@ AND b == %@", "x") }
    #expect(failure?.code == .predicateSyntax)
    #expect(failure?.message.contains("expects 2 arguments") == true)
    #expect(failure?.message.contains("1 was given") == true)
    #expect(error { _ = try parse("a == %2$@", "x") }?.code == .predicateSyntax)
  }

  @Test func tooManyArguments() throws {
    let failure = error { _ = try parse("a == %@", "x", "y") }
    #expect(failure?.code == .predicateSyntax)
    #expect(failure?.message.contains("expects 1 argument") == true)
    #expect(failure?.message.contains("2 were given") == true)
    #expect(error { _ = try parse("a == 1", 3) }?.code == .predicateSyntax)
  }

  @Test func badSpecifiers() throws {
    let unknown = error { _ = try parse("a == %q", 1) }
    #expect(unknown?.code == .predicateSyntax)
    #expect(unknown?.message.contains("position 5") == true)
    #expect(error { _ = try parse("a == %%") }?.code == .predicateSyntax)
    #expect(error { _ = try parse("a == %") }?.code == .predicateSyntax)
  }

  // MARK: - Key paths

  @Test func keyPaths() throws {
    #expect(try parse("category.name == 'x'") == comparison(key("category.name"), .equal, str("x")))
    #expect(try parse("a.b.c == 1") == equals("a.b.c", 1))
    #expect(try parse("_private == 1") == equals("_private", 1))
    #expect(try parse("name2 == 1") == equals("name2", 1))
    #expect(try parse("écrit == 1") == equals("écrit", 1))
  }

  @Test func selfKeyPath() throws {
    #expect(try parse("SELF == nil") == comparison(.keyPath([]), .equal, .constant(.null)))
    #expect(try parse("self.name == 'x'") == comparison(.keyPath(["name"]), .equal, str("x")))
    #expect(try parse("SELF IN %@", ["a"]) == comparison(.keyPath([]), .in, .aggregate([str("a")])))
    #expect(try parse("%K == nil", "self") == comparison(.keyPath([]), .equal, .constant(.null)))
    #expect(try parse("%K == 'x'", "SELF.name") == comparison(.keyPath(["name"]), .equal, str("x")))
  }

  @Test func escapedReservedWords() throws {
    #expect(try parse("#in == 1") == comparison(.keyPath(["in"]), .equal, int(1)))
    #expect(try parse("#ALL.#not == 1") == comparison(.keyPath(["ALL", "not"]), .equal, int(1)))
    #expect(try parse("item.order == 1") == comparison(.keyPath(["item", "order"]), .equal, int(1)))
  }

  @Test func count() throws {
    #expect(try parse("tags.@count > 2") == comparison(.keyPath(["tags", "@count"]), .greater, int(2)))
    #expect(try parse("a.tags.@COUNT == 0") == comparison(.keyPath(["a", "tags", "@count"]), .equal, int(0)))
    #expect(error { _ = try parse("tags.@sum > 2") }?.code == .predicateSyntax)
    #expect(error { _ = try parse("tags.@count.x > 2") }?.code == .predicateSyntax)
    #expect(error { _ = try parse("@count > 2") }?.code == .predicateSyntax)
  }

  @Test func modifiers() throws {
    #expect(try parse("ANY tags.name == 'x'") == comparison(key("tags.name"), .equal, str("x"), modifier: .any))
    #expect(try parse("SOME tags.name == 'x'") == comparison(key("tags.name"), .equal, str("x"), modifier: .any))
    #expect(try parse("ALL tags.rank > 1") == comparison(key("tags.rank"), .greater, int(1), modifier: .all))
    #expect(
      try parse("NONE tags.name BEGINSWITH[c] 'x'")
        == comparison(key("tags.name"), .beginsWith, str("x"), modifier: .none, options: .caseInsensitive))
    #expect(try parse("ANY %K == 1", "tags.rank") == comparison(key("tags.rank"), .equal, int(1), modifier: .any))
    #expect(try parse("NOT ANY tags.rank == 1") == .not(comparison(key("tags.rank"), .equal, int(1), modifier: .any)))
  }

  @Test func aggregates() throws {
    #expect(
      try parse("a IN {'x', \"y\", 3, nil}")
        == comparison(key("a"), .in, .aggregate([str("x"), str("y"), int(3), .constant(.null)])))
    #expect(try parse("a IN {%@, %d}", "x", 2) == comparison(key("a"), .in, .aggregate([str("x"), int(2)])))
    #expect(
      try parse("a IN {{1}, {}}") == comparison(key("a"), .in, .aggregate([.aggregate([int(1)]), .aggregate([])])))
    #expect(try parse("{1, 2} CONTAINS a") == comparison(.aggregate([int(1), int(2)]), .contains, key("a")))
  }

  @Test func constantsOnEitherSide() throws {
    #expect(try parse("3 < rating") == comparison(int(3), .less, key("rating")))
    #expect(try parse("'x' == 'x'") == comparison(str("x"), .equal, str("x")))
    #expect(try parse("a == b") == comparison(key("a"), .equal, key("b")))
  }

  // MARK: - Syntax errors

  @Test func missingValueSaysWhere() throws {
    let failure = error { _ = try parse("title == ") }
    #expect(failure?.code == .predicateSyntax)
    #expect(failure?.message.contains("position 9") == true)
    #expect(failure?.message.contains("\"title == \"") == true)
    #expect(failure?.message.contains("after '=='") == true)
    // The caret line puts '^' under the position.
    #expect(failure?.message.hasSuffix("\n  " + String(repeating: " ", count: 9) + "^") == true)
  }

  @Test(
    "Syntax errors give the position",
    arguments: [
      ("", 0),
      ("a", 1),
      ("a == 1 b == 2", 7),
      ("(a == 1", 7),
      ("a == 1)", 6),
      ("a == 'open", 5),
      ("a == 1 AND", 10),
      ("a == 1 AND OR b == 2", 11),
      ("a ~ 1", 2),
      ("a & 1", 2),
      ("AND == 1", 0),
      ("a == IN", 5),
      ("ANY", 3),
      ("SUBQUERY(x, $y, $y == 1) > 0", 25),
      ("a == $", 5),
      ("FUNCTION(a, 'b') == 1", 0),
      ("a == {1, 2", 10),
      ("a. == 1", 3),
      ("# == 1", 0),
      ("NOT", 3),
      ("a == 1 OR ()", 11),
      ("a ==[] 1", 5),
    ])
  func syntaxErrorPositions(format: String, position: Int) throws {
    let failure = error { _ = try parse(format) }
    #expect(failure?.code == .predicateSyntax)
    #expect(failure?.message.contains("at position \(position) ") == true, "\(failure?.message ?? "")")
  }

  @Test func errorsDescribeTheProblem() throws {
    #expect(
      error { _ = try parse("a") }?.message.contains(
        "expected a comparison operator (==, !=, <, <=, >, >=, BETWEEN, IN, CONTAINS, BEGINSWITH, ENDSWITH, LIKE, MATCHES) after 'a'"
      ) == true)
    #expect(error { _ = try parse("(a == 1") }?.message.contains("expected ')'") == true)
    #expect(error { _ = try parse("a == 'open") }?.message.contains("unterminated string") == true)
    #expect(error { _ = try parse("") }?.message.contains("empty") == true)
    #expect(error { _ = try parse("IN == 1") }?.message.contains("#IN") == true)
  }

  // MARK: - Printing back

  @Test func predicateFormat() throws {
    let node = PredicateNode.and([
      comparison(key("title"), .equal, str("a")),
      .or([comparison(key("rating"), .greater, int(3)), .not(equals("done", 1))]),
    ])
    #expect(node.description == #"title == "a" AND (rating > 3 OR NOT done == 1)"#)
    #expect(
      comparison(
        key("tags.name"), .beginsWith, str("x"), modifier: .any, options: [.caseInsensitive, .diacriticInsensitive]
      )
      .description == #"ANY tags.name BEGINSWITH[cd] "x""#)
    #expect(PredicateNode.constant(true).description == "TRUEPREDICATE")
    #expect(comparison(.keyPath([]), .equal, .constant(.null)).description == "SELF == nil")
    #expect(comparison(.keyPath(["in"]), .in, .aggregate([int(1), int(2)])).description == "#in IN {1, 2}")
    #expect(PredicateNode.and([]).description == "TRUEPREDICATE")
    #expect(PredicateNode.or([]).description == "FALSEPREDICATE")
  }

  @Test(
    "Printing and parsing again gives the same tree",
    arguments: [
      "a == 1 OR b == 2 AND c == 3",
      "(a == 1 OR b == 2) AND NOT (c == 3 OR d == 4)",
      "(a == 1 AND b == 2) AND c == 3",
      #"name ==[cd] "Zoë \"the\" \\ 100%% sure" AND x != nil"#,
      "rating BETWEEN {1.5, 2e+20} AND n IN {-3, TRUE, FALSE}",
      "ALL tags.rank >= -9223372036854775808 OR NONE tags.@count < 3",
      "SELF.name LIKE[c] 'a*b?' AND #in MATCHES '^x$'",
      "d > CAST(12.5, \"NSDate\") OR d < CAST(-1, \"NSDate\")",
      "TRUEPREDICATE AND NOT FALSEPREDICATE",
      "a == 'line\\nbreak\\ttab' AND b == '%%%%'",
    ])
  func roundTrip(format: String) throws {
    let node = try parse(format)
    #expect(try parse(node.description) == node, "\(node.description)")
  }
}
