import EngineTestSupport
import Foundation
import TestSupport
import Testing

@testable import ObjectGraph

/// `NSAsynchronousFetchRequest` run with `execute(_:)`: the result comes back at once, the fetch runs on the
/// context's queue afterwards and hands its result to the completion block there; progress, cancellation
/// (before it runs, through the result or its progress) and failures reach the block too.
@Suite("Asynchronous fetches")
struct AsynchronousFetchTests {
  /// An in-memory stack with `count` saved notes, "Note 0", "Note 1", …
  private func stack(notes count: Int, contextType: NSManagedObjectContext.ConcurrencyType = .privateQueue) throws -> StoreStack {
    let stack = try StoreStack(model: try Models.notes(), type: .inMemory, contextType: contextType)
    let writer = stack.freshContext()
    try writer.performAndWait {
      for index in 0..<count {
        let note = Note(context: writer)
        note.title = "Note \(index)"
        note.rating = Int64(index)
      }
      try writer.save()
    }
    return stack
  }

  /// What a completion block saw, copied out of the context's queue.
  private struct Outcome: Sendable {
    var titles: [String]?
    var errorCode: Int?
    var errorDomain: String?
    var onQueue = false
    var completed: Int64 = 0
  }

  /// Executes `request`'s asynchronous form on `context`, runs `afterExecute` with the returned result in the
  /// same block (before the fetch can run), and waits for the completion block.
  private func run(
    _ request: NSFetchRequest<Note>, on context: NSManagedObjectContext,
    afterExecute: @escaping @Sendable (NSAsynchronousFetchResult<Note>) -> Void = { _ in }
  ) async throws -> Outcome {
    try await withCheckedThrowingContinuation { (done: CheckedContinuation<Outcome, any Error>) in
      do {
        try context.performAndWait {
          let asynchronous = NSAsynchronousFetchRequest(fetchRequest: request) { result in
            let error = result.operationError.map { $0 as NSError }
            done.resume(
              returning: Outcome(
                titles: result.finalResult?.map { $0.title ?? "" }, errorCode: error?.code, errorDomain: error?.domain,
                onQueue: context.isOnQueue, completed: result.progress?.completedUnitCount ?? -1))
          }
          let started = try context.execute(asynchronous)
          let result = started as? NSAsynchronousFetchResult<Note>
          #expect(result != nil, "execute(_:) returned \(type(of: started))")
          guard let result else { return }
          // execute(_:) returned before the fetch ran: nothing yet.
          #expect(result.finalResult == nil && result.operationError == nil)
          #expect(result.managedObjectContext === context)
          #expect(result.fetchRequest === asynchronous)
          afterExecute(result)
        }
      } catch {
        done.resume(throwing: error)
      }
    }
  }

  private func sortedNotes() -> NSFetchRequest<Note> {
    let request = NSFetchRequest<Note>(entityName: "Note")
    request.sortDescriptors = [NSSortDescriptor(key: "rating", ascending: true)]
    return request
  }

  @Test("The completion block gets the fetched objects on the context's queue, with the progress completed")
  func fetchesOnTheContextQueue() async throws {
    let stack = try stack(notes: 3)
    let outcome = try await run(sortedNotes(), on: stack.context)
    #expect(outcome.titles == ["Note 0", "Note 1", "Note 2"])
    #expect(outcome.errorCode == nil)
    #expect(outcome.onQueue)
    #expect(outcome.completed == 1)
    // The objects are the context's own: a later fetch there returns the same instances.
    let same = try stack.context.performAndWait { try stack.context.fetch(sortedNotes()).map(\.title) }
    #expect(same == ["Note 0", "Note 1", "Note 2"])
  }

  @Test("An untyped request takes Core Data's completion-block type, NSPersistentStoreAsynchronousFetchResultCompletionBlock")
  func untypedCompletionBlock() async throws {
    let stack = try stack(notes: 2)
    let titles: [String] = await withCheckedContinuation { continuation in
      stack.context.performAndWait {
        let request = NSFetchRequest<any NSFetchRequestResult>(entityName: "Note")
        request.sortDescriptors = [NSSortDescriptor(key: "title", ascending: true)]
        let block: NSPersistentStoreAsynchronousFetchResultCompletionBlock = { result in
          continuation.resume(returning: (result.finalResult ?? []).compactMap { ($0 as? Note)?.title })
        }
        do {
          try stack.context.execute(NSAsynchronousFetchRequest(fetchRequest: request, completionBlock: block))
        } catch {
          continuation.resume(returning: ["failed: \(error)"])
        }
      }
    }
    #expect(titles == ["Note 0", "Note 1"])
  }

  @Test("A main-queue context calls the completion block on the main queue")
  func mainQueueContext() async throws {
    let stack = try stack(notes: 2, contextType: .mainQueue)
    let outcome = try await run(sortedNotes(), on: stack.context)
    #expect(outcome.titles == ["Note 0", "Note 1"])
    #expect(outcome.onQueue)
  }

  @Test("Unsaved changes count, as in fetch(_:): an inserted matching object is in the result")
  func pendingChangesCount() async throws {
    let stack = try stack(notes: 1)
    stack.context.performAndWait {
      let note = Note(context: stack.context)
      note.title = "unsaved"
      note.rating = 10
    }
    let outcome = try await run(sortedNotes(), on: stack.context)
    #expect(outcome.titles == ["Note 0", "unsaved"])
  }

  @Test("Cancelling the result before the fetch runs: no results, NSUserCancelledError, and the block is still called")
  func cancelledThroughTheResult() async throws {
    let stack = try stack(notes: 3)
    let outcome = try await run(sortedNotes(), on: stack.context) { result in result.cancel() }
    #expect(outcome.titles == nil)
    #expect(outcome.errorCode == CocoaError.userCancelled.rawValue && outcome.errorDomain == NSCocoaErrorDomain)
    #expect(outcome.completed == 0)
  }

  @Test("Cancelling the progress cancels the fetch too")
  func cancelledThroughTheProgress() async throws {
    let stack = try stack(notes: 3)
    let outcome = try await run(sortedNotes(), on: stack.context) { result in result.progress?.cancel() }
    #expect(outcome.titles == nil)
    #expect(outcome.errorCode == CocoaError.userCancelled.rawValue)
  }

  @Test("A fetch that fails hands its error to the block, with no results")
  func failureReachesTheBlock() async throws {
    let stack = try stack(notes: 1)
    let request = NSFetchRequest<Note>(entityName: "Note")
    request.predicate = NSPredicate(format: "nosuchkey == 1")
    let outcome = try await run(request, on: stack.context)
    #expect(outcome.titles == nil)
    #expect(outcome.errorCode == ObjectGraphUnknownKeyError)
  }

  @Test("execute(_:) throws at once when the context has no store to fetch from")
  func noStoreThrows() {
    let context = NSManagedObjectContext(.privateQueue)
    let request = NSAsynchronousFetchRequest(fetchRequest: NSFetchRequest<Note>(entityName: "Note"))
    #expect(request.estimatedResultCount == 0)
    context.performAndWait {
      let error = #expect(throws: ObjectGraphError.self) { _ = try context.execute(request) }
      #expect(error?.code == CocoaError.Code.noPersistentStore.rawValue)
    }
  }

  @Test("The progress is a child of the progress current when the fetch was executed")
  func progressHasTheCurrentParent() async throws {
    let stack = try stack(notes: 2)
    let parent = Progress(totalUnitCount: 1)
    let context = stack.context
    let outcome = try await withCheckedThrowingContinuation { (done: CheckedContinuation<Outcome, any Error>) in
      do {
        try context.performAndWait {
          let asynchronous = NSAsynchronousFetchRequest(fetchRequest: sortedNotes()) { result in
            done.resume(returning: Outcome(titles: result.finalResult?.map { $0.title ?? "" }))
          }
          parent.becomeCurrent(withPendingUnitCount: 1)
          _ = try context.execute(asynchronous)
          parent.resignCurrent()
        }
      } catch {
        done.resume(throwing: error)
      }
    }
    #expect(outcome.titles?.count == 2)
    #expect(parent.completedUnitCount == 1)
  }

  @Test("A request typed NSFetchRequest<NSManagedObjectID> by its result type gets IDs")
  func objectIDs() async throws {
    let stack = try stack(notes: 2)
    let context = stack.context
    let count = try await withCheckedThrowingContinuation { (done: CheckedContinuation<Int, any Error>) in
      do {
        try context.performAndWait {
          let request = NSFetchRequest<NSManagedObjectID>(entityName: "Note")
          request.resultType = .managedObjectIDResultType
          let asynchronous = NSAsynchronousFetchRequest(fetchRequest: request) { result in
            done.resume(returning: result.finalResult?.filter { !$0.isTemporaryID }.count ?? -1)
          }
          _ = try context.execute(asynchronous)
        }
      } catch {
        done.resume(throwing: error)
      }
    }
    #expect(count == 2)
  }
}
