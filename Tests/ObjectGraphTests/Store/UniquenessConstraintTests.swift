import EngineTestSupport
import Foundation
import GRDB
import TestSupport
import Testing

@testable import ObjectGraph

/// Uniqueness constraints (`NSEntityDescription.uniquenessConstraints`), enforced when a context saves to
/// its store, as Core Data does: error 133021 under the error merge policy, an upsert under the others.
@Suite("Uniqueness constraints", .temporaryFolders)
struct UniquenessConstraintTests {
  /// Item(name unique, value); Cell(row, column unique together); Media(code unique) with Book and Film.
  static func model(constraints: Bool = true) throws -> NSManagedObjectModel {
    let item = NSEntityDescription(
      name: "Item",
      properties: [
        .attribute(NSAttributeDescription(name: "name", type: .string)),
        .attribute(NSAttributeDescription(name: "value", type: .integer64, isOptional: false, defaultValue: Int64(0))),
        .attribute(NSAttributeDescription(name: "note", type: .string)),
      ])
    let cell = NSEntityDescription(
      name: "Cell",
      properties: [
        .attribute(NSAttributeDescription(name: "row", type: .integer64, isOptional: false, defaultValue: Int64(0))),
        .attribute(NSAttributeDescription(name: "column", type: .integer64, isOptional: false, defaultValue: Int64(0))),
        .attribute(NSAttributeDescription(name: "text", type: .string)),
      ])
    let media = NSEntityDescription(name: "Media", properties: [.attribute(NSAttributeDescription(name: "code", type: .string))])
    media.isAbstract = true
    let book = NSEntityDescription(name: "Book", properties: [.attribute(NSAttributeDescription(name: "pages", type: .integer32))])
    let film = NSEntityDescription(name: "Film", properties: [.attribute(NSAttributeDescription(name: "minutes", type: .integer32))])
    media.subentities = [book, film]
    if constraints {
      item.uniquenessConstraints = [["name"]]
      cell.uniquenessConstraints = [["row", "column"]]
      media.uniquenessConstraints = [["code"]]
      film.uniquenessConstraints = [["minutes"]]
    }
    return try NSManagedObjectModel(entities: [item, cell, media, book, film])
  }

  private func stack(_ type: NSPersistentStore.StoreType = .sqlite) throws -> StoreStack {
    try StoreStack(model: try Self.model(), type: type)
  }

  @discardableResult
  private func item(_ context: NSManagedObjectContext, _ name: String?, _ value: Int64) -> NSManagedObject {
    let object = NSManagedObject(entity: entity(context, "Item"), insertInto: context)
    object.setValue(name, forKey: "name")
    object.setValue(value, forKey: "value")
    return object
  }

  private static let missing = NSEntityDescription(name: "missing", properties: [])

  private func entity(_ context: NSManagedObjectContext, _ name: String) -> NSEntityDescription {
    context.persistentStoreCoordinator?.managedObjectModel.entitiesByName[name] ?? Self.missing
  }

  /// Runs `body` on `context`'s queue, then saves, and returns the error the save must throw.
  private func failedSave(
    _ context: NSManagedObjectContext, sourceLocation: SourceLocation = #_sourceLocation, _ body: () throws -> Void
  ) throws -> ObjectGraphError {
    try #require(throws: ObjectGraphError.self, sourceLocation: sourceLocation) {
      try context.performAndWait {
        try body()
        try context.save()
      }
    }
  }

  private func storedValues(_ stack: StoreStack) throws -> [String: Int64] {
    Dictionary(
      try stack.stored("Item") { ($0.value(forKey: "name") as? String ?? "-", $0.value(forKey: "value") as? Int64 ?? -1) },
      uniquingKeysWith: { a, _ in a })
  }

  // MARK: - The error policy

  @Test("Error policy: three new objects with one name fail the save with 133021 listing the conflict", arguments: bothStoreTypes)
  func inMemoryConflict(type: NSPersistentStore.StoreType) throws {
    let stack = try stack(type)
    let context = stack.context
    let objects = context.performAndWait { (0..<3).map { item(context, "same", Int64($0)) } }
    let error = try #require(throws: ObjectGraphError.self) { try context.performAndWait { try context.save() } }
    #expect(error.code == .managedObjectConstraintMerge)
    #expect(error.code == 133021)
    #expect(error.constraintConflictRecords.count == 1)
    let conflict = try #require(error.constraintConflictRecords.first)
    #expect(conflict.entityName == "Item")
    #expect(conflict.constraint == ["name"])
    #expect(conflict.constraintValues["name"] as? String == "same")
    #expect(conflict.databaseObjectID == nil)
    #expect(conflict.databaseSnapshot == nil)
    #expect(Set(conflict.conflictingObjectIDs) == Set(context.performAndWait { objects.map(\.objectID) }))
    #expect(error.message.contains("Item") && error.message.contains("name") && error.message.contains("same"))
    #expect(error.message.contains("merge policy"))
    #expect(try stack.storedCount("Item") == 0, "nothing was written")
    #expect(context.performAndWait { context.insertedObjects.count } == 3, "the changes are still there")
  }

  @Test("Error policy: a new object with the name of a stored row fails with 133021 naming the stored row")
  func storeConflict() throws {
    let stack = try stack()
    let context = stack.context
    let storedID = try context.performAndWait {
      let first = item(context, "a", 1)
      try context.save()
      return first.objectID
    }
    let other = stack.freshContext()
    let error = try failedSave(other) {
      item(other, "a", 2)
    }
    #expect(error.code == .managedObjectConstraintMerge)
    let conflict = try #require(error.constraintConflictRecords.first)
    #expect(conflict.databaseObjectID == storedID)
    #expect(conflict.databaseSnapshot?["value"] as? Int64 == 1)
    #expect(conflict.conflictingObjectIDs.count == 1)
    #expect(try storedValues(stack) == ["a": 1])
  }

  @Test("Deleting a row and inserting its name again in one save is no conflict")
  func deleteAndReinsert() throws {
    let stack = try stack()
    let context = stack.context
    try context.performAndWait {
      let first = item(context, "a", 1)
      try context.save()
      context.delete(first)
      item(context, "a", 2)
      try context.save()
    }
    #expect(try storedValues(stack) == ["a": 2])
  }

  @Test("Objects without a value for the constrained attribute never conflict (as SQL's NULLs)")
  func nilsDoNotConflict() throws {
    let stack = try stack()
    try stack.context.performAndWait {
      item(stack.context, nil, 1)
      item(stack.context, nil, 2)
      try stack.context.save()
    }
    #expect(try stack.storedCount("Item") == 2)
  }

  @Test("A compound constraint conflicts only when every attribute matches")
  func compound() throws {
    let stack = try stack()
    let context = stack.context
    func cell(_ row: Int64, _ column: Int64) {
      let object = NSManagedObject(entity: entity(context, "Cell"), insertInto: context)
      object.setValue(row, forKey: "row")
      object.setValue(column, forKey: "column")
    }
    try context.performAndWait {
      cell(1, 1)
      cell(1, 2)
      cell(2, 1)
      try context.save()
    }
    let error = try failedSave(context) {
      cell(1, 2)
    }
    let conflict = try #require(error.constraintConflictRecords.first)
    #expect(conflict.constraint == ["row", "column"])
    #expect(conflict.constraintValues["row"] as? Int64 == 1 && conflict.constraintValues["column"] as? Int64 == 2)
    #expect(try stack.storedCount("Cell") == 3)
  }

  @Test("A constraint on a parent entity applies across its subentities, which share its table")
  func inheritance() throws {
    let stack = try stack()
    let context = stack.context
    let error = try failedSave(context) {
      NSManagedObject(entity: entity(context, "Book"), insertInto: context).setValue("X1", forKey: "code")
      NSManagedObject(entity: entity(context, "Film"), insertInto: context).setValue("X1", forKey: "code")
    }
    #expect(error.code == .managedObjectConstraintMerge)
    #expect(error.constraintConflictRecords.first?.entityName == "Media")
    #expect(try stack.storedCount("Media") == 0)
  }

  @Test("A constraint declared on a subentity covers that subentity's rows only, found among the shared table's rows")
  func subentityConstraint() throws {
    let stack = try stack()
    let context = stack.context
    func media(_ entityName: String, _ key: String, _ value: Int32) {
      NSManagedObject(entity: entity(context, entityName), insertInto: context).setValue(value, forKey: key)
    }
    try context.performAndWait {
      media("Film", "minutes", 90)
      media("Book", "pages", 90)
      try context.save()
    }
    let error = try failedSave(context) {
      media("Film", "minutes", 90)
    }
    let conflict = try #require(error.constraintConflictRecords.first)
    #expect(conflict.entityName == "Film")
    #expect(conflict.databaseObjectID?.entity.entityName == "Film")
    #expect(try stack.storedCount("Media") == 2)
  }

  // MARK: - Merge policies

  @Test(
    "Against a stored row: object trump and overwrite update the row with the new values (an upsert); store trump and rollback keep the stored ones",
    arguments: [
      (NSMergePolicy.mergeByPropertyObjectTrump, Int64(2)), (.overwrite, 2), (.mergeByPropertyStoreTrump, 1), (.rollback, 1),
    ])
  func upsert(policy: NSMergePolicy, expected: Int64) throws {
    let stack = try stack()
    let storedID = try stack.context.performAndWait {
      let first = item(stack.context, "a", 1)
      try stack.context.save()
      return first.objectID
    }
    let other = stack.freshContext()
    other.mergePolicy = policy
    let inserted = try other.performAndWait {
      let object = item(other, "a", 2)
      try other.save()
      return object
    }
    #expect(try storedValues(stack) == ["a": expected])
    #expect(try stack.storedCount("Item") == 1)
    let found = try other.performAndWait { try other.existingObject(with: storedID) }
    other.performAndWait {
      // The inserted object becomes the row's object: it takes the row's permanent ID and its values.
      #expect(inserted.objectID == storedID)
      #expect(inserted.managedObjectContext === other)
      #expect(!inserted.isInserted && !inserted.hasChanges && !other.hasChanges)
      #expect(inserted.value(forKey: "value") as? Int64 == expected)
      #expect(found === inserted)
    }
  }

  @Test("Object trump: the row's object already in the context takes the new values; the duplicate leaves the context")
  func registeredRowObjectSurvives() throws {
    let stack = try stack()
    let context = stack.context
    context.mergePolicy = NSMergePolicy.mergeByPropertyObjectTrump
    try context.performAndWait {
      let stored = item(context, "a", 1)
      try context.save()
      let duplicate = item(context, "a", 7)
      try context.save()
      #expect(stored.value(forKey: "value") as? Int64 == 7)
      #expect(stored.managedObjectContext === context)
      #expect(duplicate.managedObjectContext == nil)
      #expect(duplicate.objectID == stored.objectID, "its ID names the row it was merged into")
      #expect(context.registeredObjects.filter { $0.entity.entityName == "Item" } == [stored])
      #expect(!context.hasChanges)
    }
    #expect(try storedValues(stack) == ["a": 7])
  }

  @Test("De-duplicating import: 1,000 notes whose names repeat save as one row per name with the last values", arguments: bothStoreTypes)
  func deduplicatingImport(type: NSPersistentStore.StoreType) throws {
    let stack = try stack(type)
    let context = stack.context
    context.mergePolicy = NSMergePolicy.mergeByPropertyObjectTrump
    try context.performAndWait {
      // A first import stores half the names, the second repeats them all ten times.
      let first = (0..<50).map { item(context, "name \($0)", -1) }
      try context.save()
      var objects: [NSManagedObject] = []
      for index in 0..<1000 { objects.append(item(context, "name \(index % 100)", Int64(index))) }
      try context.save()
      #expect(!context.hasChanges)
      // The stored names keep the objects the context already had for them, with the last values; each
      // new name is represented by its last inserted object; every other object left the context.
      // (Typed constants: the comparisons' element types spelled out keep their type-checking quick.)
      let firstValues: [Int64] = first.map { object -> Int64 in object.value(forKey: "value") as? Int64 ?? -1 }
      let lastValuesOfFirst: [Int64] = (900..<950).map { (index: Int) -> Int64 in Int64(index) }
      #expect(firstValues == lastValuesOfFirst)
      #expect(first.allSatisfy { $0.managedObjectContext === context })
      let survivors = objects.filter { $0.managedObjectContext != nil }
      #expect(survivors.count == 50)
      let survivingValues: Set<Int64> = Set(survivors.map { object -> Int64 in object.value(forKey: "value") as? Int64 ?? -1 })
      let lastValuesOfNew: Set<Int64> = Set((950..<1000).map { (index: Int) -> Int64 in Int64(index) })
      #expect(survivingValues == lastValuesOfNew)
      #expect(objects.allSatisfy { !$0.objectID.isTemporaryID }, "every object's ID names its row")
      #expect(context.registeredObjects.count == 100)
    }
    try expectOneRowPerNameWithLastValues(stack)
  }

  /// The store holds one row per name `name 0` … `name 99`, each with the value of its last occurrence in
  /// an import of 1,000 objects (`name \(i % 100)`, value `i`).
  private func expectOneRowPerNameWithLastValues(_ stack: StoreStack, sourceLocation: SourceLocation = #_sourceLocation) throws {
    let stored = try storedValues(stack)
    #expect(try stack.storedCount("Item") == 100, sourceLocation: sourceLocation)
    let pairs: [(String, Int64)] = (0..<100).map { (index: Int) -> (String, Int64) in ("name \(index)", Int64(900 + index)) }
    let expected: [String: Int64] = Dictionary(uniqueKeysWithValues: pairs)
    #expect(stored == expected, sourceLocation: sourceLocation)
  }

  @Test("De-duplicating import in a child context, saved up to a parent that saves to the store with object trump")
  func deduplicatingImportThroughParent() throws {
    let stack = try stack()
    let parent = stack.context
    parent.mergePolicy = NSMergePolicy.mergeByPropertyObjectTrump
    let child = NSManagedObjectContext(concurrencyType: .privateQueueConcurrencyType)
    child.parent = parent
    try child.performAndWait {
      for index in 0..<1000 { item(child, "name \(index % 100)", Int64(index)) }
      try child.save()
    }
    try parent.performAndWait { try parent.save() }
    try expectOneRowPerNameWithLastValues(stack)
  }

  @Test("Object trump in a hierarchy: two books with one code become one row")
  func inheritanceUpsert() throws {
    let stack = try stack()
    let context = stack.context
    context.mergePolicy = NSMergePolicy.mergeByPropertyObjectTrump
    try context.performAndWait {
      for pages in [Int32(10), 20] {
        let book = NSManagedObject(entity: entity(context, "Book"), insertInto: context)
        book.setValue("B1", forKey: "code")
        book.setValue(pages, forKey: "pages")
      }
      try context.save()
    }
    #expect(try stack.stored("Book") { $0.value(forKey: "pages") as? Int32 } == [20])
  }

  @Test(
    "Six coordinators on one file insert the same names at once with object trump: one row per name, none lost",
    arguments: [NSMergePolicy.mergeByPropertyObjectTrump, .error])
  func concurrentCoordinators(policy: NSMergePolicy) throws {
    let stack = try stack()
    let model = stack.model
    let url = stack.storeURL
    let failures = Locked<[Int]>([])
    DispatchQueue.concurrentPerform(iterations: 6) { worker in
      do {
        let context = try StoreStack(model: model, at: url).context
        context.mergePolicy = policy
        try context.performAndWait {
          for index in 0..<20 {
            let object = NSManagedObject(entity: model.entitiesByName["Item"] ?? Self.missing, insertInto: context)
            object.setValue("name \(index)", forKey: "name")
            object.setValue(Int64(worker), forKey: "value")
          }
          try context.save()
        }
      } catch let error as ObjectGraphError where error.code == .managedObjectConstraintMerge {
        failures.withLock { $0.append(worker) }
      } catch {
        Issue.record("worker \(worker): \(error)")
      }
    }
    #expect(try stack.storedCount("Item") == 20)
    // Each save checks inside its own write transaction, so the saves are serialised: under the error
    // policy the first one writes and every later one is refused whole.
    #expect(failures.withLock { $0.count } == (policy == .error ? 5 : 0))
  }

  // MARK: - The store

  @Test("The store enforces a constraint with a unique index, as Core Data's SQLite store does")
  func uniqueIndex() throws {
    let stack = try stack()
    let rows = try #require(try stack.fileRows("SELECT name, sql FROM sqlite_master WHERE type = 'index' AND sql LIKE '%UNIQUE%'"))
    let statements = rows.map { $0["sql"] as String }
    #expect(statements.contains { $0.contains("ZITEM") && $0.contains("ZNAME") }, "\(statements)")
    #expect(statements.contains { $0.contains("ZCELL") && $0.contains("ZROW") && $0.contains("ZCOLUMN") }, "\(statements)")
  }

  @Test("A saved object changed to the values of another stored row is refused under every policy (two rows are never merged)")
  func savedObjectIntoOtherRow() throws {
    let stack = try stack()
    let context = stack.context
    context.mergePolicy = NSMergePolicy.mergeByPropertyObjectTrump
    let (a, b) = try context.performAndWait {
      let a = item(context, "a", 1)
      let b = item(context, "b", 2)
      try context.save()
      return (a, b)
    }
    let error = try failedSave(context) { b.setValue("a", forKey: "name") }
    let conflict = try #require(error.constraintConflictRecords.first)
    #expect(conflict.databaseObjectID == context.performAndWait { a.objectID })
    #expect(conflict.conflictingObjectIDs == [context.performAndWait { b.objectID }])
    #expect(conflict.conflictingSnapshots.first?["name"] as? String == "b", "the values it last read")
    #expect(conflict.databaseSnapshot?["name"] as? String == "a")
    #expect(try storedValues(stack) == ["a": 1, "b": 2])
  }

  @Test("Two saved objects swapping their values in one save: the unique index refuses it with 133021, nothing written")
  func swapRefusedByIndex() throws {
    let stack = try stack()
    let context = stack.context
    let error = try failedSave(context) {
      let a = item(context, "x", 1)
      let b = item(context, "y", 2)
      try context.save()
      a.setValue("y", forKey: "name")
      b.setValue("x", forKey: "name")
    }
    #expect(error.code == .managedObjectConstraintMerge)
    #expect(error.sqlitePrimaryResultCode == 19, "SQLITE_CONSTRAINT")
    #expect(try storedValues(stack) == ["x": 1, "y": 2])
  }

  @Test("Uniqueness constraints are part of the entity's version hash")
  func versionHash() throws {
    let with = try Self.model()
    let without = try Self.model(constraints: false)
    #expect(with.entitiesByName["Item"]?.versionHash != without.entitiesByName["Item"]?.versionHash)
  }

  @Test("Adding a constraint migrates a store: the unique index is made; duplicates already stored refuse it (134110), file untouched")
  func migration() throws {
    let folder = try TemporaryFolder()
    let url = folder.appending("Old.sqlite")
    let old = try Self.model(constraints: false)
    let writer = try StoreStack(model: old, at: url)
    let context = writer.context
    try context.performAndWait {
      for name in ["a", "b"] {
        let object = NSManagedObject(entity: old.entitiesByName["Item"] ?? Self.missing, insertInto: context)
        object.setValue(name, forKey: "name")
      }
      try context.save()
    }
    try writer.close()
    let copy = folder.appending("Copy.sqlite")
    try DatabaseQueue(path: url.path).backup(to: DatabaseQueue(path: copy.path))

    let migrated = NSPersistentStoreCoordinator(managedObjectModel: try Self.model())
    try migrated.addPersistentStore(
      type: .sqlite, at: url,
      options: MigrationTests.migrationOptions(sourceModels: [old]))
    let indexes = try rawRows(url, "SELECT sql FROM sqlite_master WHERE type = 'index' AND sql LIKE '%UNIQUE%'").map { $0["sql"] as String }
    #expect(indexes.contains { $0.contains("ZITEM") })

    // A store holding duplicates: the migration is refused and rolled back.
    try DatabaseQueue(path: copy.path).write { try $0.execute(sql: "UPDATE ZITEM SET ZNAME = 'a'") }
    let refused = NSPersistentStoreCoordinator(managedObjectModel: try Self.model())
    let error = try #require(throws: ObjectGraphError.self) {
      try refused.addPersistentStore(
        type: .sqlite, at: copy,
        options: MigrationTests.migrationOptions(sourceModels: [old]))
    }
    #expect(error.code == .migration)
    #expect(try rawRows(copy, "SELECT ZNAME FROM ZITEM").map { $0["ZNAME"] as String } == ["a", "a"], "rolled back")
    let again = NSPersistentStoreCoordinator(managedObjectModel: old)
    try again.addPersistentStore(type: .sqlite, at: copy)
  }

  /// A tag whose name is unique, that keeps the count of its notes in `willSave()`, as apps denormalise.
  final class CountingTag: NSManagedObject {
    override func willSave() {
      super.willSave()
      let count = Int64((value(forKey: "notes") as? Set<NSManagedObject>)?.count ?? 0)
      if value(forKey: "noteCount") as? Int64 != count { setValue(count, forKey: "noteCount") }
    }
  }

  @Test("An object a constraint merge merged a row into gets willSave() again: a count it keeps covers the merged to-many")
  func willSaveAfterConstraintMerge() throws {
    let tag = NSEntityDescription(
      name: "Tag", managedObjectClass: CountingTag.self,
      properties: [
        .attribute(NSAttributeDescription(name: "name", type: .string)),
        .attribute(NSAttributeDescription(name: "noteCount", type: .integer64, isOptional: false, defaultValue: Int64(0))),
        .relationship(NSRelationshipDescription(name: "notes", destination: "Note", inverse: "tags", toMany: true)),
      ])
    tag.uniquenessConstraints = [["name"]]
    let note = NSEntityDescription(
      name: "Note",
      properties: [
        .attribute(NSAttributeDescription(name: "title", type: .string)),
        .relationship(NSRelationshipDescription(name: "tags", destination: "Tag", inverse: "notes", toMany: true)),
      ])
    let stack = try StoreStack(model: try NSManagedObjectModel(entities: [tag, note]), type: .sqlite)
    for (context, title) in [(stack.context, "first"), (stack.freshContext(), "second")] {
      context.mergePolicy = NSMergePolicy.mergeByPropertyObjectTrump
      try context.performAndWait {
        let newTag = NSEntityDescription.insertNewObject(forEntityName: "Tag", into: context)
        newTag.setValue("swift", forKey: "name")
        let newNote = NSManagedObject(entity: entity(context, "Note"), insertInto: context)
        newNote.setValue(title, forKey: "title")
        newNote.setValue(Set([newTag]), forKey: "tags")
        try context.save()
        #expect(newTag.value(forKey: "noteCount") as? Int64 == (title == "first" ? 1 : 2), "\(title)")
        #expect(!context.hasChanges)
      }
    }
    let rows = try #require(try stack.fileRows("SELECT ZNAME, ZNOTECOUNT FROM ZTAG"))
    #expect(rows.count == 1)
    #expect(rows.first?["ZNOTECOUNT"] as Int64? == 2)
  }
}
