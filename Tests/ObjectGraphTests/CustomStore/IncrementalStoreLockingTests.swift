import EngineTestSupport
import Foundation
import ObjectGraph
import TestSupport
import Testing

/// A policy of the app's own: keeps the longer of the two names.
final class LongerNamePolicy: NSMergePolicy, @unchecked Sendable {
  override func resolve(optimisticLockingConflicts list: [NSMergeConflict]) throws {
    let stored = list.map { $0.persistedSnapshot?["name"] as? String ?? "" }
    try super.resolve(optimisticLockingConflicts: list)
    for (conflict, storedName) in zip(list, stored) {
      let mine = conflict.sourceObject.value(forKey: "name") as? String ?? ""
      conflict.sourceObject.setValue(mine.count >= storedName.count ? mine : storedName, forKey: "name")
    }
  }
}

@Suite("Custom store classes: NSIncrementalStore optimistic locking", .temporaryFolders)
struct IncrementalStoreLockingTests {
  init() {
    NSPersistentStoreCoordinator.registerStoreClass(PlistIncrementalStore.self, forStoreType: PlistIncrementalStore.typeName)
  }

  /// Two contexts on one store that have both read folder "Inbox" (name and colour); the first then saves
  /// `name` "Renamed" and colour "red", so the second's copy is stale.
  static func staleCopy(_ folder: TemporaryFolder) throws -> (PlistIncrementalStore, NSManagedObjectContext, NSManagedObject, URL) {
    let (url, model) = try IncrementalStoreTests.filled(folder, model: AtomicStoreTests.model(withColour: true))
    let (store, first) = try IncrementalStoreTests.stack(model, at: url)
    let second = NSManagedObjectContext(concurrencyType: .privateQueueConcurrencyType)
    second.persistentStoreCoordinator = store.persistentStoreCoordinator
    let request = NSFetchRequest<NSManagedObject>(entityName: "Folder")
    request.predicate = NSPredicate(format: "name == %@", "Inbox")
    let stale = try second.performAndWait {
      let inbox = try #require(try second.fetch(request).first)
      _ = inbox.value(forKey: "name")
      return inbox
    }
    try first.performAndWait {
      let inbox = try #require(try first.fetch(request).first)
      inbox.setValue("Renamed", forKey: "name")
      inbox.setValue("red", forKey: "colour")
      try first.save()
    }
    return (store, second, stale, url)
  }

  /// The stored folders' names and colours, read through a new stack.
  static func storedFolders(_ url: URL) throws -> [String: String] {
    let (_, context) = try IncrementalStoreTests.stack(AtomicStoreTests.model(withColour: true), at: url)
    return try context.performAndWait {
      let folders = try context.fetch(NSFetchRequest<NSManagedObject>(entityName: "Folder"))
      return Dictionary(
        uniqueKeysWithValues: folders.map { ($0.value(forKey: "name") as? String ?? "", $0.value(forKey: "colour") as? String ?? "") })
    }
  }

  @Test("The error policy: the stale save fails with 133020, an NSMergeConflict in conflictList, and nothing written")
  func errorPolicy() throws {
    let (store, context, stale, url) = try Self.staleCopy(TemporaryFolder())
    let saves = store.count(of: "save")
    let error = context.performAndWait { () -> NSError? in
      stale.setValue("Mine", forKey: "name")
      do {
        try context.save()
        return nil
      } catch { return error as NSError }
    }
    let found = try #require(error)
    #expect(found.domain == NSCocoaErrorDomain)
    #expect(found.code == NSManagedObjectMergeError)
    let conflicts = try #require(found.userInfo[NSPersistentStoreSaveConflictsErrorKey] as? [NSMergeConflict])
    #expect(conflicts.count == 1)
    #expect(conflicts.first?.sourceObject === stale)
    #expect(conflicts.first?.oldVersionNumber == 1)
    #expect(conflicts.first?.newVersionNumber == 2)
    #expect(conflicts.first?.persistedSnapshot?["name"] as? String == "Renamed")
    #expect(store.count(of: "save") == saves)
    #expect(context.performAndWait { context.hasChanges })
    #expect(try Self.storedFolders(url)["Renamed"] == "red")
  }

  @Test(
    "Each built-in policy settles the conflict as it does for a SQLite store",
    arguments: [
      (NSMergePolicyType.mergeByPropertyObjectTrumpMergePolicyType, "Mine", "red"),
      (.mergeByPropertyStoreTrumpMergePolicyType, "Renamed", "red"),
      (.rollbackMergePolicyType, "Renamed", "red"),
      (.overwriteMergePolicyType, "Mine", ""),
    ])
  func builtInPolicies(type: NSMergePolicyType, name: String, colour: String) throws {
    let (store, context, stale, url) = try Self.staleCopy(TemporaryFolder())
    try context.performAndWait {
      context.mergePolicy = NSMergePolicy(merge: type)
      stale.setValue("Mine", forKey: "name")
      try context.save()
      #expect(stale.value(forKey: "name") as? String == name)
      #expect(!context.hasChanges)
    }
    #expect(try Self.storedFolders(url)[name] == colour, "\(type)")
    // The version the context now holds is the stored one: a second change saves without a conflict.
    try context.performAndWait {
      stale.setValue("Again", forKey: "name")
      context.mergePolicy = NSMergePolicy.error
      try context.save()
    }
    #expect(try Self.storedFolders(url).keys.contains("Again"))
    _ = store
  }

  @Test("An NSMergePolicy subclass is handed the conflict and its choice is written")
  func subclassPolicy() throws {
    let (_, context, stale, url) = try Self.staleCopy(TemporaryFolder())
    try context.performAndWait {
      context.mergePolicy = LongerNamePolicy(merge: .mergeByPropertyObjectTrumpMergePolicyType)
      stale.setValue("Me", forKey: "name")
      try context.save()
    }
    #expect(try Self.storedFolders(url)["Renamed"] == "red")
  }

  @Test("A delete of a changed object: refused under error, kept under store trump, done under object trump")
  func deleteConflicts() throws {
    for (policy, kept) in [(NSMergePolicy.error, true), (.mergeByPropertyStoreTrump, true), (.mergeByPropertyObjectTrump, false)] {
      let (_, context, stale, url) = try Self.staleCopy(TemporaryFolder())
      let error = context.performAndWait { () -> NSError? in
        context.mergePolicy = policy
        context.delete(stale)
        do {
          try context.save()
          return nil
        } catch { return error as NSError }
      }
      #expect((error?.code == NSManagedObjectMergeError) == (policy == .error), "\(policy)")
      #expect(try Self.storedFolders(url).keys.contains("Renamed") == kept, "\(policy)")
      if policy == .mergeByPropertyStoreTrump {
        context.performAndWait {
          #expect(!stale.isDeleted)
          #expect(stale.value(forKey: "name") as? String == "Renamed")
        }
      }
    }
  }

  @Test("An update of an object deleted in the store fails with 133020 under every policy; a subclass's node version is what is compared")
  func updateOfDeletedRow() throws {
    let (url, model) = try IncrementalStoreTests.filled(TemporaryFolder(), model: AtomicStoreTests.model(withColour: true))
    let (store, first) = try IncrementalStoreTests.stack(model, at: url)
    let second = NSManagedObjectContext(concurrencyType: .privateQueueConcurrencyType)
    second.persistentStoreCoordinator = store.persistentStoreCoordinator
    let request = NSFetchRequest<NSManagedObject>(entityName: "Note")
    request.predicate = NSPredicate(format: "title == %@", "d")
    let stale = try second.performAndWait {
      let note = try #require(try second.fetch(request).first)
      _ = note.value(forKey: "title")
      return note
    }
    try first.performAndWait {
      first.delete(try #require(try first.fetch(request).first))
      try first.save()
    }
    let error = second.performAndWait { () -> NSError? in
      second.mergePolicy = NSMergeByPropertyObjectTrumpMergePolicy
      stale.setValue("D", forKey: "title")
      do {
        try second.save()
        return nil
      } catch { return error as NSError }
    }
    #expect(error?.code == NSManagedObjectMergeError)
    let conflict = (error?.userInfo[NSPersistentStoreSaveConflictsErrorKey] as? [NSMergeConflict])?.first
    #expect(conflict?.newVersionNumber == 0)
  }

  @Test("Saves without conflicts still go through: each save moves the version by one, as Apple asks of a store")
  func noConflictVersions() throws {
    let (url, model) = try IncrementalStoreTests.filled(TemporaryFolder())
    let (store, context) = try IncrementalStoreTests.stack(model, at: url)
    try context.performAndWait {
      let notes = try context.fetch(NSFetchRequest<NSManagedObject>(entityName: "Note"))
      for round in 1...3 {
        for note in notes { note.setValue("r\(round)-\(note.objectID.hashValue)", forKey: "title") }
        try context.save()
      }
    }
    #expect(store.count(of: "save") == 3)
  }

  @Test("A store that cannot read a node at the version check fails the save with its error; nothing is written, the changes stay")
  func versionCheckFails() throws {
    let (url, model) = try IncrementalStoreTests.filled(TemporaryFolder())
    let (store, context) = try IncrementalStoreTests.stack(model, at: url)
    try context.performAndWait {
      let request = NSFetchRequest<NSManagedObject>(entityName: "Folder")
      request.predicate = NSPredicate(format: "name == %@", "Inbox")
      let inbox = try #require(try context.fetch(request).first)
      inbox.setValue("Changed", forKey: "name")
      store.failingValues.withLock { $0 = true }
      var failure: NSError?
      do { try context.save() } catch { failure = error as NSError }
      store.failingValues.withLock { $0 = false }
      #expect(failure?.domain == "PlistIncrementalStore")
      #expect(failure?.code == 8)
      #expect(store.count(of: "save") == 0)
      #expect(context.hasChanges)
      try context.save()
      #expect(store.count(of: "save") == 1)
    }
    #expect(try AtomicStoreTests.titles(try IncrementalStoreTests.stack(AtomicStoreTests.model(), at: url).1).count == 4)
  }
}
