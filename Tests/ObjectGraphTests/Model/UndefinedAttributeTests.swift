import EngineTestSupport
import Foundation
import TestSupport
import Testing

@testable import ObjectGraph

/// Core Data allows the Undefined type for transient attributes only, which hold any value in memory and
/// are never stored; a stored Undefined attribute is described but cannot save a value.
@Suite("Undefined attributes", .temporaryFolders)
struct UndefinedAttributeTests {
  struct Selection: Equatable { let range: ClosedRange<Int> }

  static func model() throws -> NSManagedObjectModel {
    let scratch = NSAttributeDescription(name: "scratch", type: .undefined)
    scratch.isTransient = true
    let stored = NSAttributeDescription(name: "stored", type: .undefined)
    let draft = NSEntityDescription(
      name: "Draft",
      properties: [.attribute(NSAttributeDescription(name: "title", type: .string)), .attribute(scratch), .attribute(stored)])
    return try NSManagedObjectModel(entities: [draft])
  }

  @Test("A transient Undefined attribute holds any value, a save keeps it in the object and writes nothing of it")
  func transientHoldsAnything() throws {
    let stack = try StoreStack(model: try Self.model())
    try stack.context.performAndWait {
      let draft = NSManagedObject(entity: try #require(stack.model.entitiesByName["Draft"]), insertInto: stack.context)
      draft.setValue("one", forKey: "title")
      draft.setValue(Selection(range: 2...5), forKey: "scratch")
      try stack.context.save()
      #expect(draft.value(forKey: "scratch") as? Selection == Selection(range: 2...5))
      draft.setValue([1, 2, 3], forKey: "scratch")
      #expect(draft.value(forKey: "scratch") as? [Int] == [1, 2, 3])
    }
    let other = NSManagedObjectContext(concurrencyType: .privateQueueConcurrencyType)
    other.persistentStoreCoordinator = stack.coordinator
    try other.performAndWait {
      let draft = try #require(try other.fetch(NSFetchRequest<NSManagedObject>(entityName: "Draft")).first)
      #expect(draft.value(forKey: "title") as? String == "one")
      #expect(draft.value(forKey: "scratch") == nil, "a transient value never reaches the store")
    }
  }

  @Test("A stored Undefined attribute has no column; a value in it is refused at save with unsupportedFeature naming it")
  func storedRefusesAValue() throws {
    let stack = try StoreStack(model: try Self.model())
    try stack.context.performAndWait {
      let draft = NSManagedObject(entity: try #require(stack.model.entitiesByName["Draft"]), insertInto: stack.context)
      draft.setValue("one", forKey: "title")
      try stack.context.save()
      draft.setValue("two", forKey: "title")
      draft.setValue("anything", forKey: "stored")
      let error = expectCode(.unsupportedFeature) { try stack.context.save() }
      #expect(error?.message.contains("Draft.stored") == true)
    }
    let columns = try rawRows(stack.storeURL, "SELECT name FROM pragma_table_info('ZDRAFT')").map { $0[0] as String }
    #expect(!columns.contains("ZSTORED"))
    #expect(try rawRows(stack.storeURL, "SELECT ZTITLE FROM ZDRAFT").map { $0[0] as String } == ["one"], "the refused save wrote nothing")
  }
}
