import EngineTestSupport
import Foundation
import TestSupport
import Testing

@testable import ObjectGraph

/// Batch insert, update and delete requests: rows changed in SQL without objects, delete rules applied
/// in SQL, and their IDs merged into live contexts.
@Suite("Batch requests", .temporaryFolders)
struct BatchRequestTests {
  /// Work holds notes 0–5 (tagged "swift" when even), Home holds 6–8, note 9 has no notebook; note 0 has a
  /// lock (Note.lock is Deny).
  private func populated(_ type: NSPersistentStore.StoreType) throws -> StoreStack {
    let stack = try StoreStack(type: type)
    try stack.context.performAndWait {
      let work = Notebook(context: stack.context)
      work.name = "Work"
      let home = Notebook(context: stack.context)
      home.name = "Home"
      let swift = Tag(context: stack.context)
      swift.name = "swift"
      for index in 0..<10 {
        let note = Note(context: stack.context)
        note.title = "note \(index)"
        note.rating = Int64(index)
        note.notebook = index < 6 ? work : (index < 9 ? home : nil)
        if index.isMultiple(of: 2) { note.tags.insert(swift) }
        if index == 0 {
          let lock = NSManagedObject(entity: stack.entity("Lock"), insertInto: stack.context)
          lock.setValue("legal hold", forKey: "reason")
          lock.setValue(note, forKey: "note")
        }
      }
      try stack.context.save()
    }
    return stack
  }

  private func titles(_ stack: StoreStack, _ format: String = "TRUEPREDICATE") throws -> [String] {
    let context = stack.freshContext()
    return try context.performAndWait {
      let request = NSFetchRequest<Note>(entityName: "Note")
      request.predicate = NSPredicate(format: format)
      request.sortDescriptors = [NSSortDescriptor(key: "rating", ascending: true)]
      return try context.fetch(request).compactMap(\.title)
    }
  }

  @Test("Batch insert: rows from dictionaries with defaults, permanent IDs in order, count and status results", arguments: bothStoreTypes)
  func insert(type: NSPersistentStore.StoreType) throws {
    let stack = try populated(type)
    let context = stack.freshContext()
    try context.performAndWait {
      let rows: [[String: Any]] = (0..<1000).map { ["title": "batch \($0)", "body": $0.isMultiple(of: 2) ? "even" : NSNull()] }
      let request = NSBatchInsertRequest(entityName: "Note", objects: rows)
      request.resultType = .objectIDs
      let result = try #require(try context.execute(request) as? NSBatchInsertResult)
      let ids = try #require(result.result as? [NSManagedObjectID])
      #expect(ids.count == 1000 && ids.allSatisfy { !$0.isTemporaryID })
      #expect(context.registeredObjects.isEmpty)
      let third = try context.existingObject(with: ids[3]) as? Note
      #expect(third?.title == "batch 3" && third?.rating == 0 && third?.body == nil)
      #expect(try (context.existingObject(with: ids[4]) as? Note)?.body == "even")

      let counted = NSBatchInsertRequest(entityName: "Note", objects: [["title": "one"], ["title": "two"]])
      counted.resultType = .count
      #expect(try (context.execute(counted) as? NSBatchInsertResult)?.result as? Int == 2)
      var made = 0
      let handled = NSBatchInsertRequest(entityName: "Note") { row in
        guard made < 5 else { return true }
        row["title"] = "handled \(made)"
        row["rating"] = made
        made += 1
        return false
      }
      #expect(try (context.execute(handled) as? NSBatchInsertResult)?.result as? Bool == true)
    }
    #expect(try stack.storedCount("Note") == 10 + 1000 + 2 + 5)
    #expect(try titles(stack, "title BEGINSWITH 'handled'") == (0..<5).map { "handled \($0)" })
  }

  @Test("Batch insert refuses bad rows, naming the row and the key, and inserts nothing", arguments: bothStoreTypes)
  func insertRefusals(type: NSPersistentStore.StoreType) throws {
    let stack = try populated(type)
    let context = stack.freshContext()
    try context.performAndWait { () throws in
      func refused(_ rows: [[String: Any]], _ code: ObjectGraphError.Code, _ mentioned: String, entity: String = "Note") {
        let error = expectCode(code) { _ = try context.execute(NSBatchInsertRequest(entityName: entity, objects: rows)) }
        #expect(error?.message.contains(mentioned) == true, "\(error?.message ?? "")")
      }
      refused([["title": "fine"], ["title": "x", "colour": "red"]], .unknownKey, "Row 1 of the batch insert names 'colour'")
      refused([["title": "fine"], ["title": 42]], .invalidValue, "gives Note.title a Int")
      refused([["title": "fine", "notebook": NSNull()]], .invalidValue, "a relationship")
      refused(
        [["title": "fine"], ["body": "no title"]], .validationMissingMandatoryProperty, "Row 1 of the batch insert leaves Note.title")
      refused([["size": 1]], .invalidValue, "abstract", entity: "Attachment")
      _ = expectCode(.unknownKey) { _ = try context.execute(NSBatchInsertRequest(entityName: "Nothing", objects: [])) }
      // A handler's dictionary is an NSMutableDictionary, which takes any key: a key that is not a string is refused.
      var handed = 0
      let numberKey = NSBatchInsertRequest(entityName: "Note") { row in
        defer { handed += 1 }
        guard handed < 2 else { return true }
        row["title"] = "fine"
        if handed == 1 { row[7] = "seven" }
        return false
      }
      let error = expectCode(.invalidValue) { _ = try context.execute(numberKey) }
      #expect(error?.message.contains("Row 1 of the batch insert into Note has the key 7") == true, "\(error?.message ?? "")")
    }
    #expect(try stack.storedCount("Note") == 10)
  }

  @Test("Batch insert keeps uniqueness constraints: a repeated value refuses the whole request")
  func insertConstraints() throws {
    let tag = NSEntityDescription(name: "Label", properties: [.attribute(NSAttributeDescription(name: "name", type: .string))])
    tag.uniquenessConstraints = [["name"]]
    let stack = try StoreStack(model: try NSManagedObjectModel(entities: [tag]))
    try stack.context.performAndWait {
      _ = try stack.context.execute(NSBatchInsertRequest(entityName: "Label", objects: [["name": "a"], ["name": "b"]]))
      _ = expectCode(.managedObjectConstraintMerge) {
        _ = try stack.context.execute(NSBatchInsertRequest(entityName: "Label", objects: [["name": "c"], ["name": "a"]]))
      }
    }
    #expect(try stack.storedCount("Label") == 2)
  }

  @Test(
    "Batch update: rows a predicate matches get new values and a new version; merged IDs refresh live objects", arguments: bothStoreTypes)
  func update(type: NSPersistentStore.StoreType) throws {
    let stack = try populated(type)
    let context = stack.context
    let held = try context.performAndWait {
      let request = NSFetchRequest<Note>(entityName: "Note")
      request.predicate = NSPredicate(format: "rating == 2")
      return try #require(try context.fetch(request).first)
    }
    let worker = stack.freshContext()
    let ids = try worker.performAndWait {
      let request = NSBatchUpdateRequest(entityName: "Note")
      request.predicate = NSPredicate(format: "notebook.name == %@", "Work")
      request.propertiesToUpdate = ["body": "archived", "rating": 100]
      request.resultType = .updatedObjectIDsResultType
      return try #require(try worker.execute(request) as? NSBatchUpdateResult).result as? [NSManagedObjectID] ?? []
    }
    #expect(ids.count == 6)
    #expect(try titles(stack, "body == 'archived' AND rating == 100").count == 6)
    try context.performAndWait { () throws in
      // The held object still shows what it read, and its version is stale: its save is refused.
      #expect(held.body == nil && held.rating == 2)
      held.title = "edited"
      _ = expectCode(.managedObjectMerge) { try context.save() }
      context.rollback()
    }
    NSManagedObjectContext.mergeChanges(
      fromRemoteContextSave: [NSManagedObjectContext.NotificationKey.updatedObjectIDs.rawValue: ids], into: [context])
    try context.performAndWait {
      #expect(held.body == "archived" && held.rating == 100)
      held.title = "edited"
      try context.save()
    }
    try worker.performAndWait { () throws in
      let count = NSBatchUpdateRequest(entityName: "Note")
      count.propertiesToUpdate = ["body": NSNull()]
      count.resultType = .updatedObjectsCountResultType
      #expect(try (worker.execute(count) as? NSBatchUpdateResult)?.result as? Int == 10)
      let required = NSBatchUpdateRequest(entityName: "Note")
      required.propertiesToUpdate = ["title": NSNull()]
      _ = expectCode(.validationMissingMandatoryProperty) { _ = try worker.execute(required) }
      let wrong = NSBatchUpdateRequest(entityName: "Note")
      wrong.propertiesToUpdate = ["rating": "high"]
      _ = expectCode(.invalidValue) { _ = try worker.execute(wrong) }
      let relationship = NSBatchUpdateRequest(entityName: "Note")
      relationship.propertiesToUpdate = ["tags": NSNull()]
      _ = expectCode(.invalidValue) { _ = try worker.execute(relationship) }
      _ = expectCode(.invalidValue) { _ = try worker.execute(NSBatchUpdateRequest(entityName: "Note")) }
    }
    #expect(try titles(stack, "title == nil").isEmpty)
  }

  /// Reading (no relationships) with a subentity Alarm: 10 readings (value 0–9), 3 alarms (value 0–2).
  private func readings(tracking: Bool) throws -> StoreStack {
    let reading = NSEntityDescription(
      name: "Reading",
      properties: [
        .attribute(NSAttributeDescription(name: "value", type: .integer64)),
        .attribute(NSAttributeDescription(name: "note", type: .string)),
      ])
    let alarm = NSEntityDescription(name: "Alarm", properties: [])
    reading.subentities = [alarm]
    let stack = try StoreStack(
      model: try NSManagedObjectModel(entities: [reading, alarm]),
      options: [
        NSMigratePersistentStoresAutomaticallyOption: true, NSInferMappingModelAutomaticallyOption: true,
        NSPersistentHistoryTrackingKey: tracking,
      ])
    try stack.context.performAndWait {
      for (entity, count) in [(reading, 10), (alarm, 3)] {
        for value in 0..<count {
          NSManagedObject(entity: entity, insertInto: stack.context).setValue(value, forKey: "value")
        }
      }
      try stack.context.save()
    }
    return stack
  }

  @Test("Batch changes by predicate of rows without relationships: one statement, the right rows, counts, IDs and history")
  func oneStatement() throws {
    for tracking in [false, true] {
      let stack = try readings(tracking: tracking)
      let worker = stack.freshContext()
      let before = try rawRows(stack.storeURL, "SELECT Z_PK, Z_OPT FROM ZREADING ORDER BY Z_PK").map {
        ($0["Z_PK"] as Int64, $0["Z_OPT"] as Int64)
      }
      let token = worker.performAndWait { stack.coordinator.currentPersistentHistoryToken(fromStores: nil) }
      try worker.performAndWait { () throws in
        // Readings only (not alarms) with value >= 5: a status-only update, then the count of what it changed.
        let update = NSBatchUpdateRequest(entityName: "Reading")
        update.predicate = NSPredicate(format: "value >= 5")
        update.includesSubentities = false
        update.propertiesToUpdate = ["note": "high"]
        #expect(try (worker.execute(update) as? NSBatchUpdateResult)?.result as? Bool == true)
        let counting = NSBatchUpdateRequest(entityName: "Reading")
        counting.predicate = NSPredicate(format: "value < 2")
        counting.propertiesToUpdate = ["note": "low"]
        counting.resultType = .updatedObjectsCountResultType
        #expect(try (worker.execute(counting) as? NSBatchUpdateResult)?.result as? Int == 4)  // two readings, two alarms

        let high = NSFetchRequest<NSManagedObject>(entityName: "Reading")
        high.predicate = NSPredicate(format: "note == 'high'")
        let delete = NSBatchDeleteRequest(fetchRequest: high)
        delete.resultType = .resultTypeObjectIDs
        let deleted = try #require(try (worker.execute(delete) as? NSBatchDeleteResult)?.result as? [NSManagedObjectID])
        #expect(deleted.map(\.primaryKey) == [6, 7, 8, 9, 10])
      }
      let after = try rawRows(stack.storeURL, "SELECT Z_PK, Z_OPT, ZNOTE FROM ZREADING ORDER BY Z_PK")
      #expect(after.count == 8)
      for row in after {
        let version = before.first { $0.0 == row["Z_PK"] as Int64 }?.1 ?? 0
        let value =
          try stack.stored("Reading") { ($0.objectID.primaryKey, $0.value(forKey: "value") as? Int64) }
          .first { $0.0 == row["Z_PK"] as Int64 }?.1 ?? -1
        // Rows the "low" update changed went up one version; the others kept theirs.
        #expect((row["Z_OPT"] as Int64) == version + (value < 2 ? 1 : 0), "tracking \(tracking)")
      }
      try worker.performAndWait { () throws in
        // Deleting every row of the table: no WHERE at all, and the count says how many went.
        let all = NSBatchDeleteRequest(fetchRequest: NSFetchRequest<NSManagedObject>(entityName: "Reading"))
        all.resultType = .resultTypeCount
        #expect(try (worker.execute(all) as? NSBatchDeleteResult)?.result as? Int == 8)
      }
      #expect(try stack.storedCount("Reading") == 0)
      guard tracking else { continue }
      let transactions = try worker.performAndWait { () throws -> [NSPersistentHistoryTransaction] in
        let result = try worker.execute(NSPersistentHistoryChangeRequest.fetchHistory(after: token)) as? NSPersistentHistoryResult
        return result?.result as? [NSPersistentHistoryTransaction] ?? []
      }
      #expect(transactions.map { $0.changes?.count ?? 0 } == [5, 4, 5, 8])
    }
  }

  @Test("Batch delete follows the delete rules in SQL: cascade, nullify, deny", arguments: bothStoreTypes)
  func deleteRules(type: NSPersistentStore.StoreType) throws {
    let stack = try populated(type)
    let context = stack.freshContext()
    try context.performAndWait {
      // Deny: note 0 still has its lock.
      let all = NSBatchDeleteRequest(fetchRequest: NSFetchRequest<Note>(entityName: "Note"))
      let denied = expectCode(.validationRelationshipDeniedDelete) { _ = try context.execute(all) }
      #expect(denied?.message.contains("Note.lock") == true)

      // Cascade: Home's notes go with it; nullify: the swift tag loses them, and stays.
      let home = NSFetchRequest<Notebook>(entityName: "Notebook")
      home.predicate = NSPredicate(format: "name == 'Home'")
      let request = NSBatchDeleteRequest(fetchRequest: home)
      request.resultType = .resultTypeObjectIDs
      let ids = try #require(try context.execute(request) as? NSBatchDeleteResult).result as? [NSManagedObjectID] ?? []
      #expect(ids.count == 4 && Set(ids.map(\.entityName)) == ["Notebook", "Note"])

      // Nullify from the other side: deleting notes of Work empties Work's set, and Work stays.
      let odd = NSFetchRequest<Note>(entityName: "Note")
      odd.predicate = NSPredicate(format: "notebook.name == 'Work' AND rating > 0")
      let counting = NSBatchDeleteRequest(fetchRequest: odd)
      counting.resultType = .resultTypeCount
      #expect(try (context.execute(counting) as? NSBatchDeleteResult)?.result as? Int == 5)
    }
    #expect(try titles(stack) == ["note 0", "note 9"])
    #expect(try stack.storedCount("Notebook") == 1 && stack.storedCount("Tag") == 1)
    let reader = stack.freshContext()
    try reader.performAndWait {
      let tag = try #require(try reader.fetch(NSFetchRequest<Tag>(entityName: "Tag")).first)
      #expect(tag.notes.map(\.title) == ["note 0"])
      let work = try #require(try reader.fetch(NSFetchRequest<Notebook>(entityName: "Notebook")).first)
      #expect(work.notes.compactMap(\.title) == ["note 0"])
    }
    // Deleting the lock, then the note it held, works; the lock's side (nullify) goes quietly.
    try context.performAndWait {
      _ = try context.execute(NSBatchDeleteRequest(fetchRequest: NSFetchRequest<NSManagedObject>(entityName: "Lock")))
      _ = try context.execute(NSBatchDeleteRequest(fetchRequest: NSFetchRequest<Note>(entityName: "Note")))
    }
    #expect(try stack.storedCount("Note") == 0 && stack.storedCount("Lock") == 0)
  }

  @Test("Batch delete by IDs, merged into a context holding the objects", arguments: bothStoreTypes)
  func deleteByIDs(type: NSPersistentStore.StoreType) throws {
    let stack = try populated(type)
    let context = stack.context
    let (victims, work) = try context.performAndWait {
      let request = NSFetchRequest<Note>(entityName: "Note")
      request.predicate = NSPredicate(format: "rating IN {3, 4}")
      let notes = try context.fetch(request)
      let work = try #require(notes.first?.notebook)
      #expect(work.notes.count == 6)
      return (notes.map(\.objectID), work)
    }
    let worker = stack.freshContext()
    let deleted = try worker.performAndWait {
      let request = NSBatchDeleteRequest(objectIDs: victims)
      // Its fetch request names the same rows.
      let named = try worker.fetch(request.fetchRequest).compactMap { ($0 as? NSManagedObject)?.objectID }
      #expect(Set(named) == Set(victims))
      request.resultType = .resultTypeObjectIDs
      return try #require(try worker.execute(request) as? NSBatchDeleteResult).result as? [NSManagedObjectID] ?? []
    }
    #expect(Set(deleted) == Set(victims))
    NSManagedObjectContext.mergeChanges(
      fromRemoteContextSave: [NSManagedObjectContext.NotificationKey.deletedObjectIDs.rawValue: deleted], into: [context])
    context.performAndWait {
      #expect(work.notes.count == 4)
      #expect(work.notes.allSatisfy { ![3, 4].contains($0.rating) })
    }
    try worker.performAndWait {
      let temporary = Note(context: worker)
      _ = expectCode(.invalidValue) { _ = try worker.execute(NSBatchDeleteRequest(objectIDs: [temporary.objectID])) }
      let tag = try #require(try worker.fetch(NSFetchRequest<Tag>(entityName: "Tag")).first)
      _ = expectCode(.invalidValue) { _ = try worker.execute(NSBatchDeleteRequest(objectIDs: [victims[0], tag.objectID])) }
      worker.rollback()
    }
  }

  @Test("mergeChanges(fromRemoteContextSave:into:) takes objects where no IDs are given, as a did-save's user info holds")
  func mergeFromObjects() throws {
    let stack = try populated(.sqlite)
    let context = stack.context
    let held = try context.performAndWait {
      let request = NSFetchRequest<Note>(entityName: "Note")
      request.predicate = NSPredicate(format: "rating == 2")
      return try #require(try context.fetch(request).first)
    }
    let worker = stack.freshContext()
    try worker.performAndWait {
      let update = NSBatchUpdateRequest(entityName: "Note")
      update.propertiesToUpdate = ["body": "changed elsewhere"]
      _ = try worker.execute(update)
    }
    #expect(context.performAndWait { held.body } == nil)
    NSManagedObjectContext.mergeChanges(
      fromRemoteContextSave: [NSManagedObjectContext.NotificationKey.updatedObjects.rawValue: Set<NSManagedObject>([held])], into: [context]
    )
    #expect(context.performAndWait { held.body } == "changed elsewhere")
  }

  @Test("A read-only store refuses batch changes, leaving the file as it was")
  func readOnlyStore() throws {
    let stack = try populated(.sqlite)
    let before = try Data(contentsOf: stack.storeURL)
    let context = try StoreStack(
      model: stack.model, at: stack.storeURL,
      options: [NSReadOnlyPersistentStoreOption: true]
    ).context
    try context.performAndWait { () throws in
      let update = NSBatchUpdateRequest(entityName: "Note")
      update.propertiesToUpdate = ["body": "x"]
      _ = expectCode(.persistentStoreSave) { _ = try context.execute(update) }
      _ = expectCode(.persistentStoreSave) {
        _ = try context.execute(NSBatchDeleteRequest(fetchRequest: NSFetchRequest<Note>(entityName: "Note")))
      }
    }
    #expect(try Data(contentsOf: stack.storeURL) == before)
  }
}
