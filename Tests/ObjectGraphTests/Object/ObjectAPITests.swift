import EngineTestSupport
import Foundation
import TestSupport
import Testing

@testable import ObjectGraph

/// The rest of the object's and context's API: key paths, the context's event options, per-event changes,
/// the older merge-policy spellings, and the batch requests' entity and managed-object handler.
@Suite("Object and context API: key paths, event options, conflicts, handlers", .temporaryFolders)
struct ObjectAPITests {
  /// A notebook "Work" with notes a (rating 3), b (5) and one without a title (5), unsaved.
  private func notebook(in context: NSManagedObjectContext) -> (Notebook, [Note]) {
    let notebook = Notebook(context: context)
    notebook.name = "Work"
    let notes = [("a", 3), ("b", 5), (nil, 5)].map { title, rating in
      let note = Note(context: context)
      note.title = title
      note.rating = Int64(rating)
      note.notebook = notebook
      return note
    }
    return (notebook, notes)
  }

  private func ints(_ value: Any?) -> [Int] {
    ((value as? Set<AnyHashable>) ?? []).compactMap { ($0.base as? NSNumber)?.intValue }.sorted()
  }

  // MARK: - value(forKeyPath:)

  @Test("value(forKeyPath:) follows to-ones, gives sets through to-manys, and nil through a missing object")
  func keyPathsThroughRelationships() throws {
    let stack = try StoreStack(type: .inMemory)
    stack.context.performAndWait {
      let (notebook, notes) = notebook(in: stack.context)
      #expect(notes[0].value(forKeyPath: "notebook.name") as? String == "Work")
      #expect(notes[0].value(forKeyPath: "title") as? String == "a", "one key reads as value(forKey:)")
      let loose = Note(context: stack.context)
      #expect(loose.value(forKeyPath: "notebook.name") == nil, "no notebook: nil, as a message to nil")
      #expect(notebook.value(forKeyPath: "notes.title") as? Set<String> == ["a", "b"], "a set, without the nil title")
      #expect(ints(notebook.value(forKeyPath: "notes.rating")) == [3, 5], "a set: repeats collapse")
      #expect(notebook.value(forKeyPath: "notes.notebook.name") as? Set<String> == ["Work"])
      #expect(notes[1].value(forKeyPath: "notebook.notes.@count") as? Int == 3, "to-one, then to-many, then an operator")
      // Through two to-manys: a set of sets, as Foundation's sets give.
      let tag = Tag(context: stack.context)
      tag.name = "home"
      notes[0].tags = [tag]
      notes[1].tags = [tag]
      let nested = notebook.value(forKeyPath: "notes.tags") as? Set<AnyHashable>
      #expect(nested?.count == 2, "the sets {home} and {}: \(String(describing: nested))")
    }
  }

  @Test("Collection operators: @count, @sum, @avg, @min, @max, @distinctUnionOfObjects, @unionOfObjects")
  func collectionOperators() throws {
    let stack = try StoreStack(type: .inMemory)
    stack.context.performAndWait {
      let (notebook, _) = notebook(in: stack.context)
      #expect(notebook.value(forKeyPath: "notes.@count") as? Int == 3)
      #expect((notebook.value(forKeyPath: "notes.@sum.rating") as? NSNumber)?.doubleValue == 13)
      #expect((notebook.value(forKeyPath: "notes.@avg.rating") as? NSNumber)?.doubleValue == 13.0 / 3)
      #expect((notebook.value(forKeyPath: "notes.@max.rating") as? NSNumber)?.intValue == 5)
      #expect((notebook.value(forKeyPath: "notes.@min.rating") as? NSNumber)?.intValue == 3)
      #expect(notebook.value(forKeyPath: "notes.@min.title") as? String == "a", "nil titles are left out")
      #expect(notebook.value(forKeyPath: "notes.@max.title") as? String == "b")
      let distinct = notebook.value(forKeyPath: "notes.@distinctUnionOfObjects.rating") as? [Any]
      #expect(distinct?.compactMap { ($0 as? NSNumber)?.intValue }.sorted() == [3, 5])
      let all = notebook.value(forKeyPath: "notes.@unionOfObjects.rating") as? [Any]
      #expect(all?.compactMap { ($0 as? NSNumber)?.intValue }.sorted() == [3, 5, 5])
      // An empty to-many.
      let empty = Notebook(context: stack.context)
      #expect(empty.value(forKeyPath: "notes.@count") as? Int == 0)
      #expect((empty.value(forKeyPath: "notes.@sum.rating") as? NSNumber)?.doubleValue == 0)
      #expect(empty.value(forKeyPath: "notes.@avg.rating") == nil)
      #expect(empty.value(forKeyPath: "notes.@max.rating") == nil)
      #expect(empty.value(forKeyPath: "notes.title") as? Set<String> == [])
    }
  }

  @Test("Key paths read saved objects from the store: faults fire on the way")
  func keyPathsOverFaults() throws {
    let stack = try StoreStack()
    try stack.context.performAndWait {
      _ = notebook(in: stack.context)
      for note in stack.context.insertedObjects.compactMap({ $0 as? Note }) where note.title == nil { note.title = "c" }
      try stack.context.save()
    }
    let reader = stack.freshContext()
    try reader.performAndWait {
      let found = try reader.fetch(NSFetchRequest<Notebook>(entityName: "Notebook"))
      let notebook = try #require(found.first)
      #expect(notebook.isFault)
      #expect(notebook.value(forKeyPath: "notes.title") as? Set<String> == ["a", "b", "c"])
      #expect((notebook.value(forKeyPath: "notes.@sum.rating") as? NSNumber)?.intValue == 13)
    }
  }

  @Test("setValue(_:forKeyPath:) sets through a to-one, on every member of a to-many, and nothing through nil")
  func setThroughKeyPaths() throws {
    let stack = try StoreStack(type: .inMemory)
    try stack.context.performAndWait {
      let (notebook, notes) = notebook(in: stack.context)
      for note in notes where note.title == nil { note.title = "c" }
      try stack.context.save()
      notes[0].setValue("Home", forKeyPath: "notebook.name")
      #expect(notebook.name == "Home" && notebook.isUpdated, "the change is recorded as setValue(_:forKey:)'s")
      notebook.setValue(Int64(9), forKeyPath: "notes.rating")
      #expect(notes.map(\.rating) == [9, 9, 9])
      let loose = Note(context: stack.context)
      loose.setValue("ignored", forKeyPath: "notebook.name")
      #expect(loose.notebook == nil)
      loose.setValue("plain", forKeyPath: "title")
      #expect(loose.title == "plain")
    }
  }

  @Test("An unknown key in a key path stops the program, as value(forKey:) does")
  func unknownKeyStops() async throws {
    let stopped = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
      let stack = try StoreStack(type: .inMemory)
      stack.context.performAndWait {
        let note = Note(context: stack.context)
        note.notebook = Notebook(context: stack.context)
        _ = note.value(forKeyPath: "notebook.colour")
      }
    }
    let said = String(decoding: stopped?.standardErrorContent ?? [], as: UTF8.self)
    #expect(said.contains("no property 'colour'"), "it printed: \(said)")
  }

  @Test("An unknown collection operator stops the program, naming the ones there are")
  func unknownOperatorStops() async throws {
    let stopped = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
      let stack = try StoreStack(type: .inMemory)
      stack.context.performAndWait {
        _ = Notebook(context: stack.context).value(forKeyPath: "notes.@median.rating")
      }
    }
    let said = String(decoding: stopped?.standardErrorContent ?? [], as: UTF8.self)
    #expect(said.contains("@median") && said.contains("@distinctUnionOfObjects"), "it printed: \(said)")
  }

  // MARK: - The context's event options

  @Test("propagatesDeletesAtEndOfEvent false: delete rules wait for the save; true (default): they run at the event's end")
  func propagatesDeletesAtEndOfEvent() throws {
    for propagates in [true, false] {
      let stack = try StoreStack(type: .inMemory)
      #expect(stack.context.propagatesDeletesAtEndOfEvent, "the default is true")
      stack.context.propagatesDeletesAtEndOfEvent = propagates
      let (notebook, notes): (Notebook, [Note]) = try stack.context.performAndWait {
        let (notebook, notes): (Notebook, [Note]) = self.notebook(in: stack.context)
        for note in notes where note.title == nil { note.title = "c" }
        try stack.context.save()
        return (notebook, notes)
      }
      stack.context.performAndWait {
        stack.context.delete(notebook)
        stack.context.processPendingChanges()  // the end of the event
      }
      stack.context.performAndWait {
        #expect(notes.allSatisfy { $0.isDeleted } == propagates, "cascade at the end of the event: \(propagates)")
        if !propagates { #expect(notes[0].notebook === notebook, "no nullify before the save") }
      }
      try stack.context.performAndWait { try stack.context.save() }
      #expect(try stack.storedCount("Note") == 0, "the save applies the cascade either way")
      #expect(try stack.storedCount("Notebook") == 0)
    }
  }

  @Test("detectConflicts(for:) makes the save check an unchanged object's row version")
  func detectConflicts() throws {
    let stack = try StoreStack()
    let note = try stack.conflictingEdit(original: "mine", theirs: "theirs")
    try stack.context.performAndWait {
      // Without the mark, an unrelated change saves: the note is not part of the save.
      let tag = Tag(context: stack.context)
      tag.name = "one"
      try stack.context.save()
      let other = Tag(context: stack.context)
      other.name = "two"
      stack.context.detectConflicts(for: note)
      _ = expectCode(.managedObjectMerge) { try stack.context.save() }
      #expect(other.isInserted, "a failed save leaves the changes in place")
      // Refreshed, the note reads the store's row; marked again, the save now passes.
      stack.context.refresh(note, mergeChanges: false)
      stack.context.detectConflicts(for: note)
      try stack.context.save()
      #expect(note.title == "theirs")
    }
    #expect(try stack.storedCount("Tag") == 2)
  }

  @Test("shouldHandleInaccessibleFault answers shouldDeleteInaccessibleFaults, and a gone row's fault is handled by it")
  func inaccessibleFault() throws {
    let stack = try StoreStack()
    let note = try stack.context.performAndWait {
      let note = Note(context: stack.context)
      note.title = "gone soon"
      try stack.context.save()
      stack.context.refresh(note, mergeChanges: false)
      return note
    }
    let id = stack.context.performAndWait { note.objectID }
    let other = stack.freshContext()
    try other.performAndWait {
      other.delete(try other.existingObject(with: id))
      try other.save()
    }
    stack.context.performAndWait {
      #expect(stack.context.shouldHandleInaccessibleFault(note, for: id, triggeredByProperty: nil))
      stack.context.shouldDeleteInaccessibleFaults = false
      #expect(!stack.context.shouldHandleInaccessibleFault(note, for: id, triggeredByProperty: note.entity.propertiesByName["title"]))
      stack.context.shouldDeleteInaccessibleFaults = true
      #expect(note.title == nil && note.isDeleted, "handled: a deleted, empty object")
    }
  }

  // MARK: - The object's change state

  @Test("changedValuesForCurrentEvent() gives the old values of this event's changes; the event's end clears them")
  func changedValuesForCurrentEvent() throws {
    let stack = try StoreStack(type: .inMemory)
    try stack.context.performAndWait {
      let note = Note(context: stack.context)
      note.title = "first"
      note.rating = 1
      #expect(note.changedValuesForCurrentEvent().isEmpty, "an inserted object has no old values")
      try stack.context.save()

      note.title = "second"
      note.title = "third"
      var changes = note.changedValuesForCurrentEvent()
      #expect(changes.count == 1 && changes["title"] as? String == "first", "the value before the event's first change")
      let notebook = Notebook(context: stack.context)
      note.notebook = notebook
      changes = note.changedValuesForCurrentEvent()
      #expect(changes["notebook"] is NSNull, "no notebook before: NSNull")

      stack.context.processPendingChanges()
      #expect(note.changedValuesForCurrentEvent().isEmpty, "a new event starts after objects-did-change")
      note.rating = 2
      changes = note.changedValuesForCurrentEvent()
      #expect(changes.count == 1 && (changes["rating"] as? NSNumber)?.intValue == 1)
      #expect(note.changedValues().count == 3, "changedValues() still covers everything since the save")
      note.rating = 1
      #expect(note.changedValuesForCurrentEvent().isEmpty, "changed back: nothing left")
    }
  }

  @Test("An objects-did-change observer reads the event's old values, on a private queue's perform")
  func changedValuesForCurrentEventInObserver() async throws {
    let stack = try StoreStack(type: .inMemory)
    let note = try stack.context.performAndWait {
      let note = Note(context: stack.context)
      note.title = "before"
      try stack.context.save()
      return note
    }
    let seen = Locked<[String]>([])
    let token = NotificationCenter.default.addObserver(
      forName: NSManagedObjectContext.didChangeObjectsNotification, object: stack.context, queue: nil
    ) { notification in
      let updated = notification.userInfo?[NSUpdatedObjectsKey] as? Set<NSManagedObject> ?? []
      for object in updated {
        seen.withLock { $0.append(object.changedValuesForCurrentEvent()["title"] as? String ?? "none") }
      }
    }
    defer { NotificationCenter.default.removeObserver(token) }
    let noteID = stack.context.performAndWait { note.objectID }
    await stack.context.perform {
      let same = stack.context.object(with: noteID)
      same.setValue("after", forKey: "title")
      #expect(same.value(forKeyPath: "title") as? String == "after")
    }
    stack.context.performAndWait { stack.context.processPendingChanges() }
    #expect(seen.withLock { $0 } == ["before"])
    stack.context.performAndWait { #expect(note.changedValuesForCurrentEvent().isEmpty, "the next event has none") }
  }

  @Test("hasPersistentChangedValues, faultingState, the unmodeled-changes class property, the older initializer")
  func changeStateMembers() throws {
    let stack = try StoreStack(type: .inMemory)
    #expect(NSManagedObject.contextShouldIgnoreUnmodeledPropertyChanges)
    #expect(Note.contextShouldIgnoreUnmodeledPropertyChanges)
    try stack.context.performAndWait {
      let entity = try #require(stack.model.entitiesByName["Note"])
      let note = Note(entity: entity, insertIntoManagedObjectContext: stack.context)
      #expect(note.isInserted && stack.context.insertedObjects.contains(note))
      let loose = NSManagedObject(entity: entity, insertIntoManagedObjectContext: nil)
      #expect(loose.managedObjectContext == nil)
      note.title = "t"
      #expect(note.hasPersistentChangedValues)
      try stack.context.save()
      #expect(!note.hasPersistentChangedValues)
      #expect(note.faultingState == 0)
      note.title = "u"
      #expect(note.hasPersistentChangedValues)
      note.title = "t"
      #expect(!note.hasPersistentChangedValues, "changed back")
    }
  }

  @Test("willChangeValue(forKey:withSetMutation:using:) fires the fault; the did half leaves the change as made")
  func setMutationPair() throws {
    let stack = try StoreStack(type: .inMemory)
    try stack.context.performAndWait {
      let note = Note(context: stack.context)
      note.title = "n"
      let tag = Tag(context: stack.context)
      tag.name = "t"
      try stack.context.save()
      stack.context.refresh(note, mergeChanges: false)
      #expect(note.isFault)
      note.willChangeValue(forKey: "tags", withSetMutation: .union, using: [tag])
      #expect(!note.isFault)
      note.mutableSetValue(forKey: "tags").add(tag)
      note.didChangeValue(forKey: "tags", withSetMutation: .union, using: [tag])
      #expect(note.tags == [tag] && tag.notes == [note])
      #expect(NSKeyValueSetMutationKind.union.rawValue == 1 && NSKeyValueSetMutationKind.set.rawValue == 4)
    }
  }

  // MARK: - Merge policies

  /// Counts the conflicts handed to each typed method.
  final class CountingPolicy: NSMergePolicy, @unchecked Sendable {
    var optimistic = 0
    var constraint = 0
    override func resolve(optimisticLockingConflicts list: [NSMergeConflict]) throws { optimistic += list.count }
    override func resolve(constraintConflicts list: [NSConstraintConflict]) throws { constraint += list.count }
  }

  @Test("NSMergePolicy(mergeType:) and resolve(mergeConflicts:) over the two typed methods")
  func mergePolicySpellings() throws {
    #expect(NSMergePolicy(mergeType: .overwriteMergePolicyType).mergeType == .overwriteMergePolicyType)
    #expect(NSMergePolicy(mergeType: .rollbackMergePolicyType) == NSMergePolicy.rollback)
    let stack = try StoreStack(type: .inMemory)
    try stack.context.performAndWait {
      let note = Note(context: stack.context)
      note.title = "n"
      let conflict = NSMergeConflict(source: note, newVersion: 2, oldVersion: 1, cachedSnapshot: nil, persistedSnapshot: nil)
      let policy = CountingPolicy(merge: .errorMergePolicyType)
      try policy.resolve(mergeConflicts: [conflict, conflict])
      #expect(policy.optimistic == 2 && policy.constraint == 0)
      _ = expectCode(.managedObjectMerge) { try NSMergePolicy.error.resolve(mergeConflicts: [conflict]) }
      try NSMergePolicy.overwrite.resolve(mergeConflicts: [conflict])
      try NSMergePolicy.error.resolve(mergeConflicts: [])
      _ = expectCode(.invalidValue) { try policy.resolve(mergeConflicts: ["not a conflict"]) }
    }
  }

  // MARK: - Batch requests

  @Test("A batch insert's managed-object handler fills objects; true stops; the rows are stored as the dictionary handler's")
  func batchInsertManagedObjectHandler() throws {
    let stack = try StoreStack()
    let entity = try #require(stack.model.entitiesByName["Note"])
    var made = 0
    let request = NSBatchInsertRequest(
      entity: entity,
      managedObjectHandler: { object in
        guard made < 3 else { return true }
        made += 1
        #expect(object is Note && object.managedObjectContext == nil, "an object of the entity's class, in no context")
        object.setValue("note \(made)", forKey: "title")
        object.setValue(made * 10, forKey: "rating")
        return false
      })
    #expect(request.entity === entity && request.entityName == "Note" && request.managedObjectHandler != nil)
    request.resultType = .objectIDs
    let result = try stack.context.performAndWait { try stack.context.execute(request) as? NSBatchInsertResult }
    #expect((result?.result as? [NSManagedObjectID])?.count == 3)
    #expect(try stack.storedInKeyOrder("Note") { $0.value(forKey: "title") as? String } == ["note 1", "note 2", "note 3"])
    #expect(try stack.storedInKeyOrder("Note") { ($0.value(forKey: "rating") as? NSNumber)?.intValue } == [10, 20, 30])

    let byName = NSBatchInsertRequest(entityName: "Note", managedObjectHandler: { _ in true })
    #expect(byName.entity == nil && byName.entityName == "Note")
    let none = try stack.context.performAndWait { try stack.context.execute(byName) as? NSBatchInsertResult }
    #expect(none?.result as? Bool == true)
    #expect(try stack.storedCount("Note") == 3, "stopping at once inserts nothing")
  }

  @Test("A handler's object refused: a relationship set, a required attribute empty, no entity; nothing is inserted")
  func batchInsertManagedObjectHandlerRefusals() throws {
    let stack = try StoreStack()
    let notebookEntity = try #require(stack.model.entitiesByName["Notebook"])
    var rows = 0
    let withRelationship = NSBatchInsertRequest(
      entityName: "Note",
      managedObjectHandler: { object in
        rows += 1
        guard rows < 3 else { return true }
        object.setValue("n", forKey: "title")
        if rows == 2 { object.setValue(Notebook(entity: notebookEntity, insertInto: nil), forKey: "notebook") }
        return false
      })
    let error = stack.context.performAndWait { expectCode(.invalidValue) { _ = try stack.context.execute(withRelationship) } }
    #expect(error?.message.contains("relationship notebook") == true, "\(String(describing: error))")
    var once = false
    let untitled = NSBatchInsertRequest(
      entityName: "Note",
      managedObjectHandler: { _ in
        defer { once = true }
        return once
      })
    stack.context.performAndWait {
      do {
        _ = try stack.context.execute(untitled)
        Issue.record("a row without its required title was inserted")
      } catch {}
    }
    let empty = NSBatchInsertRequest()
    #expect(empty.entity == nil && empty.entityName.isEmpty && empty.managedObjectHandler == nil)
    stack.context.performAndWait {
      _ = #expect(throws: (any Error).self) { _ = try stack.context.execute(empty) }
    }
    #expect(try stack.storedCount("Note") == 0)
  }

  @Test("NSBatchUpdateRequest.entity: the entity given, or a description named as the request")
  func batchUpdateEntity() throws {
    let model = try Models.notes()
    let entity = try #require(model.entitiesByName["Note"])
    #expect(NSBatchUpdateRequest(entity: entity).entity === entity)
    let byName = NSBatchUpdateRequest(entityName: "Note")
    #expect(byName.entity.name == "Note" && byName.entityName == "Note")
  }
}
