import EngineTestSupport
import Foundation
import Synchronization
import TestSupport
import Testing

@testable import ObjectGraph

/// The in-memory half of the built-in merge types: after `super.resolve(optimisticLockingConflicts:)` a custom
/// policy's objects hold the merged values, and the save writes them.
@Suite("Merge policies: the merge in memory", .temporaryFolders)
struct MergePolicyInMemoryTests {
  /// A note's title, body, rating and notebook name.
  struct Values: Sendable, Equatable, CustomStringConvertible {
    var title: String?
    var body: String?
    var rating: Int64
    var notebook: String?
    var description: String { "\(title ?? "nil"), \(body ?? "nil"), \(rating), \(notebook ?? "nil")" }

    init(_ title: String?, _ body: String?, _ rating: Int64, _ notebook: String?) {
      (self.title, self.body, self.rating, self.notebook) = (title, body, rating, notebook)
    }

    init(_ note: Note) {
      self.init(note.title, note.body, note.rating, note.notebook?.name)
    }
  }

  /// Calls `super`, then records what the objects hold.
  final class Recorder: NSMergePolicy, @unchecked Sendable {
    // Safe: `seen` is a Mutex, and the class has no other stored state.
    let seen = Mutex<[Values]>([])

    override func resolve(optimisticLockingConflicts list: [NSMergeConflict]) throws {
      try super.resolve(optimisticLockingConflicts: list)
      for conflict in list {
        guard let note = conflict.sourceObject as? Note else { continue }
        seen.withLock { $0.append(Values(note)) }
      }
    }
  }

  /// Saves a note ("t0", "b0", 1, in A) and notebook B; another context changes the title, rating and notebook
  /// (to B) and saves; this context changes the title and body and saves under `type`. Returns what the policy
  /// saw after `super`, what the saving context's notebooks hold in memory after the save, and what the store
  /// holds.
  private func conflict(_ type: NSMergePolicyType) throws -> (seen: [Values], inA: Int, inB: Int, stored: Values) {
    let stack = try StoreStack(model: Models.notes())
    let mine = stack.context
    let (noteID, aID, bID) = try mine.performAndWait { () throws -> (NSManagedObjectID, NSManagedObjectID, NSManagedObjectID) in
      let a = Notebook(context: mine)
      a.name = "A"
      let b = Notebook(context: mine)
      b.name = "B"
      let note = Note(context: mine)
      (note.title, note.body, note.rating, note.notebook) = ("t0", "b0", 1, a)
      try mine.save()
      return (note.objectID, a.objectID, b.objectID)
    }
    let theirs = stack.freshContext()
    try theirs.performAndWait { () throws in
      let note = try #require(try theirs.existingObject(with: noteID) as? Note)
      note.title = "theirs"
      note.rating = 5
      note.notebook = try theirs.existingObject(with: bID) as? Notebook
      try theirs.save()
    }
    let policy = Recorder(merge: type)
    let (inA, inB) = try mine.performAndWait { () throws -> (Int, Int) in
      let note = try #require(try mine.existingObject(with: noteID) as? Note)
      note.title = "mine"
      note.body = "mine body"
      mine.mergePolicy = policy
      try mine.save()
      let a = try #require(try mine.existingObject(with: aID) as? Notebook)
      let b = try #require(try mine.existingObject(with: bID) as? Notebook)
      return (a.notes.count, b.notes.count)
    }
    let rows = try stack.stored("Note") { object in
      Values(
        object.value(forKey: "title") as? String, object.value(forKey: "body") as? String,
        object.value(forKey: "rating") as? Int64 ?? -1,
        (object.value(forKey: "notebook") as? NSManagedObject)?.value(forKey: "name") as? String)
    }
    let stored = try #require(rows.first)
    return (policy.seen.withLock { $0 }, inA, inB, stored)
  }

  @Test("mergeByPropertyObjectTrump: the store's changes to other properties reach the object, its own stay")
  func objectTrump() throws {
    let result = try conflict(.mergeByPropertyObjectTrumpMergePolicyType)
    let merged = Values("mine", "mine body", 5, "B")
    #expect(result.seen == [merged])
    #expect(result.stored == merged)
    #expect(result.inA == 0 && result.inB == 1, "the inverse to-many follows the to-one in memory")
  }

  @Test("mergeByPropertyStoreTrump: every property the store changed takes its value; the object's other change stays")
  func storeTrump() throws {
    let result = try conflict(.mergeByPropertyStoreTrumpMergePolicyType)
    let merged = Values("theirs", "mine body", 5, "B")
    #expect(result.seen == [merged])
    #expect(result.stored == merged)
  }

  @Test("overwrite: the object keeps everything it holds, and the save writes it all over the store's changes")
  func overwrite() throws {
    let result = try conflict(.overwriteMergePolicyType)
    let mine = Values("mine", "mine body", 1, "A")
    #expect(result.seen == [mine])
    #expect(result.stored == mine)
    #expect(result.inA == 1 && result.inB == 0)
  }

  @Test("rollback: the object takes the store's values and loses its changes")
  func rollback() throws {
    let result = try conflict(.rollbackMergePolicyType)
    let stored = Values("theirs", "b0", 5, "B")
    #expect(result.seen == [stored])
    #expect(result.stored == stored)
  }
}
