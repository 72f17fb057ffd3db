import EngineTestSupport
import Foundation
import TestSupport
import Testing

@testable import ObjectGraph

/// An object that reports its `willSave()` call.
final class SaveHookedObject: NSManagedObject {
  var onWillSave: (() -> Void)?
  override func willSave() { onWillSave?() }
}

/// `NSManagedObjectContext.willSaveObjectsNotification` (Core Data's `NSManagedObjectContextWillSave`).
@Suite("Will-save notification", .temporaryFolders)
struct WillSaveNotificationTests {
  private func stack() throws -> (NSManagedObjectContext, NSEntityDescription) {
    let entity = NSEntityDescription(
      name: "Hooked", managedObjectClass: SaveHookedObject.self,
      properties: [.attribute(NSAttributeDescription(name: "name", type: .string))])
    let stack = try StoreStack(model: try NSManagedObjectModel(entities: [entity]), type: .inMemory)
    return (stack.context, stack.entity("Hooked"))
  }

  @Test("Posted at the start of save(), before willSave() on objects and before did-save, with the context and no user info")
  func order() throws {
    let (context, entity) = try stack()
    let events = Locked<[String]>([])
    let info = Locked<[Bool]>([])
    let will = NotificationCenter.default.addObserver(
      forName: NSManagedObjectContext.willSaveObjectsNotification, object: context, queue: nil
    ) {
      note in
      events.withLock { $0.append("will-save notification") }
      info.withLock { $0.append(note.userInfo == nil && (note.object as? NSManagedObjectContext) === context) }
    }
    let did = NotificationCenter.default.addObserver(
      forName: NSManagedObjectContext.didSaveObjectsNotification, object: context, queue: nil
    ) {
      _ in events.withLock { $0.append("did-save notification") }
    }
    defer {
      NotificationCenter.default.removeObserver(will)
      NotificationCenter.default.removeObserver(did)
    }
    try context.performAndWait {
      let object = SaveHookedObject(entity: entity, insertInto: context)
      object.onWillSave = { events.withLock { $0.append("willSave()") } }
      try context.save()
    }
    #expect(events.withLock { $0 } == ["will-save notification", "willSave()", "did-save notification"])
    #expect(info.withLock { $0 } == [true])
  }

  @Test("An object an observer inserts on will-save is saved with the rest, as Core Data documents the use")
  func observerInsertsObject() throws {
    let entity = NSEntityDescription(
      name: "Hooked", managedObjectClass: SaveHookedObject.self,
      properties: [.attribute(NSAttributeDescription(name: "name", type: .string))])
    let stack = try StoreStack(model: try NSManagedObjectModel(entities: [entity]), type: .sqlite)
    let context = stack.context
    let will = NotificationCenter.default.addObserver(
      forName: NSManagedObjectContext.willSaveObjectsNotification, object: context, queue: nil
    ) {
      _ in NSManagedObject(entity: stack.entity("Hooked"), insertInto: context).setValue("added on will-save", forKey: "name")
    }
    defer { NotificationCenter.default.removeObserver(will) }
    try context.performAndWait {
      NSManagedObject(entity: stack.entity("Hooked"), insertInto: context).setValue("first", forKey: "name")
      try context.save()
      #expect(!context.hasChanges)
    }
    #expect(Set(try stack.stored("Hooked") { $0.value(forKey: "name") as? String }) == ["first", "added on will-save"])
  }

  @Test("Not posted by a save with nothing to save")
  func notPostedWithoutChanges() throws {
    let (context, _) = try stack()
    let count = Locked(0)
    let will = NotificationCenter.default.addObserver(
      forName: NSManagedObjectContext.willSaveObjectsNotification, object: context, queue: nil
    ) {
      _ in count.withLock { $0 += 1 }
    }
    defer { NotificationCenter.default.removeObserver(will) }
    try context.performAndWait {
      #expect(!context.hasChanges)
      try context.save()
    }
    #expect(count.withLock { $0 } == 0)
  }
}
