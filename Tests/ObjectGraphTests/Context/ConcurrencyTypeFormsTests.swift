import EngineTestSupport
import Foundation
import TestSupport
import Testing

@testable import ObjectGraph

/// A context's concurrency type in both of Core Data's spellings (issue 37): the Objective-C enum
/// `NSManagedObjectContextConcurrencyType` that `init(concurrencyType:)` takes, and Swift's
/// `NSManagedObjectContext.ConcurrencyType` that `init(_:)` takes.
@Suite("Concurrency types as Core Data spells them", .temporaryFolders)
struct ConcurrencyTypeFormsTests {
  @Test("NSManagedObjectContextConcurrencyType has Core Data's raw values; 0 (confinement) is not a case here")
  func rawValues() {
    #expect(NSManagedObjectContextConcurrencyType.privateQueueConcurrencyType.rawValue == 1)
    #expect(NSManagedObjectContextConcurrencyType.mainQueueConcurrencyType.rawValue == 2)
    #expect(NSManagedObjectContextConcurrencyType(rawValue: 1) == .privateQueueConcurrencyType)
    #expect(NSManagedObjectContextConcurrencyType(rawValue: 2) == .mainQueueConcurrencyType)
    #expect(NSManagedObjectContextConcurrencyType(rawValue: 0) == nil)
    #expect(NSManagedObjectContextConcurrencyType(rawValue: 3) == nil)
  }

  @Test("NSManagedObjectContext.ConcurrencyType wraps the enum: .privateQueue and .mainQueue")
  func structAndEnumAgree() {
    #expect(NSManagedObjectContext.ConcurrencyType.privateQueue.rawValue == .privateQueueConcurrencyType)
    #expect(NSManagedObjectContext.ConcurrencyType.mainQueue.rawValue == .mainQueueConcurrencyType)
    #expect(NSManagedObjectContext.ConcurrencyType(rawValue: .mainQueueConcurrencyType) == .mainQueue)
    #expect(NSManagedObjectContext.ConcurrencyType.privateQueue != .mainQueue)
  }

  @Test("Both initialisers make the context they name, and concurrencyType reads back as the enum")
  func bothInitialisers() {
    let older = NSManagedObjectContext(concurrencyType: .privateQueueConcurrencyType)
    let newer = NSManagedObjectContext(.privateQueue)
    let main = NSManagedObjectContext(concurrencyType: .mainQueueConcurrencyType)
    let newerMain = NSManagedObjectContext(.mainQueue)
    #expect(older.concurrencyType == .privateQueueConcurrencyType)
    #expect(newer.concurrencyType == .privateQueueConcurrencyType)
    #expect(main.concurrencyType == .mainQueueConcurrencyType)
    #expect(newerMain.concurrencyType == .mainQueueConcurrencyType)
    let type: NSManagedObjectContextConcurrencyType = newer.concurrencyType
    #expect(NSManagedObjectContext.ConcurrencyType(rawValue: type) == .privateQueue)
  }

  @Test("A private-queue context made either way saves through its coordinator on its own queue")
  func bothInitialisersSave() throws {
    let stack = try StoreStack()
    for context in [
      NSManagedObjectContext(concurrencyType: .privateQueueConcurrencyType), NSManagedObjectContext(.privateQueue),
    ] {
      context.persistentStoreCoordinator = stack.coordinator
      try context.performAndWait {
        let note = Note(context: context)
        note.title = "saved"
        try context.save()
      }
    }
    #expect(try stack.storedCount("Note") == 2)
  }
}
