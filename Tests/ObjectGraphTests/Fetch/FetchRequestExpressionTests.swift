import EngineTestSupport
import Foundation
import TestSupport
import Testing

@testable import ObjectGraph

/// `NSFetchRequestExpression`: an expression whose value is a fetch request's results, or their count, in a
/// context.
@Suite("Fetch request expressions")
struct FetchRequestExpressionTests {
  /// A stack with notes titled "a1", "a2" and "b1", saved.
  private func stack() throws -> StoreStack {
    let stack = try StoreStack(model: Models.notes(), type: .inMemory)
    try stack.context.performAndWait { () throws in
      for title in ["a1", "a2", "b1"] { Note(context: stack.context).title = title }
      try stack.context.save()
    }
    return stack
  }

  @Test("it fetches, or counts, what its request finds, in the context it names; Core Data's type and properties")
  func fetchesAndCounts() throws {
    let stack = try stack()
    let request = NSFetchRequest<Note>(entityName: "Note")
    request.predicate = NSPredicate(format: "title BEGINSWITH %@", "a")
    request.sortDescriptors = [NSSortDescriptor(key: "title", ascending: true)]
    let fetching = NSFetchRequestExpression.expression(
      forFetch: NSExpression(forConstantValue: request), context: NSExpression(forConstantValue: stack.context), countOnly: false)
    let counting = NSFetchRequestExpression.expression(
      forFetch: NSExpression(forConstantValue: request), context: NSExpression(forConstantValue: stack.context), countOnly: true)
    let fetch = try #require(fetching as? NSFetchRequestExpression)
    let count = try #require(counting as? NSFetchRequestExpression)
    #expect(fetch.expressionType == NSFetchRequestExpressionType)
    #expect(NSFetchRequestExpressionType.rawValue == 50)
    #expect(!fetch.isCountOnlyRequest && count.isCountOnlyRequest)
    #expect(fetch.requestExpression.constantValue as AnyObject === request)
    #expect(fetch.contextExpression.constantValue as AnyObject === stack.context)
    stack.context.performAndWait {
      let notes = fetch.expressionValue(with: nil, context: nil) as? [Note]
      #expect(notes?.map(\.title) == ["a1", "a2"])
      #expect((count.expressionValue(with: nil, context: nil) as? NSNumber)?.intValue == 2)
      // Unsaved changes count, as in any fetch of the context.
      Note(context: stack.context).title = "a3"
      #expect((count.expressionValue(with: nil, context: nil) as? NSNumber)?.intValue == 3)
      stack.context.rollback()
    }
  }

  @Test("an untyped or dictionary request, and expressions given as variables of the context dictionary")
  func untypedRequestsAndVariables() throws {
    let stack = try stack()
    let rows = NSFetchRequest<any NSFetchRequestResult>(entityName: "Note")
    rows.resultType = .dictionaryResultType
    rows.propertiesToFetch = ["title"]
    rows.sortDescriptors = [NSSortDescriptor(key: "title", ascending: false)]
    let expression = try #require(
      NSFetchRequestExpression.expression(
        forFetch: NSExpression(forVariable: "request"), context: NSExpression(forVariable: "moc"), countOnly: false)
        as? NSFetchRequestExpression)
    stack.context.performAndWait {
      let variables = NSMutableDictionary(dictionary: ["request": rows, "moc": stack.context])
      let value = expression.expressionValue(with: nil, context: variables) as? [Any]
      #expect(value?.compactMap { ($0 as? [String: Any])?["title"] as? String } == ["b1", "a2", "a1"])
      var missing: Any? = "not evaluated"
      let lines = ErrorLog.capturing { missing = expression.expressionValue(with: nil, context: nil) }
      #expect(missing == nil, "without the variables there is nothing to run")
      #expect(lines.count == 1)
    }
  }

  @Test("what cannot run gives nil and logs why; a predicate refuses one")
  func failures() throws {
    let stack = try stack()
    let broken = NSFetchRequest<Note>(entityName: "Note")
    broken.predicate = NSPredicate(format: "noSuchKey == 1")
    let notAContext = try #require(
      NSFetchRequestExpression.expression(
        forFetch: NSExpression(forConstantValue: broken), context: NSExpression(forConstantValue: "context"), countOnly: false)
        as? NSFetchRequestExpression)
    let badFetch = try #require(
      NSFetchRequestExpression.expression(
        forFetch: NSExpression(forConstantValue: broken), context: NSExpression(forConstantValue: stack.context), countOnly: false)
        as? NSFetchRequestExpression)
    let notARequest = try #require(
      NSFetchRequestExpression.expression(
        forFetch: NSExpression(forConstantValue: 42), context: NSExpression(forConstantValue: stack.context), countOnly: true)
        as? NSFetchRequestExpression)
    var values: [Any?] = []
    let lines = stack.context.performAndWait {
      ErrorLog.capturing {
        values = [notAContext, badFetch, notARequest].map { $0.expressionValue(with: nil, context: nil) }
      }
    }
    #expect(values.allSatisfy { $0 == nil })
    #expect(lines.count == 3)
    #expect(lines[0].contains("no managed object context"))
    #expect(lines[1].contains("noSuchKey"))
    #expect(lines[2].contains("Int, not an NSFetchRequest"))

    let request = NSFetchRequest<Note>(entityName: "Note")
    request.predicate = NSComparisonPredicate(
      leftExpression: NSExpression(forKeyPath: "title"), rightExpression: badFetch, modifier: .direct, type: .in, options: [])
    stack.context.performAndWait {
      let error = expectCode(.predicateSyntax) { _ = try stack.context.fetch(request) }
      #expect(error?.message.contains("runs a fetch request") == true)
    }
  }
}
