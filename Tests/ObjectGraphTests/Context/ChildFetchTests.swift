import EngineTestSupport
import Foundation
import TestSupport
import Testing

@testable import ObjectGraph

/// A child context's fetches and counts cost what the root's do, plus work proportional to the pending
/// changes of the contexts in between: the predicate, sort and limit go down to SQLite, and each context
/// lays its unsaved changes over the rows that come back (`PendingOverlay`).
@Suite("Child fetches", .temporaryFolders)
struct ChildFetchTests {
  /// A writer context on a traced SQLite store holding `count` notes (rating `i % 5`, title `n<i>` with
  /// three digits), saved by another context, so the writer itself holds no object yet.
  private func writer(_ log: Locked<[String]>, notes count: Int) throws -> NSManagedObjectContext {
    let stack = try StoreStack(
      model: try Models.notes(), fileName: "Child.sqlite",
      options: [
        NSMigratePersistentStoresAutomaticallyOption: true, NSInferMappingModelAutomaticallyOption: true,
        ObjectGraphSQLTraceOption: { sql in log.withLock { $0.append(sql) } } as @Sendable (String) -> Void,
      ])
    let loader = stack.context
    try loader.performAndWait {
      for index in 0..<count {
        let note = Note(context: loader)
        note.title = String(format: "n%03d", index)
        note.rating = Int64(index % 5)
      }
      try loader.save()
    }
    return stack.freshContext()
  }

  private func child(of parent: NSManagedObjectContext) -> NSManagedObjectContext {
    let context = NSManagedObjectContext(concurrencyType: .privateQueueConcurrencyType)
    context.parent = parent
    return context
  }

  /// Inserts a note, unsaved.
  private func insert(_ title: String, rating: Int64 = 0, in context: NSManagedObjectContext) {
    context.performAndWait {
      let note = Note(context: context)
      note.title = title
      note.rating = rating
    }
  }

  private func registeredCount(_ context: NSManagedObjectContext) -> Int {
    context.performAndWait { context.confined.registry.count }
  }

  /// The `LIMIT`s of the SELECTs on ZNOTE the log holds (nil for a SELECT without one).
  private func noteSelectLimits(_ log: Locked<[String]>) -> [Int?] {
    log.withLock { $0 }.filter { $0.hasPrefix("SELECT") && $0.contains("FROM ZNOTE") && !$0.contains("COUNT(") }.map {
      sql in
      guard let range = sql.range(of: #"LIMIT (\d+)"#, options: .regularExpression) else { return nil }
      return Int(sql[range].dropFirst("LIMIT ".count))
    }
  }

  @Test("A child's count is a COUNT in the store, adjusted for pending changes, and makes no objects in its parent")
  func childCountIsACount() throws {
    let log = Locked<[String]>([])
    let writer = try writer(log, notes: 300)
    let child = child(of: writer)
    let request = NSFetchRequest<Note>(entityName: "Note")
    request.predicate = NSPredicate(format: "rating >= %d", 2)
    log.withLock { $0.removeAll() }
    #expect(try child.performAndWait { try child.count(for: request) } == 180)
    #expect(registeredCount(writer) == 0)
    #expect(log.withLock { $0 }.contains { $0.contains("COUNT(") })
    #expect(noteSelectLimits(log).isEmpty, "no row was read: \(log.withLock { $0 })")

    // Pending changes in the parent and in the child are counted in, still without reading every row.
    try writer.performAndWait {
      let low = NSFetchRequest<Note>(entityName: "Note")
      low.predicate = NSPredicate(format: "title IN %@", ["n000", "n004"])
      low.sortDescriptors = [NSSortDescriptor(key: "title", ascending: true)]
      let notes = try writer.fetch(low)
      notes[0].rating = 3  // now matches
      writer.delete(notes[1])  // matched
      insert("fresh", rating: 4, in: writer)
    }
    insert("mine", rating: 2, in: child)
    insert("other", rating: 0, in: child)
    let before = registeredCount(writer)
    log.withLock { $0.removeAll() }
    #expect(try child.performAndWait { try child.count(for: request) } == 182)
    let offsetRequest = NSFetchRequest<Note>(entityName: "Note")
    offsetRequest.predicate = request.predicate
    offsetRequest.fetchOffset = 170
    offsetRequest.fetchLimit = 5
    #expect(try child.performAndWait { try child.count(for: offsetRequest) } == 5)
    offsetRequest.fetchOffset = 180
    #expect(try child.performAndWait { try child.count(for: offsetRequest) } == 2)
    #expect(registeredCount(writer) == before)
    #expect(noteSelectLimits(log).isEmpty, "no row was read: \(log.withLock { $0 })")
    // The writer's own count takes the same way.
    #expect(try writer.performAndWait { try writer.count(for: request) } == 181)
    #expect(registeredCount(writer) == before)
  }

  @Test("A fetchLimit of 10 with pending inserts in child and parent reads about 10 rows, not the table")
  func limitWithPendingInserts() throws {
    let log = Locked<[String]>([])
    let writer = try writer(log, notes: 500)
    let child = child(of: writer)
    insert("n000a", rating: 0, in: writer)
    insert("n001a", rating: 1, in: child)
    let request = NSFetchRequest<Note>(entityName: "Note")
    request.sortDescriptors = [NSSortDescriptor(key: "title", ascending: true)]
    request.fetchLimit = 10
    log.withLock { $0.removeAll() }
    let titles = try child.performAndWait { try child.fetch(request).compactMap(\.title) }
    #expect(titles == ["n000", "n000a", "n001", "n001a", "n002", "n003", "n004", "n005", "n006", "n007"])
    #expect(registeredCount(writer) <= 2)
    let limits = noteSelectLimits(log)
    #expect(!limits.isEmpty && limits.allSatisfy { ($0 ?? .max) <= 10 }, "\(log.withLock { $0 })")

    // The root itself, with its pending insert, reads no more than its limit either.
    log.withLock { $0.removeAll() }
    let rootTitles = try writer.performAndWait { try writer.fetch(request).compactMap(\.title) }
    #expect(rootTitles == ["n000", "n000a", "n001", "n002", "n003", "n004", "n005", "n006", "n007", "n008"])
    #expect(noteSelectLimits(log).allSatisfy { ($0 ?? .max) <= 10 }, "\(log.withLock { $0 })")

    // An update and a delete in the child widen the read by two rows, and no more.
    try child.performAndWait {
      let first = try child.fetch(request)
      first[0].rating = 4
      child.delete(first[2])
    }
    log.withLock { $0.removeAll() }
    let changed = try child.performAndWait { try child.fetch(request).compactMap(\.title) }
    #expect(changed == ["n000", "n000a", "n001a", "n002", "n003", "n004", "n005", "n006", "n007", "n008"])
    #expect(noteSelectLimits(log).allSatisfy { ($0 ?? .max) <= 12 }, "\(log.withLock { $0 })")
  }

  @Test("A batched fetch in a child makes no objects in its parent and loads its values batch by batch")
  func batchedChildFetch() throws {
    let log = Locked<[String]>([])
    let writer = try writer(log, notes: 100)
    let child = child(of: writer)
    let request = NSFetchRequest<Note>(entityName: "Note")
    request.sortDescriptors = [NSSortDescriptor(key: "title", ascending: true)]
    request.fetchBatchSize = 10
    func loaded(_ notes: [Note]) -> Int { notes.filter { !$0.state.needsLoad }.count }
    try child.performAndWait {
      let notes = try child.fetch(request)
      #expect(notes.count == 100)
      #expect(loaded(notes) == 0)
      #expect(notes[0].title == "n000")
      #expect(loaded(notes) == 10)
      #expect(notes[55].title == "n055")
      #expect(loaded(notes) == 20)
    }
    #expect(registeredCount(writer) == 0)

    // With pending changes in both, only the pending objects come with their values.
    insert("n050a", in: writer)
    try child.performAndWait {
      child.reset()
      let note = Note(context: child)
      note.title = "n020a"
      let notes = try child.fetch(request)
      #expect(notes.count == 102)
      #expect(loaded(notes) <= 2)
      #expect(notes[21].title == "n020a")
      #expect(notes[52].title == "n050a")
      #expect(notes[99].title == "n097")
    }
    #expect(registeredCount(writer) == 1)
  }

  @Test(
    "Objects the parent saved for the child keep the child's temporary IDs, in limited fetches, counts and predicates")
  func twinsAfterParentSave() throws {
    let stack = try StoreStack()
    let writer = stack.context
    try writer.performAndWait {
      for index in 0..<20 {
        let note = Note(context: writer)
        note.title = String(format: "n%03d", index)
        note.rating = Int64(index % 5)
      }
      try writer.save()
    }
    let child = child(of: writer)
    let (first, second) = try child.performAndWait {
      let first = Note(context: child)
      first.title = "c1"
      first.rating = 2
      let second = Note(context: child)
      second.title = "c2"
      second.rating = 3
      try child.save()
      return (first, second)
    }
    try writer.performAndWait { try writer.save() }
    try child.performAndWait {
      #expect(first.objectID.isTemporaryID)
      first.rating = 4
      let request = NSFetchRequest<Note>(entityName: "Note")
      request.predicate = NSPredicate(format: "rating >= %d", 3)
      request.sortDescriptors = [
        NSSortDescriptor(key: "rating", ascending: false), NSSortDescriptor(key: "title", ascending: true),
      ]
      request.fetchLimit = 5
      let top = try child.fetch(request)
      #expect(top.map(\.title) == ["c1", "n004", "n009", "n014", "n019"])
      #expect(top.first === first)
      #expect(try child.count(for: request) == 5)
      request.fetchLimit = 0
      #expect(try child.count(for: request) == 10)
      request.fetchOffset = 8
      let last = try child.fetch(request)
      #expect(last.map(\.title) == ["n013", "n018"])
      #expect(try child.count(for: request) == 2)

      let byID = NSFetchRequest<Note>(entityName: "Note")
      byID.predicate = NSPredicate(format: "SELF IN %@", [first.objectID, second.objectID])
      byID.sortDescriptors = [NSSortDescriptor(key: "title", ascending: true)]
      byID.fetchLimit = 1
      let found = try child.fetch(byID)
      #expect(found.count == 1 && found.first === first)
      byID.fetchLimit = 0
      byID.fetchBatchSize = 1
      let both = try child.fetch(byID)
      #expect(both.count == 2 && both.first === first && both.last === second)
      #expect(try child.count(for: byID) == 2)
    }
  }

  @Test("A grandchild finds an object its grandparent holds under a temporary ID that the child no longer holds")
  func temporaryIDFromGrandparent() throws {
    let stack = try StoreStack()
    let child = child(of: stack.context)
    let id = try child.performAndWait {
      let note = Note(context: child)
      note.title = "up two levels"
      try child.save()
      let id = note.objectID
      child.reset()
      return id
    }
    #expect(id.isTemporaryID)
    let grandchild = self.child(of: child)
    try grandchild.performAndWait {
      let note = try #require(try grandchild.existingObject(with: id) as? Note)
      #expect(note.title == "up two levels")
      let request = NSFetchRequest<Note>(entityName: "Note")
      request.fetchBatchSize = 5
      #expect(try grandchild.fetch(request).map(\.title) == ["up two levels"])
    }
  }
}
