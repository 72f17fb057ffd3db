import EngineTestSupport
import Foundation
import TestSupport
import Testing

@testable import ObjectGraph

/// A class whose property types differ from the model's number types, as `@NSManaged` scalars may.
final class Gauge: NSManagedObject {
  @ObjectGraphManaged var count: Int
  @ObjectGraphManaged var level: Double?
}

/// Behaviours found by review against Core Data's documentation, each with the case that used to go wrong.
@Suite("Edge cases", .temporaryFolders)
struct EdgeCaseTests {
  @Test("A child's new object pointing at an object its parent already saved keeps the relationship", arguments: bothStoreTypes)
  func childRelationshipToParentSavedObject(type: NSPersistentStore.StoreType) throws {
    let stack = try StoreStack(type: type)
    let child = NSManagedObjectContext(concurrencyType: .privateQueueConcurrencyType)
    child.parent = stack.context
    let book = try child.performAndWait {
      let book = Notebook(context: child)
      book.name = "saved first"
      try child.save()
      return book
    }
    try stack.context.performAndWait { try stack.context.save() }
    try child.performAndWait {
      let note = Note(context: child)
      note.title = "points at it"
      note.notebook = book
      try child.save()
      // The child still has one object for the notebook's row.
      let books = try child.fetch(NSFetchRequest<Notebook>(entityName: "Notebook"))
      #expect(books.count == 1 && books.first === book)
    }
    try stack.context.performAndWait { try stack.context.save() }
    #expect(try stack.stored("Note") { ($0 as? Note)?.notebook?.name } == ["saved first"])
    if let row = try stack.fileRows("SELECT b.ZNAME AS name FROM ZNOTE n JOIN ZNOTEBOOK b ON b.Z_PK = n.ZNOTEBOOK") {
      #expect(row.first?["name"] as String? == "saved first")
    }
  }

  @Test("A relationship to an object that was never saved is an error, not a silent NULL", arguments: bothStoreTypes)
  func relationshipToUnsavedObjectElsewhere(type: NSPersistentStore.StoreType) throws {
    let stack = try StoreStack(type: type)
    let other = NSManagedObjectContext(concurrencyType: .privateQueueConcurrencyType)
    other.persistentStoreCoordinator = stack.coordinator
    let foreignID = other.performAndWait { Notebook(context: other).objectID }
    stack.context.performAndWait {
      let note = Note(context: stack.context)
      note.title = "dangling"
      note.values[note.layout.index(of: "notebook") ?? 0] = .objectID(foreignID)
      _ = expectCode(.managedObjectReferentialIntegrity) { try stack.context.save() }
    }
    try stack.expectStored("Note", count: 0, table: "ZNOTE")
  }

  @Test("A default value given as Int is stored as the attribute's Int64", arguments: bothStoreTypes)
  func defaultValuesAreTyped(type: NSPersistentStore.StoreType) throws {
    let entity = NSEntityDescription(
      name: "Counter",
      properties: [.attribute(NSAttributeDescription(name: "count", type: .integer64, isOptional: false, defaultValue: 5))])
    let stack = try StoreStack(model: try NSManagedObjectModel(entities: [entity]), type: type)
    try stack.context.performAndWait {
      let counter = NSManagedObject(entity: entity, insertInto: stack.context)
      #expect(counter.value(forKey: "count") as? Int64 == 5)
      try stack.context.save()
    }
    #expect(try stack.stored("Counter") { $0.value(forKey: "count") as? Int64 } == [5])
    if let rows = try stack.fileRows("SELECT ZCOUNT FROM ZCOUNTER") { #expect(rows[0]["ZCOUNT"] as Int64 == 5) }
    _ = expectCode(.modelInvalid) {
      _ = try NSManagedObjectModel(entities: [
        NSEntityDescription(
          name: "Bad", properties: [.attribute(NSAttributeDescription(name: "n", type: .integer16, defaultValue: "five"))])
      ])
    }
  }

  @Test("A private child of a main-queue parent works from code running on the main queue", arguments: bothStoreTypes)
  @MainActor
  func privateChildOfMainParentFromTheMainQueue(type: NSPersistentStore.StoreType) throws {
    let stack = try StoreStack(type: type)
    let main = NSManagedObjectContext(concurrencyType: .mainQueueConcurrencyType)
    main.persistentStoreCoordinator = stack.coordinator
    let child = NSManagedObjectContext(concurrencyType: .privateQueueConcurrencyType)
    child.parent = main
    let count = try child.performAndWait {
      let note = Note(context: child)
      note.title = "via the main parent"
      try child.save()  // calls into the main-queue parent while this main-queue code waits
      return try child.count(for: NSFetchRequest<Note>(entityName: "Note"))
    }
    #expect(count == 1)
    #expect(main.insertedObjects.count == 1)
  }

  @Test("A relationship that is its own inverse is stored", arguments: bothStoreTypes)
  func reflexiveManyToMany(type: NSPersistentStore.StoreType) throws {
    let person = NSEntityDescription(
      name: "Person",
      properties: [
        .attribute(NSAttributeDescription(name: "name", type: .string)),
        .relationship(NSRelationshipDescription(name: "friends", destination: "Person", inverse: "friends", toMany: true)),
      ])
    let stack = try StoreStack(model: try NSManagedObjectModel(entities: [person]), type: type)
    try stack.context.performAndWait {
      let ada = NSManagedObject(entity: person, insertInto: stack.context)
      ada.setValue("Ada", forKey: "name")
      let bob = NSManagedObject(entity: person, insertInto: stack.context)
      bob.setValue("Bob", forKey: "name")
      ada.setValue([bob], forKey: "friends")
      #expect((bob.value(forKey: "friends") as? Set<NSManagedObject>) == [ada])
      try stack.context.save()
    }
    let (_, reader) = try stack.reader()
    try reader.performAndWait {
      let people = try reader.fetch(NSFetchRequest<NSManagedObject>(entityName: "Person"))
      for someone in people {
        let friends = someone.value(forKey: "friends") as? Set<NSManagedObject> ?? []
        #expect(friends.count == 1 && friends.first !== someone)
      }
    }
  }

  @Test("A fault whose row is gone becomes a deleted, empty object (shouldDeleteInaccessibleFaults)", arguments: bothStoreTypes)
  func inaccessibleFault(type: NSPersistentStore.StoreType) throws {
    let stack = try StoreStack(type: type)
    let id = try stack.context.performAndWait {
      let note = Note(context: stack.context)
      note.title = "short-lived"
      try stack.context.save()
      return note.objectID
    }
    let (_, other) = try stack.reader()
    let fault = other.performAndWait { other.object(with: id) as? Note }
    try stack.context.performAndWait {
      stack.context.delete(try stack.context.existingObject(with: id))
      try stack.context.save()
    }
    other.performAndWait {
      #expect(fault?.title == nil)
      #expect(fault?.isDeleted == true)
    }
  }

  @Test("With shouldDeleteInaccessibleFaults off, touching a fault whose row is gone stops the program", arguments: bothStoreTypes)
  func inaccessibleFaultStops(type: NSPersistentStore.StoreType) async throws {
    let folder = try TemporaryFolder()
    let stopped = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
      [folder = folder as TemporaryFolder, type = type.rawValue as String] in
      let stack = try StoreStack(type: NSPersistentStore.StoreType(rawValue: type), folder: folder)
      let id = try stack.context.performAndWait {
        let note = Note(context: stack.context)
        note.title = "gone soon"
        try stack.context.save()
        return note.objectID
      }
      let (_, other) = try stack.reader()
      other.shouldDeleteInaccessibleFaults = false
      try stack.context.performAndWait {
        stack.context.delete(try stack.context.existingObject(with: id))
        try stack.context.save()
      }
      other.performAndWait { _ = (other.object(with: id) as? Note)?.title }
    }
    let said = String(decoding: stopped?.standardErrorContent ?? [], as: UTF8.self)
    #expect(said.contains("could not fulfill a fault for 'title' of Note"), "it printed: \(said)")
  }

  @Test("Deleting a never-saved object removes it; inserting it again brings it back", arguments: bothStoreTypes)
  func deleteAndReinsertUnsaved(type: NSPersistentStore.StoreType) throws {
    let stack = try StoreStack(type: type)
    try stack.context.performAndWait {
      let note = Note(context: stack.context)
      note.title = "undecided"
      stack.context.delete(note)
      stack.context.processPendingChanges()
      #expect(stack.context.deletedObjects.isEmpty)
      #expect(!stack.context.hasChanges)
      stack.context.insert(note)
      #expect(note.isInserted && !note.isDeleted)
      try stack.context.save()
    }
    #expect(try stack.stored("Note") { $0.value(forKey: "title") as? String } == ["undecided"])
    if let rows = try stack.fileRows("SELECT ZTITLE FROM ZNOTE") { #expect(rows[0]["ZTITLE"] as String == "undecided") }
  }

  @Test("Object trump takes in the store's other changes; rollback keeps a row changed elsewhere", arguments: bothStoreTypes)
  func mergePoliciesRefresh(type: NSPersistentStore.StoreType) throws {
    let stack = try StoreStack(type: type)
    let (_, other) = try stack.reader()
    let saved = try ConflictingEdit.make(
      mine: stack.context, theirs: other,
      insert: { context in
        let note = Note(context: context)
        note.title = "t"
        note.rating = 1
        return note
      },
      change: { ($0 as? Note)?.rating = 99 })
    let note = try #require(saved as? Note)
    let id = stack.context.performAndWait { note.objectID }
    try stack.context.performAndWait {
      stack.context.mergePolicy = NSMergePolicy.mergeByPropertyObjectTrump
      note.body = "mine"
      try stack.context.save()
      #expect(note.rating == 99)
      #expect(note.body == "mine")
    }
    // Rollback: a delete of a row changed elsewhere is dropped.
    try other.performAndWait {
      let object = try other.existingObject(with: id)
      other.refresh(object, mergeChanges: false)  // it read version 2; the store is at 3 now
      (object as? Note)?.rating = 100
      try other.save()
    }
    try stack.context.performAndWait {
      stack.context.mergePolicy = NSMergePolicy.rollback
      stack.context.delete(note)
      try stack.context.save()
    }
    #expect(try stack.stored("Note") { $0.value(forKey: "rating") as? Int64 } == [100])
    if let rows = try stack.fileRows("SELECT ZRATING FROM ZNOTE") { #expect(rows[0]["ZRATING"] as Int64 == 100) }
  }

  @Test("Changing a model in use stops with a message (it does not hang)")
  func frozenModelStops() async throws {
    await #expect(processExitsWith: .failure) {
      let model = try Models.notes()
      _ = NSPersistentStoreCoordinator(managedObjectModel: model)
      model.entities[0].isAbstract = true
    }
  }

  @Test("Counting across two stores applies the limit and the offset to the whole")
  func countAcrossStores() throws {
    let folder = try TemporaryFolder()
    let model = try Models.allTypes()
    let entity = try #require(model.entitiesByName["Everything"])
    // Fill two files separately, 3 rows and 2 rows.
    for (name, rows) in [("a.sqlite", 3), ("b.sqlite", 2)] {
      let context = try StoreStack(model: model, at: folder.appending(name)).context
      try context.performAndWait {
        for _ in 0..<rows { _ = NSManagedObject(entity: entity, insertInto: context) }
        try context.save()
      }
    }
    let both = NSPersistentStoreCoordinator(managedObjectModel: model)
    try both.addPersistentStore(type: .sqlite, at: folder.appending("a.sqlite"))
    try both.addPersistentStore(type: .sqlite, at: folder.appending("b.sqlite"))
    let context = NSManagedObjectContext(concurrencyType: .privateQueueConcurrencyType)
    context.persistentStoreCoordinator = both
    let counts = try context.performAndWait { () -> [Int] in
      let request = NSFetchRequest<NSManagedObject>(entityName: "Everything")
      var counts = [try context.count(for: request), try context.fetch(request).count]
      request.fetchLimit = 4
      counts.append(try context.count(for: request))
      request.fetchOffset = 3
      counts += [try context.count(for: request), try context.fetch(request).count]
      return counts
    }
    #expect(counts == [5, 5, 4, 2, 2])
  }

  @Test("Version hashes change with a relationship's counts and a property's transience")
  func versionHashInputs() throws {
    func hash(minCount: Int, transient: Bool) throws -> Data {
      let relationship = NSRelationshipDescription(name: "items", destination: "Item", inverse: nil, toMany: true)
      relationship.minCount = minCount
      let attribute = NSAttributeDescription(name: "cache", type: .string)
      attribute.isTransient = transient
      let box = NSEntityDescription(name: "Box", properties: [.relationship(relationship), .attribute(attribute)])
      let item = NSEntityDescription(name: "Item", properties: [])
      return try NSManagedObjectModel(entities: [box, item]).entityVersionHashesByName["Box"] ?? Data()
    }
    let base = try hash(minCount: 0, transient: false)
    let again = try hash(minCount: 0, transient: false)
    let counted = try hash(minCount: 2, transient: false)
    let transient = try hash(minCount: 0, transient: true)
    #expect(base == again)
    #expect(base != counted)
    #expect(base != transient)
  }

  @Test("reset() tells observers every object is invalid; refresh(_:mergeChanges:) names the object", arguments: bothStoreTypes)
  func resetAndRefreshNotify(type: NSPersistentStore.StoreType) throws {
    let stack = try StoreStack(type: type)
    let seen = NotificationLog(NSManagedObjectContext.didChangeObjectsNotification, object: stack.context) { note in
      (note.userInfo ?? [:]).keys.compactMap { $0 as? String }.sorted().joined(separator: ",")
    }
    try stack.context.performAndWait {
      let note = Note(context: stack.context)
      note.title = "n"
      try stack.context.save()
      seen.removeAll()
      stack.context.refresh(note, mergeChanges: false)
      stack.context.reset()
    }
    #expect(seen.entries == ["refreshed", "invalidatedAll"])
  }

  @Test("@ObjectGraphManaged numbers convert exactly between the property's type and the attribute's", arguments: bothStoreTypes)
  func managedNumbersBridge(type: NSPersistentStore.StoreType) throws {
    let gauge = NSEntityDescription(
      name: "Gauge", managedObjectClass: Gauge.self,
      properties: [
        .attribute(NSAttributeDescription(name: "count", type: .integer64, isOptional: false, defaultValue: Int64(0))),
        .attribute(NSAttributeDescription(name: "level", type: .float)),
      ])
    let stack = try StoreStack(model: try NSManagedObjectModel(entities: [gauge]), type: type)
    let (count, level, stored) = try stack.context.performAndWait {
      let object = Gauge(context: stack.context)
      object.count = 42
      object.level = 0.5
      try stack.context.save()
      return (object.count, object.level, object.value(forKey: "count") as? Int64)
    }
    #expect(count == 42)
    #expect(level == 0.5)
    #expect(stored == 42)
  }

  @Test("A main-queue context applies delete rules when the main queue finishes the current block", arguments: bothStoreTypes)
  @MainActor
  func mainQueueProcessesAtTheEndOfTheBlock(type: NSPersistentStore.StoreType) async throws {
    let stack = try StoreStack(type: type)
    let main = NSManagedObjectContext(concurrencyType: .mainQueueConcurrencyType)
    main.persistentStoreCoordinator = stack.coordinator
    let book = Notebook(context: main)
    let note = Note(context: main)
    note.title = "to go"
    note.notebook = book
    try main.save()
    main.delete(note)
    #expect(book.notes.contains(note))  // not processed yet: still inside this block
    await withCheckedContinuation { (resume: CheckedContinuation<Void, Never>) in
      DispatchQueue.main.async { resume.resume() }
    }
    #expect(!book.notes.contains(note))  // nullified once the block ended
  }

  @Test("Deleting an object whose deletion was already saved does nothing", arguments: bothStoreTypes)
  func deleteTwice(type: NSPersistentStore.StoreType) throws {
    let stack = try StoreStack(type: type)
    try stack.context.performAndWait {
      let note = Note(context: stack.context)
      note.title = "once"
      try stack.context.save()
      stack.context.delete(note)
      try stack.context.save()
      #expect(note.managedObjectContext == nil)
      stack.context.delete(note)
      #expect(!stack.context.hasChanges)
    }
  }
}
