import EngineTestSupport
import Foundation
import TestSupport
import Testing

@testable import ObjectGraph

@Suite("Saving", .temporaryFolders)
struct SavingTests {
  /// The row version of every stored note, as a fresh context reads it.
  private func storedVersions(_ stack: StoreStack) throws -> [Int64?] {
    try stack.stored("Note") { note in
      _ = note.value(forKey: "title")  // fires the fault, which reads the row with its version
      return note.snapshot?.version
    }
  }

  @Test("Every attribute type survives a save and a read from the store", arguments: bothStoreTypes)
  func roundTripEveryType(type: NSPersistentStore.StoreType) throws {
    let stack = try StoreStack(model: Models.allTypes(), type: type)
    let date = Date(timeIntervalSinceReferenceDate: 123_456.789)
    let uuid = UUID()
    let url = URL(string: "https://example.com/a?b=c")
    let decimal = Decimal(string: "1234567.890123456789")
    try stack.context.performAndWait {
      let object = NSManagedObject(entity: stack.entity("Everything"), insertInto: stack.context)
      object.setValue("héllo ✓", forKey: "string")
      object.setValue(Int16(-12), forKey: "int16")
      object.setValue(Int32(70_000), forKey: "int32")
      object.setValue(Int64.max, forKey: "int64")
      object.setValue(3.25, forKey: "double")
      object.setValue(Float(1.5), forKey: "float")
      object.setValue(true, forKey: "bool")
      object.setValue(date, forKey: "date")
      object.setValue(Data([0, 1, 2, 255]), forKey: "data")
      object.setValue(uuid, forKey: "uuid")
      object.setValue(url, forKey: "uri")
      object.setValue(decimal, forKey: "decimal")
      try stack.context.save()
    }
    let (_, context) = try stack.reader()
    try context.performAndWait {
      let objects = try context.fetch(NSFetchRequest<NSManagedObject>(entityName: "Everything"))
      #expect(objects.count == 1)
      let object = try #require(objects.first)
      #expect(object.value(forKey: "string") as? String == "héllo ✓")
      #expect(object.value(forKey: "int16") as? Int16 == -12)
      #expect(object.value(forKey: "int32") as? Int32 == 70_000)
      #expect(object.value(forKey: "int64") as? Int64 == Int64.max)
      #expect(object.value(forKey: "double") as? Double == 3.25)
      #expect(object.value(forKey: "float") as? Float == 1.5)
      #expect(object.value(forKey: "bool") as? Bool == true)
      #expect(object.value(forKey: "date") as? Date == date)
      #expect(object.value(forKey: "data") as? Data == Data([0, 1, 2, 255]))
      #expect(object.value(forKey: "uuid") as? UUID == uuid)
      #expect(object.value(forKey: "uri") as? URL == url)
      #expect(object.value(forKey: "decimal") as? Decimal == decimal)
    }
  }

  @Test("Nil values round-trip as nil", arguments: bothStoreTypes)
  func nilRoundTrip(type: NSPersistentStore.StoreType) throws {
    let stack = try StoreStack(model: Models.allTypes(), type: type)
    try stack.context.performAndWait {
      _ = NSManagedObject(entity: stack.entity("Everything"), insertInto: stack.context)
      try stack.context.save()
    }
    let (_, context) = try stack.reader()
    try context.performAndWait {
      let object = try #require(try context.fetch(NSFetchRequest<NSManagedObject>(entityName: "Everything")).first)
      for key in ["string", "int16", "date", "uuid", "decimal", "data"] { #expect(object.value(forKey: key) == nil) }
    }
  }

  @Test("A save gives inserted objects permanent IDs, whose URIs turn back into the same IDs", arguments: bothStoreTypes)
  func temporaryIDsBecomePermanent(type: NSPersistentStore.StoreType) throws {
    let stack = try StoreStack(type: type)
    try stack.context.performAndWait {
      let note = Note(context: stack.context)
      note.title = "A"
      let temporary = note.objectID
      #expect(temporary.isTemporaryID)
      #expect(temporary.uriRepresentation().absoluteString.hasPrefix("x-coredata:///Note/t"))
      try stack.context.save()
      #expect(!note.objectID.isTemporaryID)
      #expect(note.objectID != temporary)
      let uri = note.objectID.uriRepresentation()
      #expect(uri.absoluteString == "x-coredata://\(stack.coordinator.persistentStores[0].identifier)/Note/p1")
      #expect(stack.coordinator.managedObjectID(forURIRepresentation: uri) == note.objectID)
      #expect(try stack.context.existingObject(with: note.objectID) === note)
    }
  }

  @Test(
    "obtainPermanentIDs numbers new objects in the order they were inserted, whatever the array's order",
    arguments: bothStoreTypes)
  func obtainedKeysFollowInsertionOrder(type: NSPersistentStore.StoreType) throws {
    let stack = try StoreStack(type: type)
    try stack.context.performAndWait {
      let notes = (0..<40).map { number in
        let note = Note(context: stack.context)
        note.title = "note \(number)"
        return note
      }
      // A shuffle, a reversal and a set's order: the keys still come out in insertion order.
      try stack.context.obtainPermanentIDs(for: [7, 2, 9, 0, 5, 1, 8, 3, 6, 4].map { notes[$0] })
      try stack.context.obtainPermanentIDs(for: Array(notes[10..<25].reversed()))
      try stack.context.obtainPermanentIDs(for: Array(stack.context.insertedObjects))
      let keys = notes.map { $0.objectID.primaryKey ?? -1 }
      #expect(keys == Array(1...40))
      try stack.context.save()
      #expect(notes.map { $0.objectID.primaryKey ?? -1 } == keys)
    }
    if let rows = try stack.fileRows("SELECT ZTITLE FROM ZNOTE ORDER BY Z_PK") {
      #expect(rows.map { $0["ZTITLE"] as String } == (0..<40).map { "note \($0)" })
    }
  }

  @Test("Each save bumps the row version Z_OPT", arguments: bothStoreTypes)
  func versionsBump(type: NSPersistentStore.StoreType) throws {
    let stack = try StoreStack(type: type)
    try stack.context.performAndWait {
      let note = Note(context: stack.context)
      note.title = "v1"
      try stack.context.save()
      #expect(try storedVersions(stack) == [1])
      if let rows = try stack.fileRows("SELECT Z_OPT FROM ZNOTE") { #expect(rows[0]["Z_OPT"] as Int64 == 1) }
      note.title = "v2"
      try stack.context.save()
      #expect(try storedVersions(stack) == [2])
      if let rows = try stack.fileRows("SELECT Z_OPT FROM ZNOTE") { #expect(rows[0]["Z_OPT"] as Int64 == 2) }
    }
  }

  @Test("Nothing reaches the store until save; a save writes everything in one transaction", arguments: bothStoreTypes)
  func nothingUntilSave(type: NSPersistentStore.StoreType) throws {
    let stack = try StoreStack(type: type)
    try stack.context.performAndWait {
      for index in 0..<3 {
        let note = Note(context: stack.context)
        note.title = "n\(index)"
      }
      try stack.expectStored("Note", count: 0, table: "ZNOTE")
      #expect(stack.context.hasChanges)
      try stack.context.save()
      #expect(!stack.context.hasChanges)
      try stack.expectStored("Note", count: 3, table: "ZNOTE")
    }
  }

  @Test("A missing required value is error 1570 naming entity and key; nothing is written, changes stay", arguments: bothStoreTypes)
  func missingMandatory(type: NSPersistentStore.StoreType) throws {
    let stack = try StoreStack(type: type)
    try stack.context.performAndWait {
      let ok = Note(context: stack.context)
      ok.title = "fine"
      let bad = Note(context: stack.context)
      let error = expectCode(.validationMissingMandatoryProperty) { try stack.context.save() }
      #expect(error?.message.contains("Note.title") == true)
      try stack.expectStored("Note", count: 0, table: "ZNOTE")
      #expect(stack.context.insertedObjects.count == 2)
      #expect(bad.isInserted && ok.objectID.isTemporaryID)
      bad.title = "now fine"
      try stack.context.save()
      try stack.expectStored("Note", count: 2, table: "ZNOTE")
    }
  }

  @Test("Several validation failures come together as error 1560", arguments: bothStoreTypes)
  func multipleErrors(type: NSPersistentStore.StoreType) throws {
    let stack = try StoreStack(type: type)
    stack.context.performAndWait {
      _ = Note(context: stack.context)
      _ = Note(context: stack.context)
      let error = expectCode(.validationMultipleErrors) { try stack.context.save() }
      #expect(error?.detailedErrors.count == 2)
      #expect(error?.detailedErrors.allSatisfy { $0.code == .validationMissingMandatoryProperty } == true)
    }
  }

  @Test("Cascade deletes related objects; nullify clears the inverse", arguments: bothStoreTypes)
  func cascadeAndNullify(type: NSPersistentStore.StoreType) throws {
    let stack = try StoreStack(type: type)
    try stack.context.performAndWait {
      let book = Notebook(context: stack.context)
      book.name = "Work"
      let first = Note(context: stack.context)
      first.title = "1"
      first.notebook = book
      let second = Note(context: stack.context)
      second.title = "2"
      second.notebook = book
      let tag = Tag(context: stack.context)
      tag.name = "t"
      first.tags = [tag]
      try stack.context.save()

      // Nullify: deleting a note removes it from its notebook and its tag.
      stack.context.delete(first)
      try stack.context.save()
      #expect(book.notes.map(\.title) == ["2"])
      #expect(tag.notes.isEmpty)
      #expect(try stack.stored("Tag") { ($0.value(forKey: "notes") as? Set<NSManagedObject>)?.count } == [0])
      if let rows = try stack.fileRows("SELECT COUNT(*) AS c FROM Z_5TAGS") { #expect(rows[0]["c"] as Int == 0) }

      // Cascade: deleting the notebook deletes its notes.
      stack.context.delete(book)
      try stack.context.save()
      try stack.expectStored("Note", count: 0, table: "ZNOTE")
      try stack.expectStored("Notebook", count: 0, table: "ZNOTEBOOK")
      try stack.expectStored("Tag", count: 1, table: "ZTAG")
    }
  }

  @Test("Deny refuses the delete with error 1600 while the relationship holds an object", arguments: bothStoreTypes)
  func denyRule(type: NSPersistentStore.StoreType) throws {
    let stack = try StoreStack(type: type)
    try stack.context.performAndWait {
      let note = Note(context: stack.context)
      note.title = "locked"
      let lock = NSManagedObject(entity: stack.entity("Lock"), insertInto: stack.context)
      note.setValue(lock, forKey: "lock")
      try stack.context.save()
      stack.context.delete(note)
      let error = expectCode(.validationRelationshipDeniedDelete) { try stack.context.save() }
      #expect(error?.message.contains("lock") == true)
      try stack.expectStored("Note", count: 1, table: "ZNOTE")
      // Removing the lock first makes the delete legal.
      stack.context.rollback()
      stack.context.delete(lock)
      stack.context.delete(note)
      try stack.context.save()
      try stack.expectStored("Note", count: 0, table: "ZNOTE")
    }
  }

  @Test("A save conflicting with another coordinator's save is error 133020 listing the object and keys", arguments: bothStoreTypes)
  func optimisticLocking(type: NSPersistentStore.StoreType) throws {
    let stack = try StoreStack(type: type)
    let kept = try stack.conflictingEdit(original: "original", theirs: "theirs")
    let id = kept.objectID
    try stack.context.performAndWait {
      let note = try #require(try stack.context.existingObject(with: id) as? Note)
      #expect(note === kept)
      note.body = "mine"
      let error = expectCode(.managedObjectMerge) { try stack.context.save() }
      #expect(error?.mergeConflictRecords.first?.objectID == id)
      #expect(error?.mergeConflictRecords.first?.conflictingKeys == ["body"])
      #expect(error?.mergeConflictRecords.first?.newVersion == 2)
      #expect(note.hasChanges)
      #expect(try stack.stored("Note") { $0.value(forKey: "body") as? String } == [nil])
      if let rows = try stack.fileRows("SELECT ZBODY FROM ZNOTE") { #expect(rows[0]["ZBODY"] as String? == nil) }

      // Per-property object trump: our body and their title both survive.
      stack.context.mergePolicy = NSMergePolicy.mergeByPropertyObjectTrump
      try stack.context.save()
      #expect(
        try stack.stored("Note") { [$0.value(forKey: "title") as? String, $0.value(forKey: "body") as? String] } == [["theirs", "mine"]])
      #expect(try storedVersions(stack) == [3])
      if let row = try stack.fileRows("SELECT ZTITLE, ZBODY, Z_OPT FROM ZNOTE")?[0] {
        #expect(row["ZTITLE"] as String? == "theirs")
        #expect(row["ZBODY"] as String? == "mine")
        #expect(row["Z_OPT"] as Int64 == 3)
      }
    }
  }

  @Test("Store trump keeps the store's value for a property both sides changed", arguments: bothStoreTypes)
  func storeTrump(type: NSPersistentStore.StoreType) throws {
    let stack = try StoreStack(type: type)
    let kept = try stack.conflictingEdit(original: "original", theirs: "theirs")
    let id = kept.objectID
    try stack.context.performAndWait {
      stack.context.mergePolicy = NSMergePolicy.mergeByPropertyStoreTrump
      let note = try #require(try stack.context.existingObject(with: id) as? Note)
      note.title = "mine"
      note.body = "body"
      try stack.context.save()
      #expect(note.title == "theirs")
      #expect(
        try stack.stored("Note") { [$0.value(forKey: "title") as? String, $0.value(forKey: "body") as? String] } == [["theirs", "body"]])
      if let row = try stack.fileRows("SELECT ZTITLE, ZBODY FROM ZNOTE")?[0] {
        #expect(row["ZTITLE"] as String? == "theirs")
        #expect(row["ZBODY"] as String? == "body")
      }
    }
  }

  @Test("Many-to-many and to-one relationships persist, and faults fill on first access", arguments: bothStoreTypes)
  func relationshipsPersist(type: NSPersistentStore.StoreType) throws {
    let stack = try StoreStack(type: type)
    try stack.context.performAndWait {
      let book = Notebook(context: stack.context)
      book.name = "Home"
      let tags = (0..<3).map { index -> Tag in
        let tag = Tag(context: stack.context)
        tag.name = "tag\(index)"
        return tag
      }
      for index in 0..<2 {
        let note = Note(context: stack.context)
        note.title = "note\(index)"
        note.notebook = book
        note.tags = Set(tags.prefix(index + 2))
      }
      try stack.context.save()
    }
    let (_, context) = try stack.reader()
    try context.performAndWait {
      let request = NSFetchRequest<Notebook>(entityName: "Notebook")
      let book = try #require(try context.fetch(request).first)
      #expect(book.isFault)
      #expect(book.name == "Home")
      #expect(!book.isFault)
      let notes = book.notes.sorted { ($0.title ?? "") < ($1.title ?? "") }
      #expect(notes.map(\.title) == ["note0", "note1"])
      #expect(notes[0].tags.count == 2)
      #expect(notes[1].tags.count == 3)
      #expect(notes[0].notebook === book)
      let tag2 = try #require(notes[1].tags.first { $0.name == "tag2" })
      #expect(tag2.notes.map(\.title) == ["note1"])
    }
  }

  @Test("Inverses stay in step when either side changes", arguments: bothStoreTypes)
  func inverses(type: NSPersistentStore.StoreType) throws {
    let stack = try StoreStack(type: type)
    stack.context.performAndWait {
      let a = Notebook(context: stack.context)
      let b = Notebook(context: stack.context)
      let note = Note(context: stack.context)
      note.notebook = a
      #expect(a.notes.contains(note))
      b.notes = [note]
      #expect(note.notebook === b)
      #expect(a.notes.isEmpty)
      let tag = Tag(context: stack.context)
      tag.notes.insert(note)
      #expect(note.tags.contains(tag))
      note.tags = []
      #expect(tag.notes.isEmpty)
    }
  }

  @Test("changedValues and committedValues", arguments: bothStoreTypes)
  func changedAndCommitted(type: NSPersistentStore.StoreType) throws {
    let stack = try StoreStack(type: type)
    try stack.context.performAndWait {
      let note = Note(context: stack.context)
      note.title = "first"
      try stack.context.save()
      #expect(note.changedValues().isEmpty)
      note.title = "second"
      #expect(note.changedValues()["title"] as? String == "second")
      #expect(note.committedValues(forKeys: ["title"])["title"] as? String == "first")
      #expect(note.isUpdated)
      #expect(stack.context.updatedObjects == [note])
    }
  }

  @Test("rollback undoes inserts, updates and deletes", arguments: bothStoreTypes)
  func rollback(type: NSPersistentStore.StoreType) throws {
    let stack = try StoreStack(type: type)
    try stack.context.performAndWait {
      let kept = Note(context: stack.context)
      kept.title = "kept"
      try stack.context.save()
      kept.title = "changed"
      let added = Note(context: stack.context)
      added.title = "added"
      stack.context.rollback()
      #expect(kept.title == "kept")
      #expect(!stack.context.hasChanges)
      #expect(added.managedObjectContext == nil)
      stack.context.delete(kept)
      stack.context.rollback()
      #expect(!kept.isDeleted)
      #expect(try stack.context.count(for: NSFetchRequest<Note>(entityName: "Note")) == 1)
    }
  }

  @Test("refresh turns an object back into a fault and drops its changes; reset forgets every object", arguments: bothStoreTypes)
  func refreshAndReset(type: NSPersistentStore.StoreType) throws {
    let stack = try StoreStack(type: type)
    try stack.context.performAndWait {
      let note = Note(context: stack.context)
      note.title = "stored"
      try stack.context.save()
      note.title = "unsaved"
      stack.context.refresh(note, mergeChanges: false)
      #expect(note.isFault)
      #expect(note.title == "stored")
      #expect(!stack.context.hasChanges)
      stack.context.reset()
      #expect(stack.context.registeredObjects.isEmpty)
      #expect(note.managedObjectContext == nil)
    }
  }

  @Test("Subentities share their root's table and are fetched through the abstract parent", arguments: bothStoreTypes)
  func inheritance(type: NSPersistentStore.StoreType) throws {
    let stack = try StoreStack(type: type)
    try stack.context.performAndWait {
      let note = Note(context: stack.context)
      note.title = "with files"
      let image = NSManagedObject(entity: stack.entity("ImageAttachment"), insertInto: stack.context)
      image.setValue(Int16(640), forKey: "width")
      image.setValue(Int32(10), forKey: "size")
      image.setValue(note, forKey: "note")
      let file = NSManagedObject(entity: stack.entity("FileAttachment"), insertInto: stack.context)
      file.setValue("/a", forKey: "path")
      file.setValue(note, forKey: "note")
      try stack.context.save()
      try stack.expectStored("Attachment", count: 2, table: "ZATTACHMENT")
    }
    let (_, context) = try stack.reader()
    try context.performAndWait {
      let all = try context.fetch(NSFetchRequest<NSManagedObject>(entityName: "Attachment"))
      #expect(Set(all.map(\.entity.entityName)) == ["ImageAttachment", "FileAttachment"])
      let images = try context.fetch(NSFetchRequest<NSManagedObject>(entityName: "ImageAttachment"))
      #expect(images.count == 1)
      #expect(images.first?.value(forKey: "width") as? Int16 == 640)
      let note = try #require(try context.fetch(NSFetchRequest<Note>(entityName: "Note")).first)
      #expect((note.value(forKey: "attachments") as? Set<NSManagedObject>)?.count == 2)
    }
  }

  @Test("The file has Core Data's layout")
  func coreDataLayout() throws {
    let stack = try StoreStack()
    let tables = Set(try rawRows(stack.storeURL, "SELECT name FROM sqlite_master WHERE type='table'").map { $0["name"] as String })
    #expect(tables.isSuperset(of: ["ZNOTE", "ZNOTEBOOK", "ZTAG", "ZATTACHMENT", "ZLOCK", "Z_PRIMARYKEY", "Z_METADATA", "Z_5TAGS"]))
    let columns = Set(try rawRows(stack.storeURL, "PRAGMA table_info(ZNOTE)").map { $0["name"] as String })
    #expect(columns.isSuperset(of: ["Z_PK", "Z_ENT", "Z_OPT", "ZTITLE", "ZBODY", "ZRATING", "ZCREATEDAT", "ZNOTEBOOK", "ZLOCK"]))
    let entities = try rawRows(stack.storeURL, "SELECT Z_NAME FROM Z_PRIMARYKEY ORDER BY Z_ENT").map { $0["Z_NAME"] as String }
    #expect(entities == ["Attachment", "FileAttachment", "ImageAttachment", "Lock", "Note", "Notebook", "Tag"])
    let metadata = try NSPersistentStoreCoordinator.metadataForPersistentStore(type: .sqlite, at: stack.storeURL)
    #expect(metadata[NSStoreUUIDKey] as? String == stack.coordinator.persistentStores[0].identifier)
    #expect((metadata[NSStoreModelVersionHashesKey] as? [String: Data])?.count == 7)
  }

  @Test("An in-memory store behaves like the file store")
  func inMemory() throws {
    let stack = try StoreStack(type: .inMemory)
    try stack.context.performAndWait {
      let note = Note(context: stack.context)
      note.title = "memory"
      try stack.context.save()
      #expect(!note.objectID.isTemporaryID)
      stack.context.reset()
      let notes = try stack.context.fetch(NSFetchRequest<Note>(entityName: "Note"))
      #expect(notes.map(\.title) == ["memory"])
    }
  }
}
