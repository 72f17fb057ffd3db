import EngineTestSupport
import Foundation
import TestSupport
import Testing

@testable import ObjectGraph

/// Three places where the engine differed from Core Data, found by running other libraries' Core Data
/// test suites against it. Each test fails on the engine as it was before the fix.
@Suite("Core Data parity: nested IDs and relationship counts", .temporaryFolders)
struct CoreDataParityTests {
  private func child(of parent: NSManagedObjectContext) -> NSManagedObjectContext {
    let context = NSManagedObjectContext(concurrencyType: .privateQueueConcurrencyType)
    context.parent = parent
    return context
  }

  /// Inserts notes titled `titles` in `child`, saves the child, then saves `parent` to the store: the
  /// child keeps its objects' temporary IDs, the parent now knows them by permanent ones.
  private func insertSavedThroughParent(_ titles: [String], child: NSManagedObjectContext, parent: NSManagedObjectContext) throws
    -> [Note]
  {
    let notes = try child.performAndWait {
      let notes = titles.map { title in
        let note = Note(context: child)
        note.title = title
        return note
      }
      try child.save()
      return notes
    }
    try parent.performAndWait { try parent.save() }
    return notes
  }

  // MARK: - 1. A child's fetch by the IDs of objects its parent has saved

  @Test(
    "A child finds the objects it inserted by their IDs (SELF IN, SELF ==, count) after its parent saved them", arguments: bothStoreTypes)
  func childFetchesByTemporaryIDsAfterParentSave(type: NSPersistentStore.StoreType) throws {
    let stack = try StoreStack(type: type)
    let child = child(of: stack.context)
    let notes = try insertSavedThroughParent(["a", "b", "c", "d", "e"], child: child, parent: stack.context)
    try child.performAndWait {
      let kept = Array(notes.prefix(3))
      let keptIDs = kept.map(\.objectID)
      #expect(keptIDs.allSatisfy { $0.isTemporaryID }, "the child keeps its temporary IDs (Core Data's rule)")

      let byIDs = NSFetchRequest<Note>(entityName: "Note")
      byIDs.predicate = NSPredicate(format: "SELF IN %@", keptIDs)
      let found = try child.fetch(byIDs)
      #expect(Set(found.map(ObjectIdentifier.init)) == Set(kept.map(ObjectIdentifier.init)), "the same instances, uniqued")
      #expect(try child.count(for: byIDs) == 3)

      let one = NSFetchRequest<Note>(entityName: "Note")
      one.predicate = NSPredicate(format: "SELF == %@", keptIDs[1])
      #expect(try child.fetch(one).map(\.title) == ["b"])
      #expect(try child.count(for: one) == 1)

      // evaluate(with:) and the fetch agree.
      #expect(kept.allSatisfy { byIDs.predicate?.evaluate(with: $0) == true })
    }
  }

  @Test("'Delete everything except these' in a child deletes only the others once the parent has saved", arguments: bothStoreTypes)
  func deleteAllExceptAfterParentSave(type: NSPersistentStore.StoreType) throws {
    let stack = try StoreStack(type: type)
    let child = child(of: stack.context)
    let notes = try insertSavedThroughParent(["keep 1", "keep 2", "keep 3", "drop 1", "drop 2"], child: child, parent: stack.context)
    try child.performAndWait {
      let others = NSFetchRequest<Note>(entityName: "Note")
      others.predicate = NSPredicate(format: "NOT (SELF IN %@)", notes.prefix(3).map(\.objectID))
      let doomed = try child.fetch(others)
      #expect(doomed.compactMap(\.title).sorted() == ["drop 1", "drop 2"])
      for note in doomed { child.delete(note) }
      try child.save()
    }
    try stack.context.performAndWait { try stack.context.save() }
    #expect(try stack.stored("Note", sortedBy: "title") { $0.value(forKey: "title") as? String } == ["keep 1", "keep 2", "keep 3"])
    if let rows = try stack.fileRows("SELECT ZTITLE FROM ZNOTE ORDER BY ZTITLE") {
      #expect(rows.map { $0["ZTITLE"] as String } == ["keep 1", "keep 2", "keep 3"])
    }
  }

  @Test("A relationship compared with a temporary ID in a child finds the rows its parent saved", arguments: bothStoreTypes)
  func relationshipComparedWithTemporaryID(type: NSPersistentStore.StoreType) throws {
    let stack = try StoreStack(type: type)
    let child = child(of: stack.context)
    let notebookID = try child.performAndWait {
      let notebook = Notebook(context: child)
      notebook.name = "work"
      for title in ["x", "y"] {
        let note = Note(context: child)
        note.title = title
        note.notebook = notebook
      }
      let stray = Note(context: child)
      stray.title = "elsewhere"
      try child.save()
      return notebook.objectID
    }
    try stack.context.performAndWait { try stack.context.save() }
    try child.performAndWait { () throws in
      let request = NSFetchRequest<Note>(entityName: "Note")
      request.predicate = NSPredicate(format: "notebook == %@", notebookID)
      #expect(try child.fetch(request).compactMap(\.title).sorted() == ["x", "y"])
    }
  }

  @Test(
    "Three levels: a worker under the main context under the writer finds its objects by ID after the writer saved",
    arguments: bothStoreTypes)
  func grandchildFetchesByTemporaryIDs(type: NSPersistentStore.StoreType) throws {
    let stack = try StoreStack(type: type)
    let main = child(of: stack.context)
    let worker = child(of: main)
    let notes = try worker.performAndWait {
      let notes = ["one", "two"].map { title in
        let note = Note(context: worker)
        note.title = title
        return note
      }
      try worker.save()
      return notes
    }
    try main.performAndWait { try main.save() }
    try stack.context.performAndWait { try stack.context.save() }
    try worker.performAndWait {
      let request = NSFetchRequest<Note>(entityName: "Note")
      request.predicate = NSPredicate(format: "SELF IN %@", [notes[0].objectID])
      let found = try worker.fetch(request)
      #expect(found.count == 1)
      #expect(found.first === notes[0])
    }
  }

  // MARK: - 2. A non-optional to-many with minimum count 0

  private func countedModel(optional: Bool, minCount: Int) throws -> NSManagedObjectModel {
    let relationship = NSRelationshipDescription(name: "tags", destination: "Tag", inverse: "owner", toMany: true, isOptional: optional)
    relationship.minCount = minCount
    return try NSManagedObjectModel(entities: [
      NSEntityDescription(
        name: "Owner", properties: [.attribute(NSAttributeDescription(name: "name", type: .string)), .relationship(relationship)]),
      NSEntityDescription(
        name: "Tag",
        properties: [
          .attribute(NSAttributeDescription(name: "name", type: .string)),
          .relationship(NSRelationshipDescription(name: "owner", destination: "Owner", inverse: "tags")),
        ]),
    ])
  }

  @Test("A non-optional to-many whose minimum count is 0 saves empty, as in Core Data", arguments: bothStoreTypes)
  func nonOptionalToManyMinimumZeroMayBeEmpty(type: NSPersistentStore.StoreType) throws {
    let stack = try StoreStack(model: try countedModel(optional: false, minCount: 0), type: type)
    try stack.context.performAndWait {
      let owner = NSManagedObject(entity: stack.entity("Owner"), insertInto: stack.context)
      owner.setValue("nobody's", forKey: "name")
      try stack.context.save()
    }
    try stack.expectStored("Owner", count: 1, table: "ZOWNER")
  }

  @Test(
    "The minimum count still rules: minimum 2 refuses one member (1580), optional or not", arguments: [false, true],
    bothStoreTypes)
  func minimumCountIsEnforced(optional: Bool, type: NSPersistentStore.StoreType) throws {
    let stack = try StoreStack(model: try countedModel(optional: optional, minCount: 2), type: type)
    try stack.context.performAndWait {
      let owner = NSManagedObject(entity: stack.entity("Owner"), insertInto: stack.context)
      let tag = NSManagedObject(entity: stack.entity("Tag"), insertInto: stack.context)
      tag.setValue(owner, forKey: "owner")
      let error = expectCode(.validationRelationshipLacksMinimumCount) { try stack.context.save() }
      #expect(error?.message.contains("Owner.tags holds 1 object(s) but needs at least 2") == true, "got \(String(describing: error))")
      let second = NSManagedObject(entity: stack.entity("Tag"), insertInto: stack.context)
      second.setValue(owner, forKey: "owner")
      try stack.context.save()
    }
    try stack.expectStored("Tag", count: 2, table: "ZTAG")
  }

  @Test("A required to-one is still required (1570)", arguments: bothStoreTypes)
  func requiredToOneStillRequired(type: NSPersistentStore.StoreType) throws {
    let model = try NSManagedObjectModel(entities: [
      NSEntityDescription(
        name: "Tag",
        properties: [.relationship(NSRelationshipDescription(name: "owner", destination: "Owner", inverse: "tags", isOptional: false))]),
      NSEntityDescription(
        name: "Owner",
        properties: [.relationship(NSRelationshipDescription(name: "tags", destination: "Tag", inverse: "owner", toMany: true))]),
    ])
    let stack = try StoreStack(model: model, type: type)
    let error = stack.context.performAndWait {
      _ = NSManagedObject(entity: stack.entity("Tag"), insertInto: stack.context)
      return expectCode(.validationMissingMandatoryProperty) { try stack.context.save() }
    }
    #expect(error?.message.contains("Tag.owner is a required relationship") == true)
  }

  // MARK: - 3. obtainPermanentIDs in a child for objects its parent has saved

  /// The highest primary key reserved for notes, as the file's Z_PRIMARYKEY says; nil for an in-memory
  /// store, whose table only the engine can read.
  private func reservedKeys(_ stack: StoreStack) throws -> Int? {
    guard let rows = try stack.fileRows("SELECT Z_ENT FROM Z_PRIMARYKEY WHERE Z_NAME = 'Note'") else { return nil }
    let number = rows[0]["Z_ENT"] as Int
    return try rawRows(stack.storeURL, "SELECT Z_MAX FROM Z_PRIMARYKEY WHERE Z_ENT = \(number)")[0]["Z_MAX"] as Int
  }

  /// The stored notes' primary keys and titles, in key order, as a fresh context reads them.
  private func storedNotesByKey(_ stack: StoreStack) throws -> [(key: Int64?, title: String?)] {
    try stack.storedInKeyOrder("Note") { (key: $0.objectID.primaryKey, title: $0.value(forKey: "title") as? String) }
  }

  @Test(
    "obtainPermanentIDs in a child gives the ID its parent already saved the object under, reserving no new key", arguments: bothStoreTypes)
  func obtainPermanentIDsForObjectsTheParentSaved(type: NSPersistentStore.StoreType) throws {
    let stack = try StoreStack(type: type)
    let child = child(of: stack.context)
    let notes = try insertSavedThroughParent(["first", "second"], child: child, parent: stack.context)
    let keysBefore = try reservedKeys(stack)
    let parentIDs = try stack.context.performAndWait {
      try stack.context.fetch(NSFetchRequest<Note>(entityName: "Note")).reduce(into: [String: NSManagedObjectID]()) {
        $0[$1.title ?? ""] = $1.objectID
      }
    }
    let childIDs = try child.performAndWait {
      try child.obtainPermanentIDs(for: notes)
      return notes.map(\.objectID)
    }
    #expect(childIDs == [parentIDs["first"], parentIDs["second"]].compactMap { $0 })
    #expect(childIDs.allSatisfy { !$0.isTemporaryID })
    #expect(try reservedKeys(stack) == keysBefore, "no primary key was reserved")

    // The ID names the row: another coordinator on the same file (in memory: another context) finds it, and so
    // does the child.
    let (other, context) = try stack.reader()
    let reopenedID = try #require(other.managedObjectID(forURIRepresentation: childIDs[0].uriRepresentation()))
    let title = try context.performAndWait { try (context.existingObject(with: reopenedID) as? Note)?.title }
    #expect(title == "first")
    try child.performAndWait {
      let request = NSFetchRequest<Note>(entityName: "Note")
      request.predicate = NSPredicate(format: "SELF == %@", childIDs[1])
      #expect(try child.fetch(request).first === notes[1])
      // A later change from the child still reaches that row.
      notes[1].title = "second, edited"
      try child.save()
    }
    try stack.context.performAndWait { try stack.context.save() }
    #expect(try storedNotesByKey(stack).map(\.title) == ["first", "second, edited"])
    #expect(try storedNotesByKey(stack).map(\.key) == childIDs.map(\.primaryKey))
    if let rows = try stack.fileRows("SELECT ZTITLE FROM ZNOTE ORDER BY Z_PK") {
      #expect(rows.map { $0["ZTITLE"] as String } == ["first", "second, edited"])
    }
  }

  @Test("obtainPermanentIDs in a child for one object the parent saved and one it did not: one old ID, one new", arguments: bothStoreTypes)
  func obtainPermanentIDsMixed(type: NSPersistentStore.StoreType) throws {
    let stack = try StoreStack(type: type)
    let child = child(of: stack.context)
    let saved = try insertSavedThroughParent(["saved"], child: child, parent: stack.context)[0]
    let keysBefore = try reservedKeys(stack)
    let fresh = try child.performAndWait {
      let fresh = Note(context: child)
      fresh.title = "fresh"
      try child.obtainPermanentIDs(for: [saved, fresh])
      #expect(!saved.objectID.isTemporaryID && !fresh.objectID.isTemporaryID)
      try child.save()
      return fresh.objectID
    }
    #expect(try reservedKeys(stack) == keysBefore.map { $0 + 1 }, "one key reserved, for the unsaved object only")
    try stack.context.performAndWait { try stack.context.save() }
    let notes = try storedNotesByKey(stack)
    #expect(notes.map(\.title) == ["saved", "fresh"])
    #expect(notes.last?.key == fresh.primaryKey)
    if let rows = try stack.fileRows("SELECT Z_PK, ZTITLE FROM ZNOTE ORDER BY Z_PK") {
      #expect(rows.map { $0["ZTITLE"] as String } == ["saved", "fresh"])
      #expect(rows.last.map { $0["Z_PK"] as Int64 } == fresh.primaryKey)
    }
  }
}

extension CoreDataParityTests {
  @Test(
    "A child's delete of an object it saved up earlier reaches the parent, before and after the parent saved it", arguments: bothStoreTypes)
  func childDeletesObjectItSavedUp(type: NSPersistentStore.StoreType) throws {
    let stack = try StoreStack(type: type)
    let child = child(of: stack.context)
    // Before the parent saves: the parent holds the child's insert under the temporary ID.
    try child.performAndWait {
      let note = Note(context: child)
      note.title = "short-lived"
      try child.save()
      child.delete(note)
      try child.save()
    }
    try stack.context.performAndWait {
      #expect(stack.context.insertedObjects.isEmpty, "the parent's insert is undone by the child's delete")
      try stack.context.save()
    }
    try stack.expectStored("Note", count: 0, table: "ZNOTE")

    // After the parent saved: the parent knows the object by a permanent ID, the child by its temporary one.
    let note = try insertSavedThroughParent(["saved, then deleted"], child: child, parent: stack.context)[0]
    try child.performAndWait {
      child.delete(note)
      try child.save()
    }
    try stack.context.performAndWait {
      #expect(stack.context.deletedObjects.count == 1)
      try stack.context.save()
    }
    try stack.expectStored("Note", count: 0, table: "ZNOTE")
  }
}

extension CoreDataParityTests {
  @Test("Did-save and objects-did-change user info is read with the public NotificationKey constants", arguments: bothStoreTypes)
  func notificationKeysArePublicConstants(type: NSPersistentStore.StoreType) throws {
    let stack = try StoreStack(type: type)
    typealias Key = NSManagedObjectContext.NotificationKey
    let saved = NotificationLog(NSManagedObjectContext.didSaveObjectsNotification, object: stack.context) { note -> [String: Int] in
      let info = note.userInfo ?? [:]
      return [
        "ids": (info[Key.insertedObjectIDs.rawValue] as? Set<NSManagedObjectID>)?.count ?? -1,
        "objects": (info[Key.insertedObjects.rawValue] as? Set<NSManagedObject>)?.count ?? -1,
        "updated ids": (info[Key.updatedObjectIDs.rawValue] as? Set<NSManagedObjectID>)?.count ?? -1,
        "deleted ids": (info[Key.deletedObjectIDs.rawValue] as? Set<NSManagedObjectID>)?.count ?? -1,
      ]
    }
    try stack.context.performAndWait {
      for title in ["one", "two"] { Note(context: stack.context).title = title }
      try stack.context.save()
    }
    #expect(saved.entries == [["ids": 2, "objects": 2, "updated ids": 0, "deleted ids": 0]])
    // The raw strings API.md documents for the ID keys.
    #expect(Key.insertedObjectIDs.rawValue == "insertedObjectIDs")
    #expect(Key.updatedObjectIDs.rawValue == "updatedObjectIDs")
    #expect(Key.deletedObjectIDs.rawValue == "deletedObjectIDs")
  }
}
