import EngineTestSupport
import Foundation
import TestSupport
import Testing

@testable import ObjectGraph

/// Records every `awake(fromSnapshotEvents:)` it gets, with the title it holds then.
final class SnapshotWatcher: NSManagedObject {
  nonisolated(unsafe) var events: [(NSSnapshotEventType, String?)] = []

  override func awake(fromSnapshotEvents flags: NSSnapshotEventType) {
    super.awake(fromSnapshotEvents: flags)
    events.append((flags, value(forKey: "title") as? String))
  }
}

/// `awake(fromSnapshotEvents:)`: an object whose values are reset all at once is told why, after the values
/// changed (rollback, refresh keeping changes, undo and redo), and not otherwise.
@Suite("Snapshot events: awake(fromSnapshotEvents:)")
struct SnapshotEventTests {
  private func stack() throws -> StoreStack {
    let item = NSEntityDescription(
      name: "Item", managedObjectClass: SnapshotWatcher.self,
      properties: [.attribute(NSAttributeDescription(name: "title", type: .string))])
    return try StoreStack(model: try NSManagedObjectModel(entities: [item]), type: .inMemory)
  }

  private func insert(_ title: String, _ context: NSManagedObjectContext) throws -> SnapshotWatcher {
    guard let entity = context.persistentStoreCoordinator?.managedObjectModel.entitiesByName["Item"] else {
      throw ObjectGraphError(.invalidValue, "no Item entity")
    }
    let object = SnapshotWatcher(entity: entity, insertInto: context)
    object.setValue(title, forKey: "title")
    return object
  }

  @Test("the raw values are Core Data's, and the type is an option set")
  func rawValues() {
    #expect(
      [NSSnapshotEventType.undoInsertion, .undoDeletion, .undoUpdate, .rollback, .refresh, .mergePolicy].map(\.rawValue)
        == [2, 4, 8, 16, 32, 64])
    let both: NSSnapshotEventType = [.rollback, .refresh]
    #expect(both.contains(.refresh) && !both.contains(.undoUpdate))
  }

  @Test("rollback tells each changed and deleted saved object, after its values are back; not inserted ones")
  func rollback() throws {
    let stack = try stack()
    let context = stack.context
    try context.performAndWait {
      let changed = try insert("milk", context)
      let deleted = try insert("eggs", context)
      try context.save()
      #expect(changed.events.isEmpty && deleted.events.isEmpty)
      changed.setValue("oat milk", forKey: "title")
      context.delete(deleted)
      let inserted = try insert("bread", context)
      context.rollback()
      #expect(changed.events.map(\.0) == [.rollback])
      #expect(changed.events.first?.1 == "milk")
      #expect(deleted.events.map(\.0) == [.rollback])
      #expect(inserted.events.isEmpty)
    }
  }

  @Test("a refresh that keeps the object's changes tells it; one that turns it into a fault does not")
  func refresh() throws {
    let stack = try stack()
    let context = stack.context
    let (kept, faulted) = try context.performAndWait {
      let kept = try insert("milk", context)
      let faulted = try insert("eggs", context)
      try context.save()
      kept.setValue("oat milk", forKey: "title")
      return (kept, faulted)
    }
    context.performAndWait {
      context.refresh(kept, mergeChanges: true)
      context.refresh(faulted, mergeChanges: true)
      #expect(kept.events.map(\.0) == [.refresh])
      #expect(kept.events.first?.1 == "oat milk")
      #expect(faulted.events.isEmpty)
      context.refresh(kept, mergeChanges: false)
      #expect(kept.events.count == 1)
    }
  }

  @Test("undo and redo tell the object: an update undone, an insertion undone, a deletion undone")
  func undo() throws {
    let stack = try stack()
    let context = stack.context
    let manager = UndoManager()
    try context.performAndWait {
      context.undoManager = manager
      let object = try insert("milk", context)
      context.processPendingChanges()
      object.setValue("oat milk", forKey: "title")
      context.processPendingChanges()

      context.undo()  // the rename
      #expect(object.events.map(\.0) == [.undoUpdate])
      #expect(object.events.last?.1 == "milk")
      context.undo()  // the insertion
      #expect(object.events.map(\.0).last == .undoInsertion)
      #expect(object.managedObjectContext == nil)
      let before = object.events.count
      context.redo()  // the insertion again (with its first title): the object is back
      #expect(object.events.dropFirst(before).map(\.0).contains(.undoDeletion))
      #expect(object.managedObjectContext === context)

      try context.save()
      object.events = []
      context.delete(object)
      context.processPendingChanges()
      context.undo()
      #expect(object.events.map(\.0) == [.undoDeletion])
      #expect(!object.isDeleted)
    }
  }
}
