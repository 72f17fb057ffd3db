import EngineTestSupport
import Foundation
import ObjectGraph
import TestSupport
import Testing

/// The engine's errors as Core Data code catches them: `NSError`s in `NSCocoaErrorDomain` with Core Data's codes
/// and `userInfo`, matched by `catch let error as NSError`, `catch let error as CocoaError` and the error-code
/// constants, against real saves and a real store open. Written as for Apple's framework (plain `import`).
@Suite("Errors as Core Data reports them", .temporaryFolders)
struct CoreDataErrorTests {
  /// The tutorial's model (Note.createdAt is required) on a new SQLite store; `unique` makes Tag.name unique.
  private func stack(unique: Bool = false) throws -> (NSPersistentStoreCoordinator, NSManagedObjectContext) {
    let model = try TutorialStack.model()
    if unique { model.entitiesByName["Tag"]?.uniquenessConstraints = [["name"]] }
    let stack = try StoreStack(model: model, at: try TemporaryFolder().url.appendingPathComponent("Notes.sqlite"))
    return (stack.coordinator, stack.context)
  }

  /// A new object of the entity `name` in `context`.
  private func insert(_ name: String, into context: NSManagedObjectContext) throws -> NSManagedObject {
    let entity = try #require(context.persistentStoreCoordinator?.managedObjectModel.entitiesByName[name])
    return NSManagedObject(entity: entity, insertInto: context)
  }

  /// A note with a title and no `createdAt`, which the model requires.
  private func noteWithoutDate(_ context: NSManagedObjectContext, _ title: String) throws -> NSManagedObject {
    let note = try insert("Note", into: context)
    note.setValue(title, forKey: "title")
    return note
  }

  @Test("A missing required value: catch as NSError with NSValidationMissingMandatoryPropertyError, the object and key in userInfo")
  func missingMandatoryProperty() throws {
    let (_, context) = try stack()
    try context.performAndWait {
      let note = try noteWithoutDate(context, "Draft")
      do {
        try context.save()
        Issue.record("the save went through")
      } catch let error as NSError where error.code == NSValidationMissingMandatoryPropertyError {
        #expect(error.domain == NSCocoaErrorDomain)
        #expect(error.userInfo[NSValidationKeyErrorKey] as? String == "createdAt")
        #expect((error.userInfo[NSValidationObjectErrorKey] as? NSManagedObject) === note)
        #expect(error.userInfo[NSValidationValueErrorKey] == nil)
        #expect(error.localizedDescription.contains("Note.createdAt"), "\(error.localizedDescription)")
        #expect(error.localizedFailureReason == error.localizedDescription)
      }
    }
  }

  @Test("The same error caught as CocoaError, with Core Data's code name and accessors")
  func caughtAsCocoaError() throws {
    let (_, context) = try stack()
    try context.performAndWait {
      let note = try noteWithoutDate(context, "Draft")
      do {
        try context.save()
        Issue.record("the save went through")
      } catch let error as CocoaError where error.code == .validationMissingMandatoryProperty {
        #expect(error.validationKey == "createdAt")
        #expect((error.validationObject as? NSManagedObject) === note)
        #expect(error.localizedDescription.contains("createdAt"))
      } catch CocoaError.managedObjectValidation {
        Issue.record("a generic validation error instead of 1570")
      }
    }
  }

  @Test("Two failures at once: NSValidationMultipleErrorsError, the individual NSErrors under NSDetailedErrorsKey")
  func multipleErrors() throws {
    let (_, context) = try stack()
    try context.performAndWait {
      _ = try noteWithoutDate(context, "One")
      _ = try noteWithoutDate(context, "Two")
      do {
        try context.save()
        Issue.record("the save went through")
      } catch let error as NSError where error.code == NSValidationMultipleErrorsError {
        #expect(error.domain == NSCocoaErrorDomain)
        let details = try #require(error.userInfo[NSDetailedErrorsKey] as? [NSError])
        #expect(details.count == 2)
        #expect(details.allSatisfy { $0.code == NSValidationMissingMandatoryPropertyError && $0.domain == NSCocoaErrorDomain })
        #expect(details.allSatisfy { $0.userInfo[NSValidationKeyErrorKey] as? String == "createdAt" })
        let titles = details.compactMap { ($0.userInfo[NSValidationObjectErrorKey] as? NSManagedObject)?.value(forKey: "title") as? String }
        #expect(Set(titles) == ["One", "Two"])
        // What print(error) shows: NSError's shape, each detailed error on a line of its own.
        #expect("\(error)".hasPrefix("Error Domain=NSCocoaErrorDomain Code=1560 "), "\(error)")
        #expect("\(error)".components(separatedBy: "\n").count >= 3, "\(error)")
      }
    }
  }

  @Test("A merge conflict: NSManagedObjectMergeError with [NSMergeConflict] under conflictList")
  func mergeConflict() throws {
    let (coordinator, first) = try stack()
    let id = try first.performAndWait {
      let note = try insert("Note", into: first)
      note.setValue("Shopping", forKey: "title")
      note.setValue(Date(), forKey: "createdAt")
      try first.save()
      return note.objectID
    }
    let second = NSManagedObjectContext(concurrencyType: .privateQueueConcurrencyType)
    second.persistentStoreCoordinator = coordinator
    try second.performAndWait {
      let mine = try second.existingObject(with: id)
      _ = mine.value(forKey: "title")
      try first.performAndWait {
        try first.existingObject(with: id).setValue("Changed elsewhere", forKey: "title")
        try first.save()
      }
      mine.setValue("Changed here", forKey: "title")
      do {
        try second.save()
        Issue.record("the save went through")
      } catch let error as NSError where error.code == NSManagedObjectMergeError {
        #expect(error.domain == NSCocoaErrorDomain)
        let conflicts = try #require(error.userInfo["conflictList"] as? [NSMergeConflict])
        #expect(conflicts.count == 1)
        #expect(conflicts.first?.sourceObject === mine)
        #expect(conflicts.first?.persistedSnapshot?["title"] as? String == "Changed elsewhere")
        #expect(conflicts.first?.objectSnapshot?["title"] as? String == "Changed here")
        #expect((conflicts.first?.newVersionNumber ?? 0) > (conflicts.first?.oldVersionNumber ?? 0))
        #expect((error.userInfo[NSPersistentStoreSaveConflictsErrorKey] as? [NSMergeConflict])?.count == 1)
        #expect((error as? CocoaError)?.persistentStoreSaveConflicts?.count == 1)
      }
    }
  }

  @Test("A uniqueness-constraint conflict: NSManagedObjectConstraintMergeError with [NSConstraintConflict] under conflictList")
  func constraintConflict() throws {
    let (_, context) = try stack(unique: true)
    try context.performAndWait {
      let tags = try (0..<2).map { _ in
        let tag = try insert("Tag", into: context)
        tag.setValue("home", forKey: "name")
        return tag
      }
      do {
        try context.save()
        Issue.record("the save went through")
      } catch let error as NSError where error.code == NSManagedObjectConstraintMergeError {
        #expect(error.domain == NSCocoaErrorDomain)
        let conflicts = try #require(error.userInfo["conflictList"] as? [NSConstraintConflict])
        #expect(conflicts.count == 1)
        let conflict = try #require(conflicts.first)
        #expect(conflict.constraint == ["name"])
        #expect(conflict.constraintValues["name"] as? String == "home")
        #expect(conflict.databaseObject == nil)
        #expect(Set(conflict.conflictingObjects.map(\.objectID)) == Set(tags.map(\.objectID)))
      }
    }
  }

  @Test("A store that is not a store: a Core Data store error with the file under NSFilePathErrorKey and NSURLErrorKey")
  func corruptStoreOpen() throws {
    let url = try TemporaryFolder().url.appendingPathComponent("Notes.sqlite")
    try Data("these are not the notes you are looking for".utf8).write(to: url)
    let coordinator = NSPersistentStoreCoordinator(managedObjectModel: try TutorialStack.model())
    do {
      try coordinator.addPersistentStore(type: .sqlite, at: url)
      Issue.record("the store was added")
    } catch let error as NSError where error.domain == NSCocoaErrorDomain {
      #expect(
        [NSPersistentStoreInvalidTypeError, NSPersistentStoreOpenError, NSSQLiteError].contains(error.code), "\(error)")
      #expect(error.userInfo[NSFilePathErrorKey] as? String == url.path)
      #expect((error.userInfo[NSURLErrorKey] as? URL)?.path == url.path)
      #expect(error.localizedDescription.contains(url.path), "\(error.localizedDescription)")
    }
  }

  @Test("A store SQLite refuses: SQLite's code under NSSQLiteErrorDomain, the SQLite failure as the underlying NSError")
  func sqliteFailureOnOpen() throws {
    let url = try TemporaryFolder().url.appendingPathComponent("Notes.sqlite")
    // SQLite's header, then pages of nonsense: SQLite opens the file and fails reading it.
    var bytes = Data("SQLite format 3\u{0}".utf8)
    bytes.append(Data(repeating: 0xA5, count: 8192))
    try bytes.write(to: url)
    let coordinator = NSPersistentStoreCoordinator(managedObjectModel: try TutorialStack.model())
    do {
      try coordinator.addPersistentStore(type: .sqlite, at: url)
      Issue.record("the store was added")
    } catch let error as NSError {
      #expect(error.domain == NSCocoaErrorDomain, "\(error)")
      let code = try #require(error.userInfo[NSSQLiteErrorDomain] as? Int, "\(error)")
      let underlying = try #require(error.userInfo[NSUnderlyingErrorKey] as? NSError)
      #expect(underlying.domain == NSSQLiteErrorDomain)
      #expect(underlying.code == code)
      #expect([11, 26].contains(code & 0xFF), "SQLITE_CORRUPT or SQLITE_NOTADB, got \(code)")
    }
  }

  @Test("A store made with another model: NSPersistentStoreIncompatibleVersionHashError with the store's metadata")
  func incompatibleVersionHash() throws {
    let url = try TemporaryFolder().url.appendingPathComponent("Notes.sqlite")
    try TutorialStack.writeVersionOneStore(at: url, notes: 1)
    let coordinator = NSPersistentStoreCoordinator(managedObjectModel: try TutorialStack.model())
    do {
      try coordinator.addPersistentStore(
        type: .sqlite, at: url,
        options: [NSMigratePersistentStoresAutomaticallyOption: false, NSInferMappingModelAutomaticallyOption: true])
      Issue.record("the store was added")
    } catch let error as CocoaError where error.code == .persistentStoreIncompatibleVersionHash {
      let metadata = try #require(error.userInfo["metadata"] as? [String: Any])
      #expect(metadata["NSStoreType"] as? String == "SQLite", "\(metadata)")
      #expect(metadata["NSStoreUUID"] is String)
    }
  }

  @Test("Core Data's constants have Core Data's values")
  func constants() {
    #expect(NSManagedObjectValidationError == 1550 && NSValidationMultipleErrorsError == 1560)
    #expect(NSValidationMissingMandatoryPropertyError == 1570 && NSValidationStringPatternMatchingError == 1680)
    #expect(NSManagedObjectMergeError == 133020 && NSManagedObjectConstraintMergeError == 133021)
    #expect(NSPersistentStoreIncompatibleVersionHashError == 134100 && NSMigrationMissingMappingModelError == 134140)
    #expect(NSPersistentStoreSaveConflictsErrorKey == "conflictList")
    #expect(NSValidationKeyErrorKey == "NSValidationErrorKey" && NSDetailedErrorsKey == "NSDetailedErrors")
    #expect(CocoaError.Code.managedObjectMerge.rawValue == NSManagedObjectMergeError)
    #expect(CocoaError.sqlite.rawValue == NSSQLiteError)
  }
}
