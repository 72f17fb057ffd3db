import EngineTestSupport
import Foundation
import TestSupport
import Testing

@testable import ObjectGraph

/// Merge policies in Core Data's spellings (issue 37): the global constants (`NSMergeByPropertyObjectTrumpMergePolicy`),
/// `NSMergePolicy`'s class properties, `NSMergePolicyType`'s raw values, and `mergePolicy` typed `Any`.
@Suite("Merge policies as Core Data spells them", .temporaryFolders)
struct MergePolicyFormsTests {
  @Test("NSMergePolicyType has Core Data's raw values; init(rawValue:) reads them back")
  func rawValues() {
    let types: [(NSMergePolicyType, UInt)] = [
      (.errorMergePolicyType, 0x00), (.mergeByPropertyStoreTrumpMergePolicyType, 0x01),
      (.mergeByPropertyObjectTrumpMergePolicyType, 0x02), (.overwriteMergePolicyType, 0x03), (.rollbackMergePolicyType, 0x04),
    ]
    for (type, raw) in types {
      #expect(type.rawValue == raw)
      #expect(NSMergePolicyType(rawValue: raw) == type)
      #expect(NSMergePolicy(merge: type).mergeType == type)
    }
    #expect(NSMergePolicyType(rawValue: 0x05) == nil)
  }

  @Test("Each global constant is the class property's policy, with its type")
  func globalConstants() {
    let pairs: [(AnyObject, NSMergePolicy, NSMergePolicyType)] = [
      (NSErrorMergePolicy, .error, .errorMergePolicyType),
      (NSMergeByPropertyStoreTrumpMergePolicy, .mergeByPropertyStoreTrump, .mergeByPropertyStoreTrumpMergePolicyType),
      (NSMergeByPropertyObjectTrumpMergePolicy, .mergeByPropertyObjectTrump, .mergeByPropertyObjectTrumpMergePolicyType),
      (NSOverwriteMergePolicy, .overwrite, .overwriteMergePolicyType),
      (NSRollbackMergePolicy, .rollback, .rollbackMergePolicyType),
    ]
    for (constant, policy, type) in pairs {
      let isThePolicy = constant === policy  // outside #expect: the macro's `===` crashes Swift 6.3.1's compiler
      #expect(isThePolicy)
      #expect((constant as? NSMergePolicy)?.mergeType == type)
    }
  }

  @Test("mergePolicy starts as NSErrorMergePolicy and reads back what either spelling set")
  func readBack() {
    let context = NSManagedObjectContext(concurrencyType: .privateQueueConcurrencyType)
    let isTheErrorPolicy = context.mergePolicy as AnyObject === NSErrorMergePolicy
    #expect(isTheErrorPolicy)
    #expect((context.mergePolicy as? NSMergePolicy)?.mergeType == .errorMergePolicyType)
    context.mergePolicy = NSMergeByPropertyObjectTrumpMergePolicy
    #expect((context.mergePolicy as? NSMergePolicy)?.mergeType == .mergeByPropertyObjectTrumpMergePolicyType)
    context.mergePolicy = NSMergePolicy.mergeByPropertyStoreTrump
    #expect((context.mergePolicy as? NSMergePolicy)?.mergeType == .mergeByPropertyStoreTrumpMergePolicyType)
    context.mergePolicy = NSMergePolicy(merge: .rollbackMergePolicyType)
    #expect(context.mergePolicy as? NSMergePolicy == .rollback)
  }

  /// The policies an app sets, by how its source spells them.
  static func policy(spelled spelling: String) -> Any {
    switch spelling {
    case "NSMergeByPropertyObjectTrumpMergePolicy": NSMergeByPropertyObjectTrumpMergePolicy
    case "NSMergePolicy.mergeByPropertyObjectTrump": NSMergePolicy.mergeByPropertyObjectTrump
    case "NSMergeByPropertyStoreTrumpMergePolicy": NSMergeByPropertyStoreTrumpMergePolicy
    case "NSMergePolicy.mergeByPropertyStoreTrump": NSMergePolicy.mergeByPropertyStoreTrump
    case "NSRollbackMergePolicy": NSRollbackMergePolicy
    case "NSMergePolicy.rollback": NSMergePolicy.rollback
    case "NSOverwriteMergePolicy": NSOverwriteMergePolicy
    default: NSMergePolicy.overwrite
    }
  }

  @Test(
    "Both spellings settle a conflict as their type says",
    arguments: [
      ("NSMergeByPropertyObjectTrumpMergePolicy", "mine"), ("NSMergePolicy.mergeByPropertyObjectTrump", "mine"),
      ("NSMergeByPropertyStoreTrumpMergePolicy", "theirs"), ("NSMergePolicy.mergeByPropertyStoreTrump", "theirs"),
      ("NSRollbackMergePolicy", "theirs"), ("NSMergePolicy.rollback", "theirs"), ("NSOverwriteMergePolicy", "mine"),
      ("NSMergePolicy.overwrite", "mine"),
    ])
  func settlesConflicts(spelling: String, title: String) throws {
    let stack = try StoreStack()
    let kept = try stack.conflictingEdit(original: "original", theirs: "theirs")
    try stack.context.performAndWait {
      stack.context.mergePolicy = Self.policy(spelled: spelling)
      kept.title = "mine"
      try stack.context.save()
    }
    #expect(try stack.stored("Note") { $0.value(forKey: "title") as? String } == [title], "\(spelling)")
  }

  @Test("NSErrorMergePolicy fails a conflicting save with NSManagedObjectMergeError (133020)")
  func errorPolicy() throws {
    let stack = try StoreStack()
    let kept = try stack.conflictingEdit(original: "original", theirs: "theirs")
    stack.context.performAndWait {
      stack.context.mergePolicy = NSErrorMergePolicy
      kept.title = "mine"
      _ = expectCode(.managedObjectMerge) { try stack.context.save() }
    }
    #expect(try stack.stored("Note") { $0.value(forKey: "title") as? String } == ["theirs"])
  }

  @Test("A mergePolicy that is not an NSMergePolicy is kept as set, and a save to the store is refused, not a crash")
  func notAPolicy() throws {
    let stack = try StoreStack()
    stack.context.mergePolicy = NSMergePolicyType.overwriteMergePolicyType
    #expect(stack.context.mergePolicy as? NSMergePolicyType == .overwriteMergePolicyType)
    try stack.context.performAndWait {
      try stack.context.save()  // nothing to save: the policy is not read
      let note = Note(context: stack.context)
      note.title = "unsaved"
      let error = expectCode(.coreData) { try stack.context.save() }
      #expect(error?.message.contains("not an NSMergePolicy") == true)
    }
    #expect(try stack.storedCount("Note") == 0)
    stack.context.mergePolicy = NSMergeByPropertyObjectTrumpMergePolicy
    try stack.context.performAndWait { try stack.context.save() }
    #expect(try stack.storedCount("Note") == 1)
  }
}
