import Dispatch
import EngineTestSupport
import Foundation
import TestSupport
import Testing

@testable import ObjectGraph

/// Counts from many threads; only ever touched under the lock.
final class Counter: @unchecked Sendable {
  private let lock = NSLock()
  private var value = 0
  func increment() { add(1) }
  func add(_ amount: Int) { lock.withLock { value += amount } }
  var count: Int { lock.withLock { value } }
}

@Suite("Concurrency", .temporaryFolders)
struct ConcurrencyTests {
  @Test("On the main queue: perform queues its block, performAndWait runs it at once, nested ones inline")
  @MainActor
  func performOrderOnTheMainQueue() async throws {
    let stack = try StoreStack(type: .inMemory)
    let context = NSManagedObjectContext(concurrencyType: .mainQueueConcurrencyType)
    context.persistentStoreCoordinator = stack.coordinator
    let order = Shared<[String]>([])
    Self.performInOrder(context) { line in order.withLock { $0.append(line) } }
    try await drainMainQueue()
    #expect(
      order.withLock { $0 } == [
        "A: after perform returned", "C: nested performAndWait ran inline", "D: outer performAndWait", "B: the perform block",
      ])
  }

  /// The calls whose order Docs/concurrency-rules.md shows, on the main queue with a main-queue context.
  /// (Not async: in async code, `perform` would be the async one.)
  @MainActor
  static func performInOrder(_ context: NSManagedObjectContext, log: @escaping @Sendable (String) -> Void) {
    context.perform { log("B: the perform block") }
    log("A: after perform returned")
    context.performAndWait {
      context.performAndWait { log("C: nested performAndWait ran inline") }
      log("D: outer performAndWait")
    }
  }

  @Test("Many threads calling perform and performAndWait on one private context at once", arguments: bothStoreTypes)
  func manyThreads(type: NSPersistentStore.StoreType) async throws {
    let stack = try StoreStack(type: type)
    let context = stack.context
    let threads = 16
    let perThread = 50
    let asyncDone = Counter()
    let _: Void = try await Watchdog.callback("\(threads) threads' perform and performAndWait calls to return") { allReturned in
      let group = DispatchGroup()
      for thread in 0..<threads {
        group.enter()
        DispatchQueue.global().async {
          for index in 0..<perThread {
            context.performAndWait {
              let note = Note(context: context)
              note.title = "t\(thread)-\(index)"
              // Re-entrant: a nested performAndWait on the same context runs inline.
              context.performAndWait { note.rating = Int64(index) }
            }
            context.perform {
              let note = Note(context: context)
              note.title = "async \(thread)-\(index)"
              asyncDone.increment()
            }
          }
          group.leave()
        }
      }
      group.notify(queue: .global()) { allReturned(()) }
    }
    // Blocks queued with perform run in order on the context's queue: this one runs after all of them.
    let inserted = try await context.perform { () -> Int in
      try context.save()
      return try context.count(for: NSFetchRequest<Note>(entityName: "Note"))
    }
    #expect(asyncDone.count == threads * perThread)
    #expect(inserted == threads * perThread * 2)
    try stack.expectStored("Note", count: threads * perThread * 2, table: "ZNOTE")
  }

  /// How long the stress test runs: `OBJECTGRAPH_STRESS_SECONDS`, 2 s by default (Docs/ObjectGraph.md, "Reliability: trying to lose data").
  static var stressSeconds: Double { ProcessInfo.processInfo.environment["OBJECTGRAPH_STRESS_SECONDS"].flatMap(Double.init) ?? 2 }

  @Test("32 threads on a tree of contexts (writer, main, workers of both shapes) insert, save and merge: no deadlock, exact counts")
  func stressTree() async throws {
    let stack = try StoreStack()
    let writer = stack.context
    let main = NSManagedObjectContext(concurrencyType: .mainQueueConcurrencyType)
    main.parent = writer
    // Saves of workers beside the main context are merged into it on the main queue, as stage 4 does.
    let besideMain = Locked<Set<ObjectIdentifier>>([])
    let merges = Counter()
    let token = NotificationCenter.default.addObserver(
      forName: NSManagedObjectContext.didSaveObjectIDsNotification, object: nil, queue: nil
    ) {
      notification in
      guard let saver = notification.object as? NSManagedObjectContext, besideMain.withLock({ $0.contains(ObjectIdentifier(saver)) })
      else { return }
      let changes = SavedObjectIDs(notification)
      main.perform {
        main.mergeChanges(fromContextDidSave: changes)
        merges.increment()
      }
    }
    defer { NotificationCenter.default.removeObserver(token) }

    let threads = 32
    let deadline = Date().addingTimeInterval(Self.stressSeconds)
    let inserted = Counter()
    let failures = Locked<[String]>([])
    let _: Void = try await Watchdog.callback(upTo: .seconds(120 + Self.stressSeconds), "32 threads saving through a tree of contexts") {
      allReturned in
      let group = DispatchGroup()
      for thread in 0..<threads {
        group.enter()
        DispatchQueue.global().async {
          defer { group.leave() }
          var round = 0
          while Date() < deadline {
            round += 1
            let childOfMain = (thread + round) % 2 == 0
            let worker = NSManagedObjectContext(concurrencyType: .privateQueueConcurrencyType)
            worker.parent = childOfMain ? main : writer
            if !childOfMain { besideMain.withLock { _ = $0.insert(ObjectIdentifier(worker)) } }
            do {
              try worker.performAndWait {
                for item in 0..<3 {
                  let note = Note(context: worker)
                  note.title = "t\(thread) r\(round) i\(item)"
                }
                if !childOfMain { try worker.obtainPermanentIDs(for: Array(worker.insertedObjects)) }
                try worker.save()
              }
              inserted.add(3)
              if childOfMain { try main.performAndWait { try main.save() } }
              if round % 4 == 0 { try writer.performAndWait { try writer.save() } }
            } catch {
              failures.withLock { $0.append("thread \(thread), round \(round): \(error)") }
            }
            besideMain.withLock { _ = $0.remove(ObjectIdentifier(worker)) }
          }
        }
      }
      group.notify(queue: .global()) { allReturned(()) }
    }
    #expect(failures.withLock { $0 }.isEmpty, "\(failures.withLock { $0 }.prefix(5))")
    // Everything up to the store: the main context's last changes, then the writer's.
    try await main.perform { if main.hasChanges { try main.save() } }
    try await writer.perform { if writer.hasChanges { try writer.save() } }
    try stack.expectStored("Note", count: inserted.count, table: "ZNOTE")
    let inMain = try await main.perform { try main.count(for: NSFetchRequest<Note>(entityName: "Note")) }
    #expect(inMain == inserted.count, "the main context sees every note, merged or saved through it")
    print("stressTree: \(threads) threads, \(Self.stressSeconds) s: \(inserted.count) notes saved, \(merges.count) merges")
  }

  @Test("Two coordinators saving to one file from many queues lose nothing")
  func twoCoordinators() async throws {
    let stack = try StoreStack()
    let (_, other) = try stack.reopened()
    let contexts = [stack.context, other]
    try await withThrowingTaskGroup(of: Void.self) { group in
      for (index, context) in contexts.enumerated() {
        group.addTask {
          for batch in 0..<20 {
            try await context.perform {
              for item in 0..<10 {
                let note = Note(context: context)
                note.title = "c\(index) b\(batch) i\(item)"
              }
              try context.save()
            }
          }
        }
      }
      try await group.waitForAll()
    }
    let rows = try rawRows(stack.storeURL, "SELECT COUNT(*) AS c, COUNT(DISTINCT Z_PK) AS k FROM ZNOTE")[0]
    #expect(rows["c"] as Int == 400)
    #expect(rows["k"] as Int == 400)
  }

  @Test("Calling a context off its queue hops onto the queue, and debug mode reports it", arguments: bothStoreTypes)
  func offQueueCalls(type: NSPersistentStore.StoreType) throws {
    let stack = try StoreStack(type: type)
    // A watch sees this context's violations only, without touching the process-wide switch that the
    // tests running alongside depend on.
    let watch = WatchedViolations(ConcurrencyDebug.Watch(stack.context))
    // Off the queue: counted, and still correct because the call hops onto the queue.
    _ = stack.context.hasChanges
    #expect(watch.violations.count == 1)
    #expect(watch.violations.first?.rule == 3)
    #expect(watch.violations.first?.message.contains("hasChanges") == true)
    // On the queue: no report.
    stack.context.performAndWait { _ = stack.context.hasChanges }
    #expect(watch.violations.count == 1)
  }

  @Test("async perform returns the block's value and rethrows its error", arguments: bothStoreTypes)
  func asyncPerform(type: NSPersistentStore.StoreType) async throws {
    let stack = try StoreStack(type: type)
    let value = await stack.context.perform { 42 }
    #expect(value == 42)
    await #expect(throws: ObjectGraphError.self) {
      try await stack.context.perform {
        _ = Note(context: stack.context)
        try stack.context.save()  // title is required
      }
    }
  }
}
