import EngineTestSupport
import Foundation
import Synchronization
import TestSupport
import Testing

@testable import ObjectGraph

/// Custom merge policies (issue 24, finding 3): `NSMergePolicy` subclassed as apps subclass `NSMergePolicy`,
/// modelled on a book app whose countries count their moods, on real conflicts between two contexts.
@Suite("Custom merge policies", .temporaryFolders)
struct CustomMergePolicyTests {
  /// Country(name, numberOfMoods, moods ->> Mood), Mood(name, country -> Country).
  static func model() throws -> NSManagedObjectModel {
    let country = NSEntityDescription(
      name: "Country",
      properties: [
        .attribute(NSAttributeDescription(name: "name", type: .string)),
        .attribute(NSAttributeDescription(name: "numberOfMoods", type: .integer64, isOptional: false, defaultValue: Int64(0))),
        .relationship(NSRelationshipDescription(name: "moods", destination: "Mood", inverse: "country", toMany: true)),
      ])
    let mood = NSEntityDescription(
      name: "Mood",
      properties: [
        .attribute(NSAttributeDescription(name: "name", type: .string)),
        .relationship(NSRelationshipDescription(name: "country", destination: "Country", inverse: "moods")),
      ])
    return try NSManagedObjectModel(entities: [country, mood])
  }

  /// What an override saw, copied out of the conflict records.
  struct Seen: Sendable, Equatable {
    var source: NSManagedObjectID
    var mine: Int64?
    var cached: Int64?
    var persisted: Int64?
    var newVersion: Int
    var oldVersion: Int
  }

  /// Field by field, as the book app's policy: the larger of the two counts wins; everything else as the
  /// type it starts from. To-many members are written as the members each context added and removed, so
  /// both contexts' new moods stay (the union).
  final class LargerCount: NSMergePolicy, @unchecked Sendable {
    // Safe: `seen` is a Mutex, and the class has no other stored state.
    let seen = Mutex<[Seen]>([])
    let callsSuper: Bool

    init(merge type: NSMergePolicyType, callsSuper: Bool = true) {
      self.callsSuper = callsSuper
      super.init(merge: type)
    }

    override func resolve(optimisticLockingConflicts list: [NSMergeConflict]) throws {
      if callsSuper { try super.resolve(optimisticLockingConflicts: list) }
      for conflict in list {
        let object = conflict.sourceObject
        let persisted = conflict.persistedSnapshot?["numberOfMoods"] as? Int64
        let mine = object.value(forKey: "numberOfMoods") as? Int64
        seen.withLock {
          $0.append(
            Seen(
              source: object.objectID, mine: conflict.objectSnapshot?["numberOfMoods"] as? Int64,
              cached: conflict.cachedSnapshot?["numberOfMoods"] as? Int64, persisted: persisted,
              newVersion: conflict.newVersionNumber, oldVersion: conflict.oldVersionNumber))
        }
        object.setValue(max(persisted ?? 0, mine ?? 0), forKey: "numberOfMoods")
      }
    }
  }

  private static let missing = NSEntityDescription(name: "missing", properties: [])

  private func insert(_ name: String, _ entity: String, _ context: NSManagedObjectContext) -> NSManagedObject {
    let entity = context.persistentStoreCoordinator?.managedObjectModel.entitiesByName[entity] ?? Self.missing
    let object = NSManagedObject(entity: entity, insertInto: context)
    object.setValue(name, forKey: "name")
    return object
  }

  /// A country saved with one mood; another coordinator then adds a mood and sets the count to 7; this
  /// context, unaware, adds its own mood and sets the count to 5, and saves under `policy`. Returns the
  /// stored count and the stored country's mood names.
  private func conflictingCounts(
    _ policy: NSMergePolicy, sourceLocation: SourceLocation = #_sourceLocation
  ) throws -> (count: Int64?, moods: [String], id: NSManagedObjectID) {
    let stack = try StoreStack(model: try Self.model())
    // Kept alive: the context holds unchanged objects weakly.
    let country = try stack.context.performAndWait {
      let country = insert("Germany", "Country", stack.context)
      insert("first", "Mood", stack.context).setValue(country, forKey: "country")
      country.setValue(Int64(1), forKey: "numberOfMoods")
      try stack.context.save()
      return country
    }
    let id = country.objectID
    let (_, other) = try stack.reopened()
    try other.performAndWait {
      let theirs = try other.existingObject(with: id)
      insert("theirs", "Mood", other).setValue(theirs, forKey: "country")
      theirs.setValue(Int64(7), forKey: "numberOfMoods")
      try other.save()
    }
    try stack.context.performAndWait {
      insert("mine", "Mood", stack.context).setValue(country, forKey: "country")
      country.setValue(Int64(5), forKey: "numberOfMoods")
      stack.context.mergePolicy = policy
      try stack.context.save()
      #expect(!stack.context.hasChanges, sourceLocation: sourceLocation)
    }
    let reader = stack.freshContext()
    return try reader.performAndWait {
      let stored = try reader.existingObject(with: id)
      let moods = (stored.value(forKey: "moods") as? Set<NSManagedObject> ?? []).compactMap { $0.value(forKey: "name") as? String }
      return (stored.value(forKey: "numberOfMoods") as? Int64, moods.sorted(), id)
    }
  }

  @Test("A subclass of mergeByPropertyObjectTrump keeps the larger count and both contexts' new moods")
  func largerCountWins() throws {
    let policy = LargerCount(merge: .mergeByPropertyObjectTrumpMergePolicyType)
    let (count, moods, id) = try conflictingCounts(policy)
    #expect(count == 7)
    #expect(moods == ["first", "mine", "theirs"])
    #expect(policy.seen.withLock { $0 } == [Seen(source: id, mine: 5, cached: 1, persisted: 7, newVersion: 2, oldVersion: 1)])
  }

  /// The policy chapter 4 shows ("A policy of your own").
  final class KeepLargerCount: NSMergePolicy, @unchecked Sendable {  // no stored state
    override func resolve(optimisticLockingConflicts list: [NSMergeConflict]) throws {
      try super.resolve(optimisticLockingConflicts: list)
      for conflict in list {
        let stored = conflict.persistedSnapshot?["numberOfMoods"] as? Int64 ?? 0
        let ours = conflict.sourceObject.value(forKey: "numberOfMoods") as? Int64 ?? 0
        conflict.sourceObject.setValue(max(stored, ours), forKey: "numberOfMoods")
      }
    }
  }

  @Test("Chapter 4's policy: the larger count and both contexts' new moods")
  func chapterPolicy() throws {
    let (count, moods, _) = try conflictingCounts(KeepLargerCount(merge: .mergeByPropertyObjectTrumpMergePolicyType))
    #expect(count == 7)
    #expect(moods == ["first", "mine", "theirs"])
  }

  @Test("The built-in mergeByPropertyObjectTrump, the same conflict: this context's count wins, as before")
  func builtInObjectTrump() throws {
    let (count, moods, _) = try conflictingCounts(.mergeByPropertyObjectTrump)
    #expect(count == 5)
    #expect(moods == ["first", "mine", "theirs"])
  }

  @Test("A subclass of the error type whose override returns has settled the conflict: its values are written")
  func errorTypeSettledByOverride() throws {
    let policy = LargerCount(merge: .errorMergePolicyType, callsSuper: false)
    let (count, moods, _) = try conflictingCounts(policy)
    #expect(count == 7)
    #expect(moods == ["first", "mine", "theirs"])
  }

  @Test("A subclass of the error type that calls super fails the save with 133020; nothing is written")
  func errorTypeSuperThrows() throws {
    let policy = LargerCount(merge: .errorMergePolicyType)
    let error = try #require(throws: ObjectGraphError.self) { try conflictingCounts(policy) }
    #expect(error.code == .managedObjectMerge)
    #expect(error.mergeConflictRecords.count == 1)
    #expect(error.message.contains("merge policy: error"))
  }

  @Test("A subclass of rollback: the store's values win over the override's change, as the built-in rollback's do")
  func rollbackSubclass() throws {
    let custom = try conflictingCounts(LargerCount(merge: .rollbackMergePolicyType))
    let builtIn = try conflictingCounts(.rollback)
    #expect(custom.count == 7)
    #expect(builtIn.count == 7)
    // The new mood's own row names the country: it is saved under either policy.
    #expect(custom.moods == builtIn.moods)
  }

  // MARK: - Uniqueness constraints

  /// Duplicates of a unique name are folded into one object: their values added up, the extra objects
  /// deleted.
  final class AddUpDuplicates: NSMergePolicy, @unchecked Sendable {
    // Safe: `seen` is a Mutex, and the class has no other stored state.
    let seen = Mutex<[String]>([])

    override func resolve(constraintConflicts list: [NSConstraintConflict]) throws {
      for conflict in list {
        let keeper = conflict.databaseObject ?? conflict.conflictingObjects[0]
        let extra = conflict.conflictingObjects.filter { $0 !== keeper }
        let total = ([keeper] + extra).reduce(Int64(0)) { $0 + ($1.value(forKey: "value") as? Int64 ?? 0) }
        seen.withLock {
          $0.append(
            "\(conflict.constraint) \(conflict.constraintValues["name"] as? String ?? "?") objects \(conflict.conflictingObjects.count) database \(conflict.databaseSnapshot?["value"] as? Int64 ?? -1)"
          )
        }
        keeper.setValue(total, forKey: "value")
        for object in extra { object.managedObjectContext?.delete(object) }
      }
      try super.resolve(constraintConflicts: list)
    }
  }

  private func item(_ context: NSManagedObjectContext, _ name: String, _ value: Int64) {
    let entity = context.persistentStoreCoordinator?.managedObjectModel.entitiesByName["Item"] ?? Self.missing
    let object = NSManagedObject(entity: entity, insertInto: context)
    object.setValue(name, forKey: "name")
    object.setValue(value, forKey: "value")
  }

  @Test("resolve(constraintConflicts:) folds new duplicates into the stored row and into each other")
  func constraintOverride() throws {
    let stack = try StoreStack(model: try UniquenessConstraintTests.model())
    try stack.context.performAndWait {
      item(stack.context, "a", 1)
      try stack.context.save()
    }
    let context = stack.freshContext()
    let policy = AddUpDuplicates(merge: .mergeByPropertyObjectTrumpMergePolicyType)
    try context.performAndWait {
      context.mergePolicy = policy
      item(context, "a", 2)
      item(context, "b", 3)
      item(context, "b", 4)
      try context.save()
      #expect(!context.hasChanges)
    }
    let stored = try stack.stored("Item", sortedBy: "name") {
      "\($0.value(forKey: "name") as? String ?? "?")=\($0.value(forKey: "value") as? Int64 ?? -1)"
    }
    #expect(stored == ["a=3", "b=7"])
    #expect(policy.seen.withLock { $0.sorted() } == [#"["name"] a objects 1 database 1"#, #"["name"] b objects 2 database -1"#])
  }

  @Test("The error type's resolve(constraintConflicts:), called by an override, fails the save with 133021")
  func constraintSuperThrows() throws {
    final class JustSuper: NSMergePolicy, @unchecked Sendable {
      override func resolve(constraintConflicts list: [NSConstraintConflict]) throws {
        try super.resolve(constraintConflicts: list)
      }
    }
    let stack = try StoreStack(model: try UniquenessConstraintTests.model())
    let error = try #require(throws: ObjectGraphError.self) {
      try stack.context.performAndWait {
        stack.context.mergePolicy = JustSuper(merge: .errorMergePolicyType)
        item(stack.context, "a", 1)
        item(stack.context, "a", 2)
        try stack.context.save()
      }
    }
    #expect(error.code == .managedObjectConstraintMerge)
    #expect(error.constraintConflictRecords.first?.conflictingObjectIDs.count == 2)
    #expect(try stack.storedCount("Item") == 0)
  }

  // MARK: - The built-in spellings

  @Test("The five built-in spellings compare, switch and describe as before; a subclass is its own policy")
  func spellings() {
    #expect(NSMergePolicy(merge: .rollbackMergePolicyType) == .rollback)
    #expect(NSMergePolicy.error != .overwrite)
    #expect(LargerCount(merge: .rollbackMergePolicyType) != .rollback)
    #expect(NSMergePolicy.mergeByPropertyObjectTrump.description == "mergeByPropertyObjectTrump")
    let names = [NSMergePolicy.error, .mergeByPropertyStoreTrump, .mergeByPropertyObjectTrump, .overwrite, .rollback].map { policy in
      switch policy {
      case .error: "error"
      case .mergeByPropertyStoreTrump: "store"
      case .mergeByPropertyObjectTrump: "object"
      case .overwrite: "overwrite"
      case .rollback: "rollback"
      default: "custom"
      }
    }
    #expect(names == ["error", "store", "object", "overwrite", "rollback"])
    let context = NSManagedObjectContext(concurrencyType: .privateQueueConcurrencyType)
    #expect(context.mergePolicy as? NSMergePolicy == .error)
    #expect(Set([NSMergePolicy.error, NSMergePolicy(merge: .errorMergePolicyType)]).count == 1)
  }
}
