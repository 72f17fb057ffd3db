import EngineTestSupport
import Foundation
import GRDB
import TestSupport
import Testing

@testable import ObjectGraph

/// Query generations (`setQueryGenerationFrom(_:)`, `queryGenerationToken`, `NSQueryGenerationToken`): a
/// pinned context reads a stable snapshot of the store, in fetches, counts and faults, until it moves on.
@Suite("Query generations", .temporaryFolders)
struct QueryGenerationTests {
  // MARK: - Helpers

  /// A stack whose store holds the notes "one", "two" and "three" in a notebook "N", saved.
  static func seeded(type: NSPersistentStore.StoreType = .sqlite, journalMode: String? = nil) throws -> StoreStack {
    let stack =
      journalMode == nil
      ? try StoreStack(type: type)
      : try StoreStack(model: try Models.notes(), type: type, journalMode: journalMode)
    try stack.context.performAndWait {
      let notebook = Notebook(context: stack.context)
      notebook.name = "N"
      for title in ["one", "two", "three"] {
        let note = Note(context: stack.context)
        note.title = title
        note.notebook = notebook
      }
      try stack.context.save()
      stack.context.reset()
    }
    return stack
  }

  /// The titles `context` fetches, sorted.
  static func titles(_ context: NSManagedObjectContext) throws -> [String] {
    try context.performAndWait {
      try context.fetch(NSFetchRequest<Note>()).compactMap(\.title).sorted()
    }
  }

  /// How many notes `context` counts.
  static func count(_ context: NSManagedObjectContext) throws -> Int {
    try context.performAndWait { try context.count(for: NSFetchRequest<Note>()) }
  }

  /// `context` inserts a note titled `title` and saves.
  static func insert(_ title: String, in context: NSManagedObjectContext) throws {
    try context.performAndWait {
      let note = Note(context: context)
      note.title = title
      try context.save()
    }
  }

  /// `context` retitles the note titled `old` to `new`, deletes the one titled `deleted` (if given), and saves.
  static func change(_ old: String, to new: String, deleting deleted: String? = nil, in context: NSManagedObjectContext) throws {
    try context.performAndWait {
      let notes = try context.fetch(NSFetchRequest<Note>())
      try #require(notes.first { $0.title == old }).title = new
      if let deleted, let gone = notes.first(where: { $0.title == deleted }) { context.delete(gone) }
      try context.save()
    }
  }

  /// `context` pinned to the current generation, which it takes at once (a count is a read).
  static func pinned(_ context: NSManagedObjectContext) throws -> NSManagedObjectContext {
    try context.setQueryGenerationFrom(.current)
    _ = try count(context)
    return context
  }

  // MARK: - Fetches, counts and faults see a stable snapshot

  @Test("A pinned context's fetches and counts do not see another context's later saves, on its coordinator or another")
  func fetchesAndCountsStayPinned() throws {
    let stack = try Self.seeded()
    let pinned = try Self.pinned(stack.freshContext())
    let sameCoordinator = stack.freshContext()
    let (otherCoordinator, otherContext) = try stack.reopened()

    try Self.insert("four", in: sameCoordinator)
    try Self.change("one", to: "uno", deleting: "two", in: otherContext)

    #expect(try Self.titles(pinned) == ["one", "three", "two"])
    #expect(try Self.count(pinned) == 3)
    // A predicate, a dictionary fetch and a count with a predicate read the same generation.
    try pinned.performAndWait { () throws in
      let request = NSFetchRequest<Note>()
      request.predicate = NSPredicate(format: "title == %@", "uno")
      #expect(try pinned.fetch(request).isEmpty)
      #expect(try pinned.count(for: request) == 0)
      let dictionaries = NSFetchRequest<NSDictionary>(entityName: "Note")
      dictionaries.resultType = .dictionaryResultType
      dictionaries.propertiesToFetch = ["title"]
      #expect(try pinned.fetch(dictionaries).count == 3)
    }
    // Unpinned contexts see everything.
    #expect(try Self.titles(stack.freshContext()) == ["four", "three", "uno"])
    withExtendedLifetime(otherCoordinator) {}
  }

  @Test("A pinned context's faults (attributes and to-many relationships) fire with the generation's rows")
  func faultsStayPinned() throws {
    let stack = try Self.seeded()
    let pinned = try Self.pinned(stack.freshContext())
    let (otherCoordinator, other) = try stack.reopened()
    try pinned.performAndWait {
      let request = NSFetchRequest<Note>()
      request.sortDescriptors = [NSSortDescriptor(key: "title", ascending: true)]
      // Faults without values: firing one reads its row from the store then.
      request.includesPropertyValues = false
      let notes = try pinned.fetch(request)
      #expect(notes.allSatisfy { $0.isFault })
      let notebookID = try #require(try pinned.fetch(NSFetchRequest<Notebook>()).first).objectID

      // Elsewhere: "one" retitled, "two" deleted, a fourth note added to the notebook.
      try Self.change("one", to: "uno", deleting: "two", in: other)
      try other.performAndWait {
        let notebook = try #require(try other.fetch(NSFetchRequest<Notebook>()).first)
        let note = Note(context: other)
        note.title = "four"
        note.notebook = notebook
        try other.save()
      }

      #expect(notes.map(\.title) == ["one", "three", "two"])
      // The deleted note's fault still fires: its row is in the generation.
      #expect(notes[2].title == "two" && !notes[2].isDeleted)
      let notebook = try #require(try pinned.existingObject(with: notebookID) as? Notebook)
      #expect(notebook.notes.compactMap(\.title).sorted() == ["one", "three", "two"])
    }
    withExtendedLifetime(otherCoordinator) {}
  }

  @Test("setQueryGenerationFrom(.current) pins at the next read, not at the call; the token is current until then")
  func pinsLazily() throws {
    let stack = try Self.seeded()
    let context = stack.freshContext()
    #expect(context.queryGenerationToken == nil)
    try context.setQueryGenerationFrom(.current)
    #expect(context.queryGenerationToken == NSQueryGenerationToken.current)
    try Self.insert("four", in: stack.context)
    // The first read takes the generation: it includes the save made after the call.
    #expect(try Self.count(context) == 4)
    let token = try #require(context.queryGenerationToken)
    #expect(token != NSQueryGenerationToken.current)
    try Self.insert("five", in: stack.context)
    #expect(try Self.count(context) == 4)
    #expect(context.queryGenerationToken == token)
  }

  @Test("A second context set from a pinned context's token reads the same generation")
  func sharedToken() throws {
    let stack = try Self.seeded()
    let first = try Self.pinned(stack.freshContext())
    try Self.insert("four", in: stack.context)
    let token = try #require(first.queryGenerationToken)
    let second = stack.freshContext()
    try second.setQueryGenerationFrom(token)
    #expect(second.queryGenerationToken == token)
    #expect(try Self.count(second) == 3)
    // The generation outlives the first context's pin while the second holds it.
    try first.setQueryGenerationFrom(nil)
    #expect(try Self.count(first) == 4)
    #expect(try Self.count(second) == 3)
  }

  // MARK: - Moving on

  @Test("Setting .current again, or nil, moves a pinned context on; refreshAllObjects() then brings its objects along")
  func movesOn() throws {
    let stack = try Self.seeded()
    let pinned = try Self.pinned(stack.freshContext())
    let note = try pinned.performAndWait {
      let request = NSFetchRequest<Note>()
      request.predicate = NSPredicate(format: "title == %@", "one")
      let note = try #require(try pinned.fetch(request).first)
      _ = note.title
      return ObjectIDBox(id: note.objectID)
    }
    try Self.change("one", to: "uno", in: stack.context)
    #expect(try Self.titles(pinned) == ["one", "three", "two"])

    try pinned.setQueryGenerationFrom(.current)
    try pinned.performAndWait {
      let object = try #require(try pinned.existingObject(with: note.id) as? Note)
      // An object already fired keeps its values until it is refreshed, as Core Data's documentation says.
      #expect(object.title == "one")
      pinned.refreshAllObjects()
      #expect(object.title == "uno")
    }
    try Self.insert("four", in: stack.context)
    #expect(try Self.count(pinned) == 3)
    try pinned.setQueryGenerationFrom(nil)
    #expect(pinned.queryGenerationToken == nil)
    #expect(try Self.count(pinned) == 4)
    try Self.insert("five", in: stack.context)
    #expect(try Self.count(pinned) == 5)
  }

  @Test("Merging a did-save notification and reset() move a pinned context to the newest generation; refreshAllObjects() does not")
  func mergeAndResetMoveOn() throws {
    let stack = try Self.seeded()
    let pinned = try Self.pinned(stack.freshContext())
    let saver = stack.freshContext()
    let saved = NotificationLog(NSManagedObjectContext.didSaveObjectIDsNotification, object: saver) { SavedObjectIDs($0) }
    try Self.insert("four", in: saver)

    // refreshAllObjects() refreshes within the generation: Core Data lists it among the ways to bring
    // objects up to a generation, not among those that change it.
    pinned.performAndWait { pinned.refreshAllObjects() }
    #expect(try Self.count(pinned) == 3)

    let changes = try #require(saved.entries.first)
    pinned.performAndWait { pinned.mergeChanges(fromContextDidSave: changes) }
    #expect(try Self.count(pinned) == 4)
    #expect(pinned.queryGenerationToken != nil)

    try Self.insert("five", in: saver)
    #expect(try Self.count(pinned) == 4)
    pinned.performAndWait { pinned.reset() }
    #expect(try Self.count(pinned) == 5)
    try Self.insert("six", in: saver)
    #expect(try Self.count(pinned) == 5)

    // mergeChanges(fromRemoteContextSave:into:) too.
    NSManagedObjectContext.mergeChanges(fromRemoteContextSave: [NSInsertedObjectsKey: [NSManagedObjectID]()], into: [pinned])
    #expect(try Self.count(pinned) == 6)
  }

  @Test("Automatic merges move a pinned context along with every save it merges")
  func automaticMergesMoveOn() async throws {
    let stack = try Self.seeded()
    let pinned = try Self.pinned(stack.freshContext())
    pinned.automaticallyMergesChangesFromParent = true
    try Self.insert("four", in: stack.context)
    // The merge was queued on the pinned context's queue while the save posted its notification: a block
    // queued now runs after it.
    await pinned.perform {}
    #expect(try Self.count(pinned) == 4)
  }

  // MARK: - Saving

  @Test("A pinned context saves to the latest data and then reads the generation right after its save")
  func savingFromPinned() throws {
    let stack = try Self.seeded()
    let pinned = try Self.pinned(stack.freshContext())
    let before = try #require(pinned.queryGenerationToken)
    try Self.insert("four", in: stack.context)
    let saved = NotificationLog(NSManagedObjectContext.didSaveObjectsNotification, object: pinned) {
      $0.userInfo?[NSManagedObjectContextQueryGenerationKey] as? NSQueryGenerationToken
    }
    try Self.insert("five", in: pinned)

    let after = try #require(pinned.queryGenerationToken)
    #expect(after != before)
    #expect(after != NSQueryGenerationToken.current)
    // Its own save and the one before it, nothing later.
    #expect(try Self.count(pinned) == 5)
    #expect(saved.entries == [after])
    try Self.insert("six", in: stack.context)
    #expect(try Self.count(pinned) == 5)
    // Another context can take the generation the save made.
    let follower = stack.freshContext()
    try follower.setQueryGenerationFrom(after)
    #expect(try Self.count(follower) == 5)
    // An unpinned context's did-save carries no token.
    let plain = NotificationLog(NSManagedObjectContext.didSaveObjectsNotification, object: stack.context) {
      $0.userInfo?[NSManagedObjectContextQueryGenerationKey] == nil ? "no token" : "a token"
    }
    try Self.insert("seven", in: stack.context)
    #expect(plain.entries == ["no token"])
  }

  @Test("A pinned context's save is checked against the store's latest rows: a row changed since its generation conflicts")
  func pinnedSaveConflicts() throws {
    let stack = try Self.seeded()
    let pinned = try Self.pinned(stack.freshContext())
    let (otherCoordinator, other) = try stack.reopened()
    try pinned.performAndWait {
      let request = NSFetchRequest<Note>()
      request.predicate = NSPredicate(format: "title == %@", "one")
      let note = try #require(try pinned.fetch(request).first)
      _ = note.title
      try Self.change("one", to: "uno", in: other)
      note.body = "mine"
      let error = try #require(throws: ObjectGraphError.self) { try pinned.save() }
      #expect(error.code == .managedObjectMerge)
      pinned.mergePolicy = NSMergePolicy.mergeByPropertyObjectTrump
      try pinned.save()
    }
    #expect(try stack.stored("Note", sortedBy: "title") { $0.value(forKey: "body") as? String }.contains("mine"))
    withExtendedLifetime(otherCoordinator) {}
  }

  @Test("Batch requests do not move a pinned context")
  func batchRequestsDoNotMoveOn() throws {
    let stack = try Self.seeded()
    let pinned = try Self.pinned(stack.freshContext())
    let token = pinned.queryGenerationToken
    try pinned.performAndWait {
      let update = NSBatchUpdateRequest(entityName: "Note")
      update.propertiesToUpdate = ["body": "batched"]
      _ = try pinned.execute(update)
      let request = NSFetchRequest<Note>()
      request.predicate = NSPredicate(format: "body == %@", "batched")
      #expect(try pinned.count(for: request) == 0)
    }
    #expect(pinned.queryGenerationToken == token)
  }

  // MARK: - Nested contexts

  @Test("A child context reads through its parent's generation, with the parent's pending changes, and has no token")
  func childReadsThroughParent() throws {
    let stack = try Self.seeded()
    let parent = try Self.pinned(stack.freshContext())
    try Self.insert("four", in: stack.context)
    parent.performAndWait {
      let note = Note(context: parent)
      note.title = "pending"
    }
    let child = NSManagedObjectContext(concurrencyType: .privateQueueConcurrencyType)
    child.parent = parent
    #expect(try Self.titles(child) == ["one", "pending", "three", "two"])
    #expect(child.queryGenerationToken == nil)
    // Unpinning a child is allowed (children are implicitly unpinned) and changes nothing.
    try child.setQueryGenerationFrom(nil)
    #expect(try Self.count(child) == 4)
  }

  @Test("Pinning a child context stops the program, as Core Data calls it a programmer error")
  func pinningChildStops() async throws {
    let folder = try TemporaryFolder()
    let stopped = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
      [folder = folder as TemporaryFolder] in
      let stack = try StoreStack(folder: folder)
      let child = NSManagedObjectContext(concurrencyType: .privateQueueConcurrencyType)
      child.parent = stack.context
      try child.setQueryGenerationFrom(.current)
    }
    let said = String(decoding: stopped?.standardErrorContent ?? [], as: UTF8.self)
    #expect(said.contains("cannot be pinned itself"), "it printed: \(said)")
  }

  // MARK: - Stores without generations, and errors

  @Test(
    "In-memory, binary and rollback-journal stores: pinning succeeds and reads fall back to the latest data",
    arguments: ["inMemory", "binary", "delete"])
  func storesWithoutGenerations(kind: String) throws {
    let stack: StoreStack =
      switch kind {
      case "inMemory": try Self.seeded(type: .inMemory)
      case "binary": try Self.seeded(type: .binary)
      default: try Self.seeded(journalMode: "DELETE")
      }
    let pinned = try Self.pinned(stack.freshContext())
    let token = try #require(pinned.queryGenerationToken)
    #expect(token != NSQueryGenerationToken.current)
    try Self.insert("four", in: stack.context)
    #expect(try Self.count(pinned) == 4)
    #expect(try Self.titles(pinned) == ["four", "one", "three", "two"])
    #expect(pinned.queryGenerationToken == token)
  }

  @Test("A token whose generation has ended, or from another coordinator, is refused with 134070; the context stays as it was")
  func refusedTokens() throws {
    let stack = try Self.seeded()
    let first = try Self.pinned(stack.freshContext())
    let token = try #require(first.queryGenerationToken)
    try first.setQueryGenerationFrom(nil)
    let context = stack.freshContext()
    let ended = try #require(throws: ObjectGraphError.self) { try context.setQueryGenerationFrom(token) }
    #expect(ended.code == .persistentStoreOperation)
    #expect(ended.code == 134070)
    #expect(ended.message.contains("has ended"))
    #expect(context.queryGenerationToken == nil)

    let (otherCoordinator, other) = try stack.reopened()
    let foreign = try #require(try Self.pinned(other).queryGenerationToken)
    let refused = try #require(throws: ObjectGraphError.self) { try context.setQueryGenerationFrom(foreign) }
    #expect(refused.code == .persistentStoreOperation)
    #expect(refused.message.contains("another coordinator"))

    let loose = NSManagedObjectContext(concurrencyType: .privateQueueConcurrencyType)
    let noStore = try #require(throws: ObjectGraphError.self) { try loose.setQueryGenerationFrom(.current) }
    #expect(noStore.code == .noPersistentStore)
    try loose.setQueryGenerationFrom(nil)
    withExtendedLifetime(otherCoordinator) {}
  }

  @Test("A store opened read-only (an extension reading the app's store) is pinned too")
  func readOnlyStore() throws {
    let stack = try Self.seeded()
    var options = StoreStack.migratingOptions
    options[NSReadOnlyPersistentStoreOption] = true
    let reader = try StoreStack(model: stack.model, at: stack.storeURL, options: options)
    let pinned = try Self.pinned(reader.context)
    try Self.insert("four", in: stack.context)
    #expect(try Self.count(pinned) == 3)
    #expect(try Self.count(reader.freshContext()) == 4)
  }

  @Test("A store added after the generation was made is not read in it")
  func laterStoresAreNotInTheGeneration() throws {
    let folder = try TemporaryFolder()
    let stack = try StoreStack(folder: folder)
    try Self.insert("first store", in: stack.context)
    // A second file with one note, made apart and closed.
    let secondURL = folder.appending("Second.sqlite")
    do {
      let second = try StoreStack(model: stack.model, at: secondURL)
      try Self.insert("second store", in: second.context)
      try second.close()
    }
    let pinned = try Self.pinned(stack.freshContext())
    try stack.coordinator.addPersistentStore(type: .sqlite, at: secondURL, options: StoreStack.migratingOptions)
    #expect(try Self.titles(pinned) == ["first store"])
    #expect(try Self.titles(stack.freshContext()) == ["first store", "second store"])
    try pinned.setQueryGenerationFrom(.current)
    #expect(try Self.titles(pinned) == ["first store", "second store"])
  }

  // MARK: - Tokens

  @Test("Tokens are equatable, hashable, copyable, Sendable and archive with NSSecureCoding")
  func tokens() async throws {
    let stack = try Self.seeded()
    let pinned = try Self.pinned(stack.freshContext())
    let token = try #require(pinned.queryGenerationToken)
    #expect(NSQueryGenerationToken.current == NSQueryGenerationToken.current)
    #expect(token != NSQueryGenerationToken.current)
    #expect(token.copy() as? NSQueryGenerationToken === token)
    #expect(Set([token, token, NSQueryGenerationToken.current]).count == 2)
    #expect("\(NSQueryGenerationToken.current)" == "<NSQueryGenerationToken current>")
    #expect("\(token)".contains(stack.store.identifier))

    for original in [token, NSQueryGenerationToken.current] {
      let data = try NSKeyedArchiver.archivedData(withRootObject: original, requiringSecureCoding: true)
      let decoded = try #require(try NSKeyedUnarchiver.unarchivedObject(ofClass: NSQueryGenerationToken.self, from: data))
      #expect(decoded == original)
    }
    // Sendable: a token crosses to another task and pins a context there.
    let other = stack.freshContext()
    let count = try await Task.detached { [token] in
      try other.setQueryGenerationFrom(token)
      return try Self.count(other)
    }.value
    #expect(count == 3)
  }

  // MARK: - What a generation costs, and its end

  @Test("A generation holds the write-ahead log until the last context pinned to it moves on")
  func generationHoldsTheLog() throws {
    let stack = try Self.seeded()
    let pinned = try Self.pinned(stack.freshContext())
    for title in ["four", "five"] { try Self.insert(title, in: stack.context) }
    #expect(QueryGeneration.alive(of: stack.coordinator).count == 1)
    // A checkpoint that would empty the log cannot get past the generation's reader (and, asked not to
    // wait, says so at once instead of blocking).
    #expect(try Self.truncatingCheckpoint(stack.storeURL) == false)
    try pinned.setQueryGenerationFrom(nil)
    #expect(QueryGeneration.alive(of: stack.coordinator).isEmpty)
    #expect(try Self.truncatingCheckpoint(stack.storeURL) == true)
  }

  /// Runs `PRAGMA wal_checkpoint(TRUNCATE)` on a connection of its own that does not wait for locks;
  /// whether it checkpointed the whole log and emptied it.
  static func truncatingCheckpoint(_ url: URL) throws -> Bool {
    var configuration = Configuration()
    configuration.busyMode = .immediateError
    let queue = try DatabaseQueue(path: url.path, configuration: configuration)
    defer { try? queue.close() }
    let row = try queue.writeWithoutTransaction { db in try Row.fetchOne(db, sql: "PRAGMA wal_checkpoint(TRUNCATE)") }
    return (row?[0] as Int?) == 0
  }

  @Test("Removing the store ends the generations' snapshots of it")
  func removingTheStoreEndsSnapshots() throws {
    let stack = try Self.seeded()
    let pinned = try Self.pinned(stack.freshContext())
    let generation = try #require(QueryGeneration.alive(of: stack.coordinator).first)
    #expect(generation.hasSnapshots)
    try stack.close()
    #expect(!generation.hasSnapshots)
    #expect(throws: ObjectGraphError.self) { try Self.count(pinned) }
  }

  // MARK: - Many threads

  @Test("Pinned contexts on many queues each read one unchanging count while a writer keeps saving")
  func manyThreads() throws {
    let stack = try Self.seeded()
    let writer = stack.freshContext()
    let done = Locked(false)
    let writes = DispatchGroup()
    DispatchQueue.global().async(group: writes) {
      var index = 0
      while !done.withLock({ $0 }) && index < 400 {
        try? Self.insert("w\(index)", in: writer)
        index += 1
      }
    }
    let failures = Locked<[String]>([])
    DispatchQueue.concurrentPerform(iterations: 8) { worker in
      do {
        let context = stack.freshContext()
        for round in 0..<6 {
          try context.setQueryGenerationFrom(.current)
          let first = try Self.count(context)
          for _ in 0..<5 {
            let again = try Self.count(context)
            let titles = try Self.titles(context).count
            if again != first || titles != first {
              failures.withLock { $0.append("worker \(worker) round \(round): \(first), then \(again) and \(titles)") }
            }
          }
        }
        try context.setQueryGenerationFrom(nil)
      } catch {
        failures.withLock { $0.append("worker \(worker): \(error)") }
      }
    }
    done.withLock { $0 = true }
    writes.wait()
    #expect(failures.withLock { $0 }.isEmpty, "\(failures.withLock { $0 })")
    #expect(QueryGeneration.alive(of: stack.coordinator).isEmpty)
  }
}

/// An object ID carried out of a `performAndWait` block.
private struct ObjectIDBox: Sendable {
  let id: NSManagedObjectID
}

/// A pinned context in one process while another process saves to the same store (`objectgraph-torture
/// query-generation`): in WAL mode it does not see the other process's saves until it moves on; in
/// rollback-journal mode, without generations, it sees them at once.
@Suite("Query generations: two processes, one store", .timeLimit(.minutes(2)))
struct QueryGenerationTwoProcessTests {
  @Test("5 saves by the other process, in both journal modes")
  func pinnedAcrossProcesses() throws {
    let run = try ProcessOutput.run(
      try BuildProducts.requireExecutable("objectgraph-torture"), ["query-generation", "--saves", "5", "--journal", "both"])
    #expect(run.status == 0, "\(run.stdout)\(run.stderr)")
    #expect(
      run.stdout.contains(
        "WAL: pinned before the other process's 5 saves: 1 note(s); after them the pinned context counts 1 and fetches 1, an unpinned one counts 6; moved on, it fetches 6"
      ), "\(run.stdout)")
    #expect(
      run.stdout.contains(
        "DELETE: pinned before the other process's 5 saves: 1 note(s); after them the pinned context counts 6 and fetches 6, an unpinned one counts 6; moved on, it fetches 6"
      ), "\(run.stdout)")
  }
}
