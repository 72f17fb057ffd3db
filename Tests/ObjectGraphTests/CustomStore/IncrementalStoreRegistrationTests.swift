import EngineTestSupport
import Foundation
import ObjectGraph
import TestSupport
import Testing

@Suite("Custom store classes: NSIncrementalStore registrations", .temporaryFolders)
struct IncrementalStoreRegistrationTests {
  init() {
    NSPersistentStoreCoordinator.registerStoreClass(PlistIncrementalStore.self, forStoreType: PlistIncrementalStore.typeName)
  }

  @Test("A fetch registers its objects in one call; object(with:) of a registered one adds nothing; reset lets all go in one call")
  func fetchAndReset() throws {
    let (url, model) = try IncrementalStoreTests.filled(TemporaryFolder())
    let (store, context) = try IncrementalStoreTests.stack(model, at: url)
    let ids = try context.performAndWait {
      let notes = try context.fetch(NSFetchRequest<NSManagedObject>(entityName: "Note"))
      #expect(notes.count == 4)
      #expect(store.count(of: "register") == 1)
      for note in notes { #expect(store.referenceCount(note.objectID) == 1) }
      _ = context.object(with: notes[0].objectID)
      _ = try context.existingObject(with: notes[1].objectID)
      _ = try context.fetch(NSFetchRequest<NSManagedObject>(entityName: "Note"))
      #expect(store.count(of: "register") == 1)
      #expect(store.referencedIDs == Set(notes.map(\.objectID)))
      return notes.map(\.objectID)
    }
    context.reset()
    #expect(store.count(of: "unregister") == 1)
    #expect(store.referencedIDs.isEmpty)
    for id in ids { #expect(store.referenceCount(id) == 0) }
  }

  @Test("object(with:) of an ID not registered yet registers it; a to-one's destination too, when it becomes an object")
  func objectWithAndRelationships() throws {
    let (url, model) = try IncrementalStoreTests.filled(TemporaryFolder())
    let (store, context) = try IncrementalStoreTests.stack(model, at: url)
    try context.performAndWait {
      let ids = NSFetchRequest<NSManagedObjectID>(entityName: "Note")
      ids.resultType = .managedObjectIDResultType
      ids.predicate = NSPredicate(format: "title == %@", "a")
      let id = try #require(try context.fetch(ids).first)
      #expect(store.count(of: "register") == 0)
      let note = context.object(with: id)
      #expect(store.count(of: "register") == 1)
      #expect(store.referenceCount(id) == 1)
      let owner = try #require(note.value(forKey: "folder") as? NSManagedObject)
      #expect(store.referenceCount(owner.objectID) == 1)
      #expect(store.count(of: "register") == 2)
      #expect(store.referencedIDs == [id, owner.objectID])
    }
  }

  @Test("Inserted objects are registered once they have permanent IDs; deleted ones let go after the save")
  func insertAndDelete() throws {
    let (url, model) = try IncrementalStoreTests.filled(TemporaryFolder())
    let (store, context) = try IncrementalStoreTests.stack(model, at: url)
    try context.performAndWait {
      let added = NSEntityDescription.insertNewObject(forEntityName: "Note", into: context)
      added.setValue("e", forKey: "title")
      #expect(store.count(of: "register") == 0)
      try context.save()
      #expect(!added.objectID.isTemporaryID)
      #expect(store.referenceCount(added.objectID) == 1)

      let request = NSFetchRequest<NSManagedObject>(entityName: "Note")
      request.predicate = NSPredicate(format: "title == %@", "d")
      let gone = try #require(try context.fetch(request).first)
      let goneID = gone.objectID
      #expect(store.referenceCount(goneID) == 1)
      context.delete(gone)
      #expect(store.referenceCount(goneID) == 1)
      try context.save()
      #expect(store.referenceCount(goneID) == 0)
      #expect(store.referenceCount(added.objectID) == 1)
    }
  }

  @Test("Objects no one holds any more are let go of when the context purges them; a context that goes away lets go of all")
  func purgeAndContextGoingAway() throws {
    let (url, model) = try IncrementalStoreTests.filled(TemporaryFolder())
    let (store, context) = try IncrementalStoreTests.stack(model, at: url)
    try context.performAndWait {
      _ = try context.fetch(NSFetchRequest<NSManagedObject>(entityName: "Note")).count
      #expect(store.referencedIDs.count == 4)
      // Nothing holds the fetched objects now: reading registeredObjects purges them.
      #expect(context.registeredObjects.isEmpty)
      #expect(store.referencedIDs.isEmpty)
    }
    let coordinator = try #require(store.persistentStoreCoordinator)
    var kept: [NSManagedObject] = []
    do {
      let passing = NSManagedObjectContext(concurrencyType: .privateQueueConcurrencyType)
      passing.persistentStoreCoordinator = coordinator
      kept = try passing.performAndWait { try passing.fetch(NSFetchRequest<NSManagedObject>(entityName: "Folder")) }
      #expect(store.referencedIDs.count == 2)
    }
    #expect(kept.count == 2)
    kept = []
    #expect(store.referencedIDs.isEmpty)
    #expect(store.count(of: "unregister") == 2)
  }

  @Test("Two contexts count twice; a rollback of an inserted object with a permanent ID lets it go")
  func twoContextsAndRollback() throws {
    let (url, model) = try IncrementalStoreTests.filled(TemporaryFolder())
    let (store, first) = try IncrementalStoreTests.stack(model, at: url)
    let second = NSManagedObjectContext(concurrencyType: .privateQueueConcurrencyType)
    second.persistentStoreCoordinator = store.persistentStoreCoordinator
    let request = NSFetchRequest<NSManagedObject>(entityName: "Folder")
    let held = try first.performAndWait { try first.fetch(request) }
    let alsoHeld = try second.performAndWait { try second.fetch(request) }
    for folder in held { #expect(store.referenceCount(folder.objectID) == 2) }
    second.reset()
    for folder in held { #expect(store.referenceCount(folder.objectID) == 1) }
    #expect(alsoHeld.count == 2)
    try first.performAndWait {
      let added = NSEntityDescription.insertNewObject(forEntityName: "Folder", into: first)
      try first.obtainPermanentIDs(for: [added])
      #expect(store.referenceCount(added.objectID) == 1)
      let id = added.objectID
      first.rollback()
      #expect(store.referenceCount(id) == 0)
    }
  }

  @Test("A SQLite context in the same process keeps no registration log and reports nothing")
  func otherStoresUntouched() throws {
    let (url, model) = try IncrementalStoreTests.filled(TemporaryFolder())
    let (store, _) = try IncrementalStoreTests.stack(model, at: url)
    let coordinator = NSPersistentStoreCoordinator(managedObjectModel: model)
    try coordinator.addPersistentStore(type: .inMemory, at: URL(fileURLWithPath: "/dev/null"))
    let context = NSManagedObjectContext(concurrencyType: .privateQueueConcurrencyType)
    context.persistentStoreCoordinator = coordinator
    try context.performAndWait {
      let folder = NSEntityDescription.insertNewObject(forEntityName: "Folder", into: context)
      folder.setValue("x", forKey: "name")
      try context.save()
      _ = try context.fetch(NSFetchRequest<NSManagedObject>(entityName: "Folder"))
      context.reset()
    }
    #expect(store.count(of: "register") == 0)
    #expect(store.count(of: "unregister") == 0)
  }

  @Test("A child context's objects are reported too, and let go of when the child resets")
  func childContext() throws {
    let (url, model) = try IncrementalStoreTests.filled(TemporaryFolder())
    let (store, root) = try IncrementalStoreTests.stack(model, at: url)
    let child = NSManagedObjectContext(concurrencyType: .privateQueueConcurrencyType)
    child.parent = root
    let (id, before) = try child.performAndWait {
      let request = NSFetchRequest<NSManagedObject>(entityName: "Note")
      request.predicate = NSPredicate(format: "title == %@", "c")
      let note = try #require(try child.fetch(request).first)
      return (note.objectID, store.referenceCount(note.objectID))
    }
    #expect(before >= 1)
    child.reset()
    #expect(store.referenceCount(id) == before - 1)
  }
}
