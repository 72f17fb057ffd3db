import Foundation
import ObjectGraph
import TestSupport
import Testing

@Suite("Errors", .temporaryFolders)
struct ErrorTests {
  @Test func missingMandatoryProperty() throws {
    let container = makeContainer(at: try TemporaryFolder().appending("Model.sqlite"))
    let context = container.newBackgroundContext()
    var caught: NSError?
    context.performAndWait {
      _ = Item(context: context)
      do {
        try context.save()
      } catch let error as NSError where error.code == NSValidationMissingMandatoryPropertyError {
        caught = error
      } catch {
        Issue.record("unexpected error \(error)")
      }
    }
    let error = try #require(caught)
    #expect(error.domain == NSCocoaErrorDomain)
    #expect(error.userInfo[NSValidationKeyErrorKey] as? String == "title")
    #expect(error.userInfo[NSValidationObjectErrorKey] is Item)
  }

  @Test func severalValidationErrorsAreDetailed() throws {
    let container = makeContainer(at: try TemporaryFolder().appending("Model.sqlite"))
    let context = container.newBackgroundContext()
    var caught: NSError?
    context.performAndWait {
      _ = Item(context: context)
      _ = Item(context: context)
      do {
        try context.save()
      } catch let error as NSError {
        caught = error
      }
    }
    let error = try #require(caught)
    #expect(error.code == NSValidationMultipleErrorsError)
    let detailed = error.userInfo[NSDetailedErrorsKey] as? [NSError] ?? []
    #expect(detailed.count == 2)
    #expect(detailed.allSatisfy { $0.code == NSValidationMissingMandatoryPropertyError })
    #expect(detailed.allSatisfy { $0.userInfo[NSValidationKeyErrorKey] as? String == "title" })
  }

  @Test func cocoaErrorCodesMatch() throws {
    let container = makeContainer(at: try TemporaryFolder().appending("Model.sqlite"))
    let context = container.newBackgroundContext()
    var code: CocoaError.Code?
    context.performAndWait {
      _ = Item(context: context)
      do {
        try context.save()
      } catch let error as CocoaError {
        code = error.code
      } catch {
        Issue.record("not a CocoaError: \(error)")
      }
    }
    #expect(code == .validationMissingMandatoryProperty)
  }

  @Test func optimisticLockingConflictReportsAMergeConflict() throws {
    let container = makeContainer(at: try TemporaryFolder().appending("Model.sqlite"))
    let (_, second, objectID, secondsCopy) = try makeStaleCopy(in: container, title: "Shared") { item in
      item.title = "First wins"
    }
    var caught: NSError?
    second.performAndWait {
      secondsCopy.title = "Second loses"
      do {
        try second.save()
      } catch let error as NSError where error.code == NSManagedObjectMergeError {
        caught = error
      } catch {
        Issue.record("unexpected error \(error)")
      }
    }
    let error = try #require(caught)
    let conflicts = error.userInfo["conflictList"] as? [NSMergeConflict] ?? []
    #expect(conflicts.count == 1)
    let conflict = try #require(conflicts.first)
    #expect(conflict.sourceObject.objectID == objectID)
    #expect(conflict.persistedSnapshot?["title"] as? String == "First wins")
    #expect(conflict.newVersionNumber > conflict.oldVersionNumber)
  }

  @Test func uniquenessConstraintConflict() throws {
    let container = makeContainer(at: try TemporaryFolder().appending("Model.sqlite"))
    let context = container.newBackgroundContext()
    var caught: NSError?
    try context.performAndWait {
      let label = Label(context: context)
      label.name = "urgent"
      try context.save()
      let duplicate = Label(context: context)
      duplicate.name = "urgent"
      do {
        try context.save()
      } catch let error as NSError where error.code == NSManagedObjectConstraintMergeError {
        caught = error
      }
    }
    let error = try #require(caught)
    let conflicts = error.userInfo["conflictList"] as? [NSConstraintConflict] ?? []
    #expect(conflicts.count == 1)
    #expect(conflicts.first?.constraint == ["name"])
    #expect(conflicts.first?.constraintValues["name"] as? String == "urgent")
  }

  @Test func constraintConflictResolvedByTheMergePolicy() throws {
    let container = makeContainer(at: try TemporaryFolder().appending("Model.sqlite"))
    let context = container.newBackgroundContext()
    context.mergePolicy = NSMergeByPropertyObjectTrumpMergePolicy
    try context.performAndWait {
      let label = Label(context: context)
      label.name = "urgent"
      try context.save()
      let duplicate = Label(context: context)
      duplicate.name = "urgent"
      try context.save()
      #expect(try context.count(for: Label.fetchRequest()) == 1)
    }
  }

  @Test func existingObjectWithADeletedIDThrows() throws {
    let container = makeContainer(at: try TemporaryFolder().appending("Model.sqlite"))
    let context = container.newBackgroundContext()
    try context.performAndWait {
      let item = Item(context: context)
      item.title = "Gone"
      try context.save()
      let objectID = item.objectID
      context.delete(item)
      try context.save()
      let other = container.newBackgroundContext()
      #expect(throws: NSError.self) {
        try other.performAndWait { try other.existingObject(with: objectID) }
      }
    }
  }
}
