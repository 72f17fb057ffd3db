import Foundation
import Testing

@testable import ObjectGraph

/// An object for the evaluator: values by dotted key path; `@count` counts a `.many` value.
private struct MockObject: PredicateEvaluable {
  var id: NSManagedObjectID
  var values: [String: PredicateKeyPathValue]

  func predicateValue(atKeyPath path: [String]) throws -> PredicateKeyPathValue {
    if path.isEmpty { return .single(.objectID(id)) }
    if path.last == "@count" {
      let base = path.dropLast().joined(separator: ".")
      guard case .many(let members) = values[base] else {
        throw ObjectGraphError(.unknownKey, "\(base) is not a to-many")
      }
      return .single(.integer(Int64(members.count)))
    }
    let key = path.joined(separator: ".")
    guard let value = values[key] else {
      throw ObjectGraphError(.unknownKey, "no key \(key)")
    }
    return value
  }

  func predicateObjects(atKeyPath path: [String]) throws -> [any PredicateEvaluable] {
    throw ObjectGraphError(.unknownKey, "a mock object has no related objects")
  }
}

/// Tests of in-memory evaluation, with the semantics the SQL compiler gives the same predicates.
@Suite("Predicate evaluator")
struct PredicateEvaluatorTests {
  private static let noteEntity = NSEntityDescription(name: "Note", properties: [])
  private static let tagEntity = NSEntityDescription(name: "Tag", properties: [])
  private let noteID = NSManagedObjectID.temporary(for: noteEntity)
  private let otherID = NSManagedObjectID.temporary(for: noteEntity)
  private let categoryID = NSManagedObjectID.temporary(for: tagEntity)
  private let created = Date(timeIntervalSinceReferenceDate: 1000)
  private let uuid = UUID()

  private var note: MockObject {
    MockObject(
      id: noteID,
      values: [
        "title": .single(.string("Hello World")),
        "name": .single(.string("Zoë")),
        "upper": .single(.string("B")),
        "lower": .single(.string("a")),
        "rating": .single(.integer(4)),
        "score": .single(.double(2.5)),
        "done": .single(.bool(true)),
        "price": .single(.decimal(Decimal(string: "9.99") ?? 0)),
        "created": .single(.date(created)),
        "nothing": .single(.null),
        "blob": .single(.data(Data([1, 2, 3]))),
        "link": .single(.url(URL(string: "https://example.com/a") ?? URL(fileURLWithPath: "/"))),
        "identifier": .single(.uuid(uuid)),
        "pattern": .single(.string("a*b?c")),
        "emoji": .single(.string("a😀b")),
        "category": .single(.objectID(categoryID)),
        "category.name": .single(.string("Work")),
        "owner": .single(.null),
        "owner.name": .single(.null),
        "tags": .many([.objectID(categoryID), .objectID(otherID), .objectID(noteID)]),
        "tags.name": .many([.string("swift"), .string("Core"), .string("data")]),
        "tags.rank": .many([.integer(1), .integer(5), .integer(10)]),
        "tags.note": .many([.string("x"), .null]),
        "empty": .many([]),
        "empty.rank": .many([]),
        "bounds": .single(.integer(3)),
      ])
  }

  /// Parses `format` and evaluates it on the note.
  private func check(_ format: String, _ arguments: any Sendable...) throws -> Bool {
    try PredicateEvaluator.evaluate(PredicateParser.parse(format: format, arguments: arguments), on: note)
  }

  /// The error evaluating `format` throws.
  private func failure(_ format: String, _ arguments: any Sendable...) -> ObjectGraphError? {
    do {
      _ = try PredicateEvaluator.evaluate(PredicateParser.parse(format: format, arguments: arguments), on: note)
      Issue.record("expected \(format) to throw")
      return nil
    } catch let error as ObjectGraphError {
      return error
    } catch {
      Issue.record("unexpected error \(error)")
      return nil
    }
  }

  // MARK: - Logic

  @Test func constantsAndLogic() throws {
    #expect(try check("TRUEPREDICATE"))
    #expect(try !check("FALSEPREDICATE"))
    #expect(try check("rating == 4 AND score == 2.5"))
    #expect(try !check("rating == 4 AND score == 3"))
    #expect(try check("rating == 5 OR score == 2.5"))
    #expect(try !check("rating == 5 OR score == 3"))
    #expect(try check("NOT rating == 5"))
    #expect(try check("rating == 5 OR rating == 4 AND NOT done == NO"))
    #expect(try check("(rating == 5 OR rating == 4) AND done == YES"))
  }

  @Test func shortCircuits() throws {
    // The unknown key on the right is never read.
    #expect(try !check("FALSEPREDICATE AND missing == 1"))
    #expect(try check("TRUEPREDICATE OR missing == 1"))
  }

  @Test func unknownKeyThrows() throws {
    #expect(failure("missing == 1")?.code == .unknownKey)
  }

  // MARK: - Equality and ordering

  @Test func numbersCompareAcrossTypes() throws {
    #expect(try check("rating == 4"))
    #expect(try check("rating == 4.0"))
    #expect(try check("rating != 4.5"))
    #expect(try check("score > 2"))
    #expect(try check("score < 3"))
    #expect(try check("score >= 2.5 AND score <= 2.5"))
    #expect(try check("done == 1"))
    #expect(try check("done == TRUE"))
    #expect(try check("done > 0"))
    #expect(try check("rating > TRUE"))
    #expect(try check("price > 9.9 AND price < 10"))
    #expect(try check("price == 9.99"))
    #expect(try check("price == %@", Decimal(string: "9.99") ?? 0))
    #expect(try check("3 < rating"))
    #expect(try check("rating => 4 AND rating =< 4 AND rating <> 3"))
  }

  @Test func numbersAreNotStrings() throws {
    #expect(try !check("rating == '4'"))
    #expect(try check("rating != '4'"))
    #expect(try !check("rating < 'z'"))
  }

  @Test func stringEquality() throws {
    #expect(try check("title == 'Hello World'"))
    #expect(try !check("title == 'hello world'"))
    #expect(try check("title ==[c] 'hello world'"))
    #expect(try check("title != 'hello world'"))
    #expect(try !check("title !=[c] 'hello world'"))
    #expect(try !check("name == 'Zoe'"))
    #expect(try check("name ==[d] 'Zoe'"))
    #expect(try check("name ==[cd] 'ZOE'"))
    #expect(try !check("name ==[c] 'ZOE'"))
  }

  @Test func stringsCompareByBytes() throws {
    // A decomposed "ë" is a different byte string: SQLite's BINARY collation tells them apart.
    #expect(try !check("name == %@", "Zoe\u{308}"))
    #expect(try check("name ==[d] %@", "Zoe\u{308}"))
    // Upper case sorts before lower case in binary order.
    #expect(try check("upper < lower"))
    #expect(try check("upper < 'a'"))
    #expect(try check("upper >[c] 'a'"))
    #expect(try check("title > 'Hello'"))
    #expect(try check("title < 'Hello Worlds'"))
    #expect(try check("title >= 'Hello World' AND title <= 'Hello World'"))
    #expect(try check("'Ü' > 'Z'"))
  }

  @Test func dates() throws {
    #expect(try check("created == %@", created))
    #expect(try check("created > %@", Date(timeIntervalSinceReferenceDate: 999)))
    #expect(try check("created < CAST(1000.5, \"NSDate\")"))
    #expect(try check("created BETWEEN %@", [Date(timeIntervalSinceReferenceDate: 0), created]))
    // A date is not a number or a string.
    #expect(try !check("created > 5"))
    #expect(try !check("created == 1000"))
  }

  @Test func otherValueTypes() throws {
    #expect(try check("blob == %@", Data([1, 2, 3])))
    #expect(try check("blob < %@", Data([1, 2, 4])))
    #expect(try check("blob != %@", Data([1, 2])))
    #expect(try check("identifier == %@", uuid))
    #expect(try !check("identifier == %@", UUID()))
    #expect(try check("link == %@", URL(string: "https://example.com/a") ?? URL(fileURLWithPath: "/")))
    // A URL is stored as its string.
    #expect(try check("link == 'https://example.com/a'"))
    #expect(try check("link BEGINSWITH 'https:'"))
  }

  @Test func typeMismatchIsFalse() throws {
    #expect(try !check("title == %@", created))
    #expect(try !check("title < %@", created))
    #expect(try !check("title > %@", created))
    #expect(try check("title != %@", created))
    #expect(try !check("rating CONTAINS '4'"))
    #expect(try !check("created BEGINSWITH 'x'"))
    #expect(try !check("rating LIKE '4'"))
    #expect(try !check("rating MATCHES '4'"))
  }

  // MARK: - Null

  @Test func nullSemantics() throws {
    #expect(try check("nothing == nil"))
    #expect(try !check("nothing != nil"))
    #expect(try check("title != nil"))
    #expect(try !check("title == nil"))
    #expect(try check("nil == nothing"))
    #expect(try !check("nothing == 5"))
    #expect(try check("nothing != 5"))
    #expect(try !check("nothing < 5"))
    #expect(try !check("nothing > 5"))
    #expect(try !check("nothing <= 5"))
    #expect(try !check("nothing >= nil"))
    #expect(try !check("rating < nil"))
    #expect(try !check("nothing CONTAINS 'a'"))
    #expect(try !check("title CONTAINS nil"))
    #expect(try !check("nothing BEGINSWITH ''"))
    #expect(try !check("nothing LIKE '*'"))
    #expect(try !check("nothing MATCHES '.*'"))
    #expect(try !check("nothing BETWEEN {1, 5}"))
    #expect(try !check("rating BETWEEN {nil, 5}"))
    #expect(try check("nothing == %@", Optional<String>.none))
    // Comparisons are two-valued: NOT of a comparison with null is true (SQL must not yield NULL here).
    #expect(try check("NOT nothing > 5"))
    #expect(try check("NOT (nothing == 5 OR nothing CONTAINS 'a')"))
  }

  @Test func nilToOneHop() throws {
    #expect(try check("owner == nil"))
    #expect(try check("owner.name == nil"))
    #expect(try !check("owner.name == 'x'"))
  }

  // MARK: - String operators

  @Test func containsBeginsEnds() throws {
    #expect(try check("title CONTAINS 'lo W'"))
    #expect(try !check("title CONTAINS 'lo w'"))
    #expect(try check("title CONTAINS[c] 'LO W'"))
    #expect(try check("title CONTAINS ''"))
    #expect(try check("title BEGINSWITH 'Hell'"))
    #expect(try !check("title BEGINSWITH 'hell'"))
    #expect(try check("title BEGINSWITH[c] 'hELL'"))
    #expect(try check("title ENDSWITH 'World'"))
    #expect(try !check("title ENDSWITH 'world'"))
    #expect(try check("title ENDSWITH[c] 'WORLD'"))
    #expect(try !check("title ENDSWITH 'Hello World!'"))
    #expect(try check("name CONTAINS[d] 'oe'"))
    #expect(try !check("name CONTAINS 'oe'"))
    #expect(try check("name ENDSWITH[cd] 'E'"))
    #expect(try check("'Hello World, again' CONTAINS title"))
  }

  @Test func like() throws {
    #expect(try check("title LIKE 'Hello World'"))
    #expect(try !check("title LIKE 'Hello'"))
    #expect(try check("title LIKE 'H*'"))
    #expect(try check("title LIKE '*World'"))
    #expect(try check("title LIKE '*o W*'"))
    #expect(try check("title LIKE 'H?llo?World'"))
    #expect(try !check("title LIKE 'H?llo'"))
    #expect(try check("title LIKE '*'"))
    #expect(try check("title LIKE '**d'"))
    #expect(try !check("title LIKE 'h*'"))
    #expect(try check("title LIKE[c] 'h*WORLD'"))
    #expect(try check("name LIKE[d] 'Zo?'"))
    #expect(try check("name LIKE[cd] 'zoe'"))
    // `?` is one character even when it is several UTF-8 bytes.
    #expect(try check("emoji LIKE 'a?b'"))
    // A backslash makes a wildcard literal.
    #expect(try check(#"pattern LIKE 'a\\*b\\?c'"#))
    #expect(try !check(#"title LIKE 'H\\*'"#))
  }

  @Test func matchesWholeString() throws {
    #expect(try check("title MATCHES 'H.*d'"))
    #expect(try !check("title MATCHES 'Hello'"))
    #expect(try !check("title MATCHES 'World'"))
    #expect(try check("title MATCHES '[A-Z][a-z]+ [A-Z][a-z]+'"))
    #expect(try !check("title MATCHES 'hello.*'"))
    #expect(try check("title MATCHES[c] 'hello.*'"))
    // Alternation still has to cover the whole string.
    #expect(try check("title MATCHES 'Hello|Hello World'"))
    #expect(try check("name MATCHES[d] 'Zoe'"))
    #expect(try !check("name MATCHES 'Zoe'"))
    #expect(try check(#"rating == 4 AND title MATCHES '\\w+\\s\\w+'"#))
  }

  @Test func severalPatternsOnTheRight() throws {
    // A collection on the right of a scalar operator: true when the value satisfies it for some member.
    #expect(try check("title LIKE {'x*', 'H*'}"))
    #expect(try !check("title LIKE {'x*', 'y*'}"))
    #expect(try check("title MATCHES {'x', 'H.*'}"))
    #expect(try check("rating == {3, 4}"))
    #expect(failure("title MATCHES {'H.*', '['}")?.code == .predicateSyntax)
  }

  @Test func invalidRegexThrows() throws {
    let error = failure("title MATCHES '('")
    #expect(error?.code == .predicateSyntax)
    #expect(error?.message.contains("\"(\"") == true)
    // Invalid alone even though wrapping it in a group would balance it.
    #expect(failure("title MATCHES 'a)(b'")?.code == .predicateSyntax)
  }

  // MARK: - BETWEEN and IN

  @Test func between() throws {
    #expect(try check("rating BETWEEN {1, 4}"))
    #expect(try check("rating BETWEEN {4, 10}"))
    #expect(try !check("rating BETWEEN {5, 10}"))
    #expect(try check("score BETWEEN {2, 3}"))
    #expect(try check("rating BETWEEN %@", [3.5, 4.5]))
    #expect(try check("title BETWEEN {'A', 'I'}"))
    #expect(try !check("rating BETWEEN {'a', 'z'}"))
    #expect(try check("ANY tags.rank BETWEEN {6, 20}"))
    #expect(try !check("ALL tags.rank BETWEEN {2, 20}"))
  }

  @Test func betweenNeedsTwoBounds() throws {
    #expect(failure("rating BETWEEN bounds")?.code == .invalidValue)
  }

  @Test func inCollection() throws {
    #expect(try check("rating IN {1, 4, 9}"))
    #expect(try !check("rating IN {1, 9}"))
    #expect(try check("rating IN {4.0}"))
    #expect(try check("rating IN %@", [4, 5]))
    #expect(try check("rating IN %@", Set([4])))
    #expect(try !check("rating IN {}"))
    #expect(try check("title IN {'Hello World', 'x'}"))
    #expect(try !check("title IN {'hello world'}"))
    #expect(try check("title IN[c] {'hello world'}"))
    #expect(try check("name IN[cd] {'zoe'}"))
    #expect(try check("NOT rating IN {1, 2}"))
    // As in SQL, null is in nothing, not even a collection holding nil.
    #expect(try !check("nothing IN {nil, 1}"))
    #expect(try !check("nothing IN {1}"))
    #expect(try !check("rating IN {nil}"))
    #expect(try check("rating IN {nil, 4}"))
    #expect(try check("NOT nothing IN {1}"))
    #expect(try check("SELF IN %@", [otherID, noteID]))
    #expect(try !check("SELF IN %@", [otherID]))
  }

  @Test func inToManyKeyPath() throws {
    #expect(try check("'Core' IN tags.name"))
    #expect(try !check("'core' IN tags.name"))
    #expect(try check("'core' IN[c] tags.name"))
    #expect(try check("%@ IN tags", categoryID))
    #expect(try check("5 IN tags.rank"))
  }

  // MARK: - To-many values

  @Test func anyAllNone() throws {
    #expect(try check("ANY tags.rank > 5"))
    #expect(try check("SOME tags.rank == 1"))
    #expect(try !check("ANY tags.rank > 10"))
    #expect(try check("ALL tags.rank > 0"))
    #expect(try !check("ALL tags.rank > 1"))
    #expect(try check("NONE tags.rank > 10"))
    #expect(try !check("NONE tags.rank == 5"))
    #expect(try check("ANY tags.name BEGINSWITH 'sw'"))
    #expect(try check("ALL tags.name LIKE[c] '*a*' OR ALL tags.name MATCHES '[a-zA-Z]+'"))
    #expect(try check("ANY tags.name CONTAINS 'or'"))
    #expect(try check("NOT ANY tags.rank == 7"))
    #expect(try check("ANY tags.note == nil"))
    #expect(try !check("ALL tags.note != nil"))
  }

  @Test func emptyToMany() throws {
    #expect(try !check("ANY empty.rank > 0"))
    #expect(try check("ALL empty.rank > 100"))
    #expect(try check("NONE empty.rank > 0"))
    #expect(try !check("empty.rank == 1"))
  }

  @Test func directComparisonOfToManyIsAny() throws {
    #expect(try check("tags.rank > 5"))
    #expect(try check("tags.rank == 10"))
    #expect(try !check("tags.rank == 7"))
    #expect(try check("tags.name ==[c] 'CORE'"))
    #expect(try check("tags.rank IN {7, 10}"))
  }

  @Test func containsOnACollectionIsMembership() throws {
    #expect(try check("tags.name CONTAINS 'Core'"))
    // Membership, not substring: no tag is named "or".
    #expect(try !check("tags.name CONTAINS 'or'"))
    #expect(try check("tags.name CONTAINS[c] 'core'"))
    #expect(try check("tags CONTAINS %@", categoryID))
    #expect(try !check("empty CONTAINS %@", categoryID))
    #expect(try check("{1, 4, 9} CONTAINS rating"))
    #expect(try check("tags.rank CONTAINS {1, 10}"))
    #expect(try !check("tags.rank CONTAINS {1, 11}"))
  }

  @Test func count() throws {
    #expect(try check("tags.@count == 3"))
    #expect(try check("tags.@count > 2"))
    #expect(try !check("tags.@count > 3"))
    #expect(try check("empty.@count == 0"))
    #expect(try check("tags.@count BETWEEN {1, 3}"))
  }

  // MARK: - Objects

  @Test func objectIDs() throws {
    #expect(try check("SELF == %@", noteID))
    #expect(try !check("SELF == %@", otherID))
    #expect(try check("SELF != %@", otherID))
    #expect(try check("category == %@", categoryID))
    #expect(try check("category.name == 'Work'"))
    // Object IDs compare by equality only.
    #expect(try !check("SELF < %@", otherID))
    #expect(try !check("SELF > %@", otherID))
    #expect(try !check("SELF == 'x'"))
  }
}
