import EngineTestSupport
import Foundation
import TestSupport
import Testing

@testable import ObjectGraph

@Suite("Context notifications under Core Data's names and keys", .temporaryFolders)
struct CoreDataNotificationNameTests {
  @Test("A save is observed as NSManagedObjectContextDidSave with NSInsertedObjectsKey")
  func didSaveUnderCoreDataNames() throws {
    #expect(Notification.Name.NSManagedObjectContextDidSave == NSManagedObjectContext.didSaveObjectsNotification)
    #expect(Notification.Name.NSManagedObjectContextDidSave.rawValue == "NSManagedObjectContextDidSaveNotification")
    #expect(NSManagedObjectContext.didChangeObjectsNotification == .NSManagedObjectContextObjectsDidChange)
    #expect(NSManagedObjectContext.willSaveObjectsNotification == .NSManagedObjectContextWillSave)
    #expect(
      [NSInsertedObjectsKey, NSUpdatedObjectsKey, NSDeletedObjectsKey, NSRefreshedObjectsKey, NSInvalidatedObjectsKey]
        == ["inserted", "updated", "deleted", "refreshed", "invalidated"])
    let context = try StoreStack(type: .inMemory).context
    let inserted = Locked<Int>(-1)
    let token = NotificationCenter.default.addObserver(
      forName: .NSManagedObjectContextDidSave, object: context, queue: nil
    ) { notification in
      let objects = notification.userInfo?[NSInsertedObjectsKey] as? Set<NSManagedObject>
      inserted.withLock { $0 = objects?.count ?? 0 }
    }
    defer { NotificationCenter.default.removeObserver(token) }
    try context.performAndWait {
      Note(context: context).title = "saved"
      try context.save()
    }
    #expect(inserted.withLock { $0 } == 1)
  }
}
