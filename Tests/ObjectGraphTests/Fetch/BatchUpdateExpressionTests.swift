import EngineTestSupport
import Foundation
import TestSupport
import Testing

@testable import ObjectGraph

/// Batch updates whose values are expressions: each row's new value computed in SQL from its values before the
/// update (`rating + 1`, another attribute), as Core Data's SQLite store computes `propertiesToUpdate`.
@Suite("Batch updates with expressions", .temporaryFolders)
struct BatchUpdateExpressionTests {
  /// A stack of `type` with notes (title, rating) saved.
  private func notes(_ type: NSPersistentStore.StoreType, _ rows: [(String, Int64)]) throws -> StoreStack {
    let stack = try StoreStack(model: try Models.notes(), type: type)
    try stack.context.performAndWait {
      for (title, rating) in rows {
        let note = Note(context: stack.context)
        note.title = title
        note.rating = rating
      }
      try stack.context.save()
    }
    return stack
  }

  /// Title, rating and body of every note, read by a fresh context, by title.
  private func stored(_ stack: StoreStack) throws -> [String] {
    let reader = stack.freshContext()
    return try reader.performAndWait {
      let request = NSFetchRequest<Note>(entityName: "Note")
      request.sortDescriptors = [NSSortDescriptor(key: "title", ascending: true)]
      return try reader.fetch(request).map { "\($0.title ?? "nil") \($0.rating) \($0.body ?? "nil")" }
    }
  }

  private func update(_ stack: StoreStack, _ properties: [String: Any], where format: String? = nil) throws -> Int {
    try stack.context.performAndWait {
      let request = NSBatchUpdateRequest(entityName: "Note")
      request.propertiesToUpdate = properties
      request.predicate = format.map { NSPredicate(format: $0) }
      request.resultType = .updatedObjectsCountResultType
      return (try stack.context.execute(request) as? NSBatchUpdateResult)?.result as? Int ?? -1
    }
  }

  @Test(
    "arithmetic on the row's own value, for the rows the predicate chooses", arguments: [NSPersistentStore.StoreType.sqlite, .inMemory])
  func arithmetic(type: NSPersistentStore.StoreType) throws {
    let stack = try notes(type, [("a", 1), ("b", 2), ("c", 3)])
    #expect(try update(stack, ["rating": NSExpression(format: "rating + 10")], where: "rating >= 2") == 2)
    #expect(try stored(stack) == ["a 1 nil", "b 12 nil", "c 13 nil"])
    // An integer attribute keeps whole numbers: 13 * 1.5 is 19.5, stored as 19.
    #expect(try update(stack, ["rating": NSExpression(format: "rating * 1.5")], where: "title == 'c'") == 1)
    #expect(try stored(stack) == ["a 1 nil", "b 12 nil", "c 19 nil"])
  }

  @Test("another attribute's value, a constant expression and plain values together; every right side reads the row as it was")
  func keyPathsAndConstants() throws {
    let stack = try notes(.sqlite, [("a", 1), ("b", 2)])
    let changed = try update(
      stack,
      [
        "body": NSExpression(forKeyPath: "title"), "title": NSExpression(forConstantValue: "same"),
        "rating": NSExpression(forFunction: "add:to:", arguments: [NSExpression(forKeyPath: "rating"), NSExpression(forConstantValue: 5)]),
      ])
    #expect(changed == 2)
    #expect(try stored(stack) == ["same 6 a", "same 7 b"])
    #expect(try update(stack, ["body": NSExpression(forConstantValue: nil)]) == 2)
    #expect(try stored(stack) == ["same 6 nil", "same 7 nil"])
  }

  @Test("refused and nothing changed: a number into a string, a key path through a relationship, an unknown key")
  func refusals() throws {
    let stack = try notes(.sqlite, [("a", 1)])
    let before = try stored(stack)
    var error = expectCode(.invalidValue) { _ = try update(stack, ["body": NSExpression(format: "rating + 1")]) }
    #expect(error?.localizedDescription.contains("Note.body") == true)
    error = expectCode(.unsupportedFeature) { _ = try update(stack, ["body": NSExpression(forKeyPath: "notebook.name")]) }
    #expect(error?.localizedDescription.contains("through a relationship") == true)
    _ = expectCode(.unknownKey) { _ = try update(stack, ["nope": NSExpression(format: "rating + 1")]) }
    #expect(try stored(stack) == before)
  }

  @Test("objects a context holds learn the computed values by merging the updated IDs")
  func merged() throws {
    let stack = try notes(.sqlite, [("a", 1)])
    let note = try stack.context.performAndWait { try #require(try stack.context.fetch(NSFetchRequest<Note>(entityName: "Note")).first) }
    let ids = try stack.context.performAndWait {
      let request = NSBatchUpdateRequest(entityName: "Note")
      request.propertiesToUpdate = ["rating": NSExpression(format: "rating * 2 + 1")]
      request.resultType = .updatedObjectIDsResultType
      return (try stack.context.execute(request) as? NSBatchUpdateResult)?.result as? [NSManagedObjectID] ?? []
    }
    NSManagedObjectContext.mergeChanges(fromRemoteContextSave: [NSUpdatedObjectIDsKey: ids], into: [stack.context])
    #expect(stack.context.performAndWait { note.rating } == 3)
  }
}
